/**
 * Where a hierarchy entry reads its data: `path`/`paths` (extension added
 * for versions 3 and 4), `glob`/`globs` (files only, sorted as Ruby's
 * Dir.glob sorts), `uri`/`uris`, and `mapped_paths` (one path per element
 * of a variable, the element bound to a name for the template). Paths are
 * interpolated each time (variables differ by scope); existence is asked
 * once per path per compile.
 */
import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { PValue } from "../eval/values.js";
import type { HieraConfig, HierarchyEntry } from "./config.js";
import { type InterpolationContext, interpolate, scopeValue } from "./interpolate.js";

export interface ResolvedLocation {
  /** As written in hiera.yaml. */
  readonly original: string;
  /** The absolute path, or the URI. */
  readonly location: string;
  readonly isUri: boolean;
  readonly exists: boolean;
}

/** Answers about the file system, memoised for one compile. */
export class FileProbe {
  readonly #kinds = new Map<string, "file" | "dir" | "none">();
  readonly #dirs = new Map<string, string[]>();

  kind(path: string): "file" | "dir" | "none" {
    let k = this.#kinds.get(path);
    if (k === undefined) {
      try {
        k = statSync(path).isDirectory() ? "dir" : "file";
      } catch {
        k = "none";
      }
      this.#kinds.set(path, k);
    }
    return k;
  }
  exists(path: string): boolean {
    return this.kind(path) !== "none";
  }
  list(dir: string): string[] {
    let names = this.#dirs.get(dir);
    if (names === undefined) {
      try {
        names = readdirSync(dir).sort();
      } catch {
        names = [];
      }
      this.#dirs.set(dir, names);
    }
    return names;
  }
}

function text(v: PValue): string {
  return typeof v === "string" ? v : String(v ?? "");
}

/** The entry's locations; undefined when it names none (the function gets no path). */
export function resolveLocations(
  entry: HierarchyEntry,
  config: HieraConfig,
  ctx: InterpolationContext,
  probe: FileProbe,
): ResolvedLocation[] | undefined {
  if (!entry.locationKey) return undefined;
  const datadir = resolve(config.root, text(interpolate(entry.datadir, ctx, false)));
  const isDefault = config.path === undefined;
  switch (entry.locationKey) {
    case "path":
    case "paths":
      return entry.locations.flatMap((p) => {
        let path = text(interpolate(p, ctx, false));
        if (entry.extension && !path.endsWith(entry.extension)) path += entry.extension;
        const full = resolve(datadir, path);
        const exists = probe.exists(full);
        return isDefault && !exists ? [] : [{ original: p, location: full, isUri: false, exists }];
      });
    case "glob":
    case "globs":
      return entry.locations.flatMap((g) => {
        const pattern = join(datadir, text(interpolate(g, ctx, false)));
        return expandGlob(pattern, probe).map((location) => ({
          original: pattern,
          location,
          isUri: false,
          exists: true,
        }));
      });
    case "uri":
    case "uris":
      return entry.locations.map((u) => ({
        original: u,
        location: text(interpolate(u, ctx, false)),
        isUri: true,
        exists: true,
      }));
    case "mapped_paths":
      return mappedPaths(entry.locations, datadir, ctx, probe);
  }
}

function mappedPaths(
  triplet: readonly string[],
  datadir: string,
  ctx: InterpolationContext,
  probe: FileProbe,
): ResolvedLocation[] {
  const [varName = "", key = "", template = ""] = triplet;
  let values = scopeValue(varName, ctx, "mapped_path[0]");
  if (values === undefined || values === "" || (Array.isArray(values) && values.length === 0)) return [];
  if (typeof values === "string") values = [values];
  const list: PValue[] = Array.isArray(values) ? (values as PValue[]) : [values];
  return list.map((v) => {
    const local: InterpolationContext = {
      variable: (name) => (name === key ? v : ctx.variable(name)),
      lookup: (k) => ctx.lookup(k),
      check: (n, fn) => ctx.check(n, fn),
    };
    const location = resolve(datadir, text(interpolate(template, local, false)));
    return { original: template, location, isUri: false, exists: probe.exists(location) };
  });
}

/** Files matching a glob (`*`, `?`, `[...]`, `{a,b}`, `**`), sorted, directories left out. */
export function expandGlob(pattern: string, probe: FileProbe): string[] {
  const parts = pattern.split("/").filter((p, i) => p !== "" || i === 0);
  const results: string[] = [];
  walk(parts[0] === "" ? "/" : ".", parts.slice(parts[0] === "" ? 1 : 0), probe, results);
  return results.filter((p) => probe.kind(p) === "file");
}

function walk(dir: string, parts: readonly string[], probe: FileProbe, out: string[]): void {
  const [head, ...rest] = parts;
  if (head === undefined) {
    out.push(dir);
    return;
  }
  if (head === "**") {
    walk(dir, rest, probe, out);
    for (const name of probe.list(dir))
      if (!name.startsWith(".") && probe.kind(join(dir, name)) === "dir")
        walk(join(dir, name), parts, probe, out);
    return;
  }
  if (!/[*?[{]/.test(head)) {
    const next = join(dir, head);
    if (probe.exists(next)) walk(next, rest, probe, out);
    return;
  }
  const re = globSegment(head);
  for (const name of probe.list(dir)) {
    if (name.startsWith(".") && !head.startsWith(".")) continue;
    if (re.test(name)) walk(join(dir, name), rest, probe, out);
  }
}

function globSegment(glob: string): RegExp {
  let src = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] ?? "";
    if (c === "*") src += "[^/]*";
    else if (c === "?") src += "[^/]";
    else if (c === "[") {
      const end = glob.indexOf("]", i + 1);
      src += end < 0 ? "\\[" : `[${glob.slice(i + 1, end).replace(/^!/, "^")}]`;
      if (end >= 0) i = end;
    } else if (c === "{") {
      const end = glob.indexOf("}", i + 1);
      if (end < 0) src += "\\{";
      else {
        src += `(?:${glob
          .slice(i + 1, end)
          .split(",")
          .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\\\*/g, "[^/]*"))
          .join("|")})`;
        i = end;
      }
    } else src += c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${src}$`);
}
