/**
 * Puppet's `file` resource type over the shared files provider: parameters
 * checked as Puppet 7.23 checks them, each evaluation in Puppet's property
 * order with its events, and a recursive resource's children generated
 * (and purged) just before it is applied.
 */
import type { CatalogResource } from "../../../catalog/model.js";
import type { ApplyContext, ResourceResult, ResourceType } from "../../../catalog/resource-type.js";
import { applyFile } from "./apply.js";
import {
  AccountDatabase,
  backgroundWriter,
  contentMatches,
  type FileState,
  inspectPath,
} from "../../../providers/files/index.js";
import { type FileSpec, parseFile } from "./params.js";
import { fileChildren } from "./recurse.js";

/** Parsed once per resource object: validate, generate and apply each need it. */
const specs = new WeakMap<CatalogResource, FileSpec | string>();

function specOf(resource: CatalogResource): FileSpec | string {
  let spec = specs.get(resource);
  if (spec === undefined) {
    const parsed = parseFile(resource);
    spec = "error" in parsed ? parsed.error : parsed.spec;
    specs.set(resource, spec);
  }
  return spec;
}

/**
 * What is at the resource's path, when it may be applied while files of
 * earlier ones are still being written; else undefined. It may when it
 * looks at and changes only its own path, on which no file is under way,
 * and replaces or removes nothing there (a backup, or a whole tree with
 * `force`, could reach them): its path is absent, or a file with the
 * content wanted already.
 */
function stateBeside(spec: FileSpec): FileState | undefined {
  if (spec.source !== undefined || spec.validateCmd !== undefined || spec.recurse) return undefined;
  if (spec.owner !== undefined || spec.group !== undefined || spec.links === "follow") return undefined;
  if (backgroundWriter.conflicts(spec.path)) return undefined;
  const found = inspectPath(spec.path);
  if (found.kind === "absent") return found;
  if (found.kind !== "file" || spec.content === undefined) return undefined;
  if (spec.ensure !== undefined && spec.ensure !== "file" && spec.ensure !== "present") return undefined;
  try {
    return contentMatches(spec.path, spec.content) ? found : undefined;
  } catch {
    return undefined;
  }
}

export const fileType: ResourceType = {
  name: "file",
  backgroundChanges: true,
  validate(resource: CatalogResource): readonly string[] {
    const spec = specOf(resource);
    return typeof spec === "string" ? [spec] : [];
  },
  async apply(resource: CatalogResource, context: ApplyContext): Promise<ResourceResult> {
    const spec = specOf(resource);
    if (typeof spec === "string") return { events: [], failed: spec };
    const background = context.background;
    const found = background?.busy ? stateBeside(spec) : undefined;
    if (background?.busy && !found) await background.settle();
    // Read lazily: only a resource naming an owner or group opens passwd and group.
    const result = applyFile(resource, spec, context, new AccountDatabase(), found);
    const pace = result.pending ? backgroundWriter.pace() : undefined;
    if (pace) await pace;
    return result;
  },
  generates(resource: CatalogResource): boolean {
    const spec = specOf(resource);
    return typeof spec !== "string" && Boolean(spec.recurse);
  },
  async generate(resource: CatalogResource, context: ApplyContext): Promise<readonly CatalogResource[]> {
    const spec = specOf(resource);
    return typeof spec === "string" ? [] : fileChildren(resource, spec, context);
  },
};
