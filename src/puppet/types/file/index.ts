/**
 * Puppet's `file` resource type over the shared files provider: parameters
 * checked as Puppet 7.23 checks them, each evaluation in Puppet's property
 * order with its events, and a recursive resource's children generated
 * (and purged) just before it is applied.
 */
import type { CatalogResource } from "../../../catalog/model.js";
import type { ApplyContext, ResourceResult, ResourceType } from "../../../catalog/resource-type.js";
import { applyFile } from "./apply.js";
import { AccountDatabase } from "../../../providers/files/index.js";
import { type FileSpec, parseFile } from "./params.js";
import { fileChildren } from "./recurse.js";

/** Parsed once per resource object: validate, generate and apply each need it. */
const specs = new WeakMap<CatalogResource, FileSpec | string>();

/** The last resource asked for: the applier asks three times in a row for each (keepsDirectories, generates, apply). */
let lastResource: CatalogResource | undefined;
let lastSpec: FileSpec | string = "";

function specOf(resource: CatalogResource): FileSpec | string {
  if (resource === lastResource) return lastSpec;
  let spec = specs.get(resource);
  if (spec === undefined) {
    const parsed = parseFile(resource);
    spec = "error" in parsed ? parsed.error : parsed.spec;
    specs.set(resource, spec);
  }
  lastResource = resource;
  lastSpec = spec;
  return spec;
}

export const fileType: ResourceType = {
  name: "file",
  validate(resource: CatalogResource): readonly string[] {
    const spec = specOf(resource);
    return typeof spec === "string" ? [spec] : [];
  },
  // Not async: applyFile never waits, and the applier goes on at once with a result.
  apply(resource: CatalogResource, context: ApplyContext): ResourceResult {
    const spec = specOf(resource);
    if (typeof spec === "string") return { events: [], failed: spec };
    // Read lazily: only a resource naming an owner or group opens passwd and group.
    return applyFile(resource, spec, context, new AccountDatabase());
  },
  // Every change goes through safe-fs, but a validate_cmd's command.
  keepsDirectories(resource: CatalogResource): boolean {
    const spec = specOf(resource);
    return typeof spec !== "string" && spec.validateCmd === undefined;
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
