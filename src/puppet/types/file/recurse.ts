/**
 * A recursive file resource's children, made just before it is applied as
 * Puppet's eval_generate makes them: one `File[<path>/<relative>]` per
 * entry found below the path (unless `recurse => remote`) and per entry of
 * the source tree (with `source` set to the entry's own source), down to
 * `recurselimit` and past `ignore`d names; with `purge`, those that no
 * source provides are ensured absent. A child inherits the parent's
 * parameters except ensure, recurse, recurselimit, max_files, target,
 * alias and source; children at or below another file resource of the
 * catalog are left to it.
 */
import type { CatalogResource, ParamValue } from "../../../catalog/model.js";
import type { ApplyContext } from "../../../catalog/resource-type.js";
import { type FileSpec, mungePath } from "./params.js";
import { localPathOf, walkTree } from "./source.js";

const NOT_INHERITED = new Set([
  "ensure",
  "recurse",
  "recurselimit",
  "max_files",
  "target",
  "alias",
  "source",
  "parent",
  "path",
]);

type Params = Record<string, ParamValue>;

function inherited(resource: CatalogResource): Params {
  const params: Params = {};
  for (const [name, value] of Object.entries(resource.parameters))
    if (!NOT_INHERITED.has(name)) params[name] = value;
  return params;
}

function localChildren(spec: FileSpec, base: Params, children: Map<string, Params>): void {
  const entries = walkTree(spec.path, spec.links === "follow", spec.recurselimit, spec.ignore) ?? [];
  for (const entry of entries) if (entry.relative !== ".") children.set(entry.relative, { ...base });
}

/** The entries of the sources (the first that is a directory, or all with `sourceselect => all`). */
function remoteChildren(
  spec: FileSpec,
  base: Params,
  children: Map<string, Params>,
  context: ApplyContext,
): void {
  const seen = new Set<string>();
  for (const source of spec.source ?? []) {
    const path = localPathOf(source, context.run.modulePath ?? []);
    const entries =
      path === undefined
        ? undefined
        : walkTree(path, spec.links === "follow", spec.recurselimit, spec.ignore);
    if (!entries) continue;
    if (!entries[0]?.stats.isDirectory()) return;
    for (const entry of entries) {
      if (entry.relative === "." || seen.has(entry.relative)) continue;
      seen.add(entry.relative);
      const child = children.get(entry.relative) ?? { ...base };
      children.set(entry.relative, {
        ...child,
        source: `${source}/${entry.relative}`,
        checksum: spec.checksum,
      });
    }
    if (entries.length > 0 && spec.sourceselect === "first") return;
  }
}

/** Paths of the catalog's other file resources, as segments. */
function otherFilePaths(spec: FileSpec, context: ApplyContext): string[][] {
  const mine = spec.path.split("/");
  return context.catalog.resources
    .filter((r) => r.type === "File")
    .map((r) => mungePath(typeof r.parameters.path === "string" ? r.parameters.path : r.title))
    .filter((path) => path !== spec.path && path.startsWith("/"))
    .map((path) => path.split("/"))
    .filter((segments) => mine.every((s, i) => segments[i] === s));
}

function coveredByOther(path: string, others: readonly string[][]): boolean {
  const segments = path.split("/");
  return others.some((other) => other.every((s, i) => segments[i] === s));
}

/** The children of a recursive file resource; none when it does not recurse. */
export function fileChildren(
  resource: CatalogResource,
  spec: FileSpec,
  context: ApplyContext,
): CatalogResource[] {
  if (!spec.recurse) return [];
  const base = inherited(resource);
  const children = new Map<string, Params>();
  if (spec.recurse !== "remote") localChildren(spec, base, children);
  if (spec.source) remoteChildren(spec, base, children, context);
  if (spec.purge)
    for (const params of children.values()) if (params.source === undefined) params.ensure = "absent";
  const others = otherFilePaths(spec, context);
  return [...children.entries()]
    .map(([relative, parameters]) => ({
      path: `${spec.path === "/" ? "" : spec.path}/${relative}`,
      parameters,
    }))
    .filter((child) => !coveredByOther(child.path, others))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map(({ path, parameters }) => ({
      type: "File",
      title: path,
      parameters,
      tags: resource.tags,
      file: resource.file,
      line: resource.line,
    }));
}
