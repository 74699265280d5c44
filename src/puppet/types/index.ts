/**
 * The Puppet resource types tend runs, by lower-case name (`file`, `exec`,
 * `concat::fragment`). A catalog resource of a type not listed here fails
 * with a message naming the type. To add a type, write it in its own file
 * of this folder and list it below.
 */
import type { ResourceType } from "../../catalog/resource-type.js";
import { concatFileType, concatFragmentType } from "./concat.js";
import { cronType } from "./cron.js";
import { execType } from "./exec.js";
import { fileType } from "./file/index.js";
import { fileLineType } from "./file-line.js";
import { groupType } from "./group.js";
import { hostType } from "./host.js";
import { mailaliasType } from "./mailalias.js";
import { mountType } from "./mount.js";
import { notifyType } from "./notify.js";
import { packageType } from "./package.js";
import { type PromiseModules, promiseModuleType } from "./promise-module.js";
import { serviceType } from "./service.js";
import { sshAuthorizedKeyType } from "./ssh-authorized-key.js";
import { sshkeyType } from "./sshkey.js";
import { userType } from "./user.js";

const types: readonly ResourceType[] = [
  notifyType,
  userType,
  groupType,
  cronType,
  hostType,
  sshkeyType,
  sshAuthorizedKeyType,
  mailaliasType,
  mountType,
  execType,
  fileType,
  fileLineType,
  concatFileType,
  concatFragmentType,
  packageType,
  serviceType,
];

/** Every registered type by its lower-case name. */
export const puppetTypes: ReadonlyMap<string, ResourceType> = new Map(types.map((t) => [t.name, t]));

/** Puppet's types that are containers, not resources: the applier walks through them. */
export const CONTAINER_TYPES: ReadonlySet<string> = new Set(["class", "stage", "node", "whit", "component"]);

/**
 * The type of a catalog resource (`File`, `Concat::Fragment`): a built-in
 * one, else the promise module configured for it, else undefined.
 */
export function findPuppetType(type: string, modules?: PromiseModules): ResourceType | undefined {
  const builtIn = puppetTypes.get(type.toLowerCase());
  if (builtIn || !modules) return builtIn;
  const spec = modules.find(type);
  return spec ? promiseModuleType(type.toLowerCase(), spec, modules) : undefined;
}

/**
 * The types a catalog's run uses: every built-in type, and for each type of
 * the catalog that is not built in, its promise module when one is
 * configured (the applier refuses types it cannot find, naming them).
 */
export function puppetRegistry(
  resources: readonly { readonly type: string }[],
  modules?: PromiseModules,
): ReadonlyMap<string, ResourceType> {
  const registry = new Map(puppetTypes);
  for (const { type } of resources) {
    const name = type.toLowerCase();
    if (registry.has(name) || CONTAINER_TYPES.has(name)) continue;
    const found = findPuppetType(type, modules);
    if (found) registry.set(name, found);
  }
  return registry;
}
