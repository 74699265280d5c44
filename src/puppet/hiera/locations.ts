/**
 * Where a hierarchy entry reads its data: `path`/`paths` (extension added
 * for versions 3 and 4), `glob`/`globs` (files only, sorted as Ruby's
 * Dir.glob sorts), `uri`/`uris`, and `mapped_paths` (one path per element
 * of a variable, the element bound to a name for the template). Paths are
 * interpolated each time (variables differ by scope); existence is asked
 * once per path per compile.
 */
import { readdirSync, statSync } from "node:fs";
import { join, normalize } from "node:path";
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
  /** Resolved locations of each hierarchy entry, by its interpolated texts. */
  readonly resolved = new Map<HierarchyEntry, Map<string, ResolvedLocation[]>>();

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

/** `rel` against the absolute `base` (node's resolve without asking for the working directory). */
function resolve(base: string, rel: string): string {
  const joined = rel.startsWith("/") ? rel : `${base}/${rel}`;
  return /\/\.|\/\/|\/$/.test(joined) ? normalize(joined).replace(/(.)\/$/, "$1") : joined;
}

/**
 * The entry's locations; undefined when it names none (the function gets no
 * path). Resolved once per distinct interpolation of its texts (mapped_paths
 * each time: its template may read any variable).
 */
export function resolveLocations(
  entry: HierarchyEntry,
  config: HieraConfig,
  ctx: InterpolationContext,
  probe: FileProbe,
): ResolvedLocation[] | undefined {
  if (!entry.locationKey) return undefined;
  const datadirText = text(interpolate(entry.datadir, ctx, false));
  if (entry.locationKey === "mapped_paths")
    return mappedPaths(entry.locations, resolve(config.root, datadirText), ctx, probe);
  const texts = entry.locations.map((p) => text(interpolate(p, ctx, false)));
  let memo = probe.resolved.get(entry);
  if (!memo) {
    memo = new Map();
    probe.resolved.set(entry, memo);
  }
  const key = `${datadirText}\u0000${texts.join("\u0000")}`;
  let found = memo.get(key);
  if (!found) {
    found = materialise(entry, config, resolve(config.root, datadirText), texts, probe);
    memo.set(key, found);
  }
  return found;
}

function materialise(
  entry: HierarchyEntry,
  config: HieraConfig,
  datadir: string,
  texts: readonly string[],
  probe: FileProbe,
): ResolvedLocation[] {
  const isDefault = config.path === undefined;
  switch (entry.locationKey) {
    case "glob":
    case "globs":
      return texts.flatMap((g) => {
        const pattern = join(datadir, g);
        return expandGlob(pattern, probe).map((location) => ({
          original: pattern,
          location,
          isUri: false,
          exists: true,
        }));
      });
    case "uri":
    case "uris":
      return texts.map((location, i) => ({
        original: entry.locations[i] ?? "",
        location,
        isUri: true,
        exists: true,
      }));
    default:
      return texts.flatMap((t, i) => {
        const path = entry.extension && !t.endsWith(entry.extension) ? t + entry.extension : t;
        const full = resolve(datadir, path);
        const exists = probe.exists(full);
        return isDefault && !exists
          ? []
          : [{ original: entry.locations[i] ?? "", location: full, isUri: false, exists }];
      });
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
