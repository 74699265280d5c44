/** The built-in recipe resource types by name. */
import { blockType, logType } from "./basic.js";
import { bashType, executeType, scriptType, shType } from "./commands.js";
import { directoryType, fileType, linkType, templateType } from "./files.js";
import { cronType, groupType, packageType, serviceType, userType } from "./system.js";
import type { RecipeResourceType } from "./type.js";

export const BUILTIN_TYPES: ReadonlyMap<string, RecipeResourceType> = new Map(
  [
    fileType,
    templateType,
    directoryType,
    linkType,
    executeType,
    scriptType,
    bashType,
    shType,
    packageType,
    serviceType,
    userType,
    groupType,
    cronType,
    logType,
    blockType,
  ].map((t) => [t.name, t]),
);
