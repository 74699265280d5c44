/**
 * puppetlabs-concat's `concat_file` and `concat_fragment` (what the
 * `concat` and `concat::fragment` defined types declare). A concat_file
 * gathers the catalog's fragments that target its path or title (or share
 * its tag), orders them (`numeric`: by order then name, numbers compared
 * as numbers; `alpha`: as text), joins their content (`ensure_newline`
 * ends each with a newline) and generates the `File[<path>]` resource that
 * writes it, with its owner, group, mode, replace and backup: that file
 * resource carries the events, as in Puppet. Fragments themselves change
 * nothing.
 */
import { readFileSync } from "node:fs";
import type { CatalogResource, ParamValue } from "../../catalog/model.js";
import type { ApplyContext, ResourceType } from "../../catalog/resource-type.js";
import { localPathOf } from "./file/source.js";

/** The tag concat derives from a title (`/etc/motd` → `_etc_motd`). */
export function safeTag(name: string): string {
  return name.replace(/[\\/:~\n\s+*()@]/g, "_");
}

function pathOf(resource: CatalogResource): string {
  const path = resource.parameters.path;
  return typeof path === "string" ? path : resource.title;
}

function targets(fragment: CatalogResource, file: CatalogResource): boolean {
  const target = fragment.parameters.target;
  if (target === pathOf(file) || target === file.title) return true;
  const tag = safeTag(file.title);
  return fragment.tags.includes(tag) && file.tags.includes(tag);
}

function fragmentContent(fragment: CatalogResource, context: ApplyContext): string {
  const content = fragment.parameters.content;
  if (typeof content === "string") return content;
  const raw = fragment.parameters.source;
  const sources = (Array.isArray(raw) ? raw : raw === undefined || raw === null ? [] : [raw]).map(String);
  for (const source of sources) {
    const path = source.startsWith("/") ? source : localPathOf(source, context.run.modulePath ?? []);
    try {
      if (path !== undefined) return readFileSync(path, "utf8");
    } catch {
      // Not there: the next source.
    }
  }
  throw new Error(`Could not retrieve source(s) ${sources.join(", ")}`);
}

type Key = readonly [number | string, number | string];

function decompound(key: string): Key {
  const cut = key.indexOf("___");
  const parts = cut < 0 ? [key] : [key.slice(0, cut), key.slice(cut + 3)];
  const value = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v) ? Number(v) : (v ?? ""));
  return [value(parts[0]), value(parts[1])];
}

function compareValue(a: number | string, b: number | string): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  const [x, y] = [String(a), String(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

function compareKeys(a: Key, b: Key): number {
  return compareValue(a[0], b[0]) || compareValue(a[1], b[1]);
}

/** The file's content: its fragments ordered and joined, as concat_file's should_content. */
export function concatContent(file: CatalogResource, context: ApplyContext): string {
  const order = file.parameters.order === "alpha" ? "alpha" : "numeric";
  const newline = String(file.parameters.ensure_newline) === "true";
  const parts = context.catalog.resources
    .filter((r) => r.type === "Concat_fragment" && targets(r, file))
    .map((r) => {
      let content = fragmentContent(r, context);
      if (newline && !/\n$/.test(content)) content += "\n";
      return { key: `${String(r.parameters.order ?? "10")}___${r.title}`, content };
    });
  if (order === "numeric") parts.sort((a, b) => compareKeys(decompound(a.key), decompound(b.key)));
  else {
    const alpha = (key: string) => {
      const cut = key.indexOf("__");
      return [key.slice(0, cut), key.slice(cut + 2)];
    };
    parts.sort((a, b) => {
      const [x, y] = [alpha(a.key), alpha(b.key)];
      return compareValue(x[0] as string, y[0] as string) || compareValue(x[1] as string, y[1] as string);
    });
  }
  return parts.map((p) => p.content).join("");
}

const PASSED = ["owner", "group", "mode", "replace", "backup", "validate_cmd", "show_diff"];
/** Metaparameters the generated file inherits (all but ordering, notification and tags). */
const METAPARAMS = ["noop", "loglevel", "schedule", "audit", "alias", "stage"];

export const concatFileType: ResourceType = {
  name: "concat_file",
  validate(resource) {
    const path = pathOf(resource);
    if (!path.startsWith("/"))
      return [
        `Parameter path failed on Concat_file[${resource.title}]: File paths must be fully qualified, not '${path}'`,
      ];
    const format = resource.parameters.format;
    if (format !== undefined && format !== null && format !== "plain")
      return [
        `Concat_file[${resource.title}]: format '${String(format)}' is not supported by tend (only plain)`,
      ];
    return [];
  },
  async apply() {
    // Its ensure is always in sync (exists? is ensure == present): the file resource does the work.
    return { events: [] };
  },
  async generate(resource, context) {
    const absent = resource.parameters.ensure === "absent";
    const parameters: Record<string, ParamValue> = { ensure: absent ? "absent" : "file" };
    for (const name of [...PASSED, ...METAPARAMS]) {
      const value = resource.parameters[name];
      if (value !== undefined && value !== null) parameters[name] = value;
    }
    if (!absent) parameters.content = concatContent(resource, context);
    const path = pathOf(resource);
    return [
      { type: "File", title: path, parameters, tags: ["file"], file: resource.file, line: resource.line },
    ];
  },
};

export const concatFragmentType: ResourceType = {
  name: "concat_fragment",
  validate(resource) {
    const p = resource.parameters;
    const ref = `Concat_fragment[${resource.title}]`;
    if (p.target === undefined && p.tag === undefined) return [`${ref}: No 'target' or 'tag' set`];
    const hasSource = p.source !== undefined && p.source !== null;
    const hasContent = p.content !== undefined && p.content !== null;
    if (!hasSource && !hasContent) return [`${ref}: Set either 'source' or 'content'`];
    if (hasSource && hasContent) return [`${ref}: Can't use 'source' and 'content' at the same time`];
    return [];
  },
  async apply() {
    return { events: [] };
  },
};
