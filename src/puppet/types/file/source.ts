/**
 * A file resource's `source`, read as `puppet apply` reads it: a
 * `puppet:///modules/<module>/<path>` URI names `<module>/files/<path>` in
 * the first directory of the module path that has it; `file://` URIs and
 * absolute paths name local files. Metadata (kind, mode, owner, checksum,
 * a link's destination) comes from lstat, or stat when `links => follow`,
 * as Puppet's file-serving metadata does; a recursive search lists a
 * source tree as Puppet's Fileset does (`recurselimit`, `ignore`).
 */
import { existsSync, lstatSync, readdirSync, readlinkSync, type Stats, statSync } from "node:fs";
import { join } from "node:path";
import { type ChecksumType, checksumOfFile } from "./checksum.js";

export type Ftype = "file" | "directory" | "link" | "fifo" | "socket" | "characterSpecial" | "blockSpecial";

export interface SourceMetadata {
  /** The source URI this came from (a child's is `<source>/<relative path>`). */
  readonly source: string;
  /** The local path read. */
  readonly fullPath: string;
  readonly ftype: Ftype;
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
  /** `{sha256}...` of a file; absent for a directory or managed link. */
  readonly checksum?: string;
  /** A link's destination (readlink). */
  readonly destination?: string;
}

export function ftypeOf(stats: Stats): Ftype {
  if (stats.isFile()) return "file";
  if (stats.isDirectory()) return "directory";
  if (stats.isSymbolicLink()) return "link";
  if (stats.isFIFO()) return "fifo";
  if (stats.isSocket()) return "socket";
  return stats.isCharacterDevice() ? "characterSpecial" : "blockSpecial";
}

/** The local path a source URI names, or undefined when nothing there exists. */
export function localPathOf(source: string, modulePath: readonly string[]): string | undefined {
  if (source.startsWith("file://")) return decodeURIComponent(source.slice("file://".length));
  const puppet = /^puppet:\/\/[^/]*\/(.*)$/.exec(source);
  if (!puppet) return undefined;
  const [mount, module, ...rest] = (puppet[1] as string).split("/");
  if (mount !== "modules" || !module) return undefined;
  for (const dir of modulePath) {
    const candidate = join(dir, module, "files", ...rest.map(decodeURIComponent));
    if (existsSync(join(dir, module))) return candidate;
  }
  return undefined;
}

function statFor(path: string, follow: boolean): Stats | undefined {
  try {
    return follow ? statSync(path) : lstatSync(path);
  } catch {
    return undefined;
  }
}

/** What one local path holds, as Puppet's metadata describes it. */
export function metadataOf(
  source: string,
  fullPath: string,
  follow: boolean,
  checksum: ChecksumType,
): SourceMetadata | undefined {
  const stats = statFor(fullPath, follow);
  if (!stats) return undefined;
  const ftype = ftypeOf(stats);
  return {
    source,
    fullPath,
    ftype,
    mode: stats.mode & 0o7777,
    uid: stats.uid,
    gid: stats.gid,
    checksum: ftype === "file" ? checksumOfFile(fullPath, checksum) : undefined,
    destination: ftype === "link" ? readlinkSync(fullPath) : undefined,
  };
}

export interface SourceOptions {
  readonly modulePath: readonly string[];
  readonly follow: boolean;
  readonly checksum: ChecksumType;
}

/** The first source that exists, with its metadata; undefined when none does. */
export function findSource(sources: readonly string[], options: SourceOptions): SourceMetadata | undefined {
  for (const source of sources) {
    const path = localPathOf(source, options.modulePath);
    const meta = path === undefined ? undefined : metadataOf(source, path, options.follow, options.checksum);
    if (meta) return meta;
  }
  return undefined;
}

/** Ruby's File.fnmatch without flags: `*`, `?`, `[...]`; a leading dot is matched only by a dot. */
export function fnmatch(pattern: string, name: string): boolean {
  if (name.startsWith(".") && !pattern.startsWith(".")) return false;
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "*") source += "[^/]*";
    else if (c === "?") source += "[^/]";
    else if (c === "[") {
      const end = pattern.indexOf("]", i + 1);
      if (end < 0) source += "\\[";
      else {
        source += `[${pattern
          .slice(i + 1, end)
          .replace(/^!/, "^")
          .replace(/\\/g, "\\\\")}]`;
        i = end;
      }
    } else source += c.replace(/[.+^${}()|\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`).test(name);
}

export interface WalkEntry {
  /** `.` for the root, else `a/b` below it. */
  readonly relative: string;
  readonly stats: Stats;
}

/**
 * The entries below `root` (the root itself as `.`) down to `limit`
 * levels (undefined: all), skipping names matching an `ignore` pattern;
 * links are descended only when followed. Undefined when root is absent.
 */
export function walkTree(
  root: string,
  follow: boolean,
  limit: number | undefined,
  ignore: readonly string[],
): WalkEntry[] | undefined {
  const top = statFor(root, follow);
  if (!top) return undefined;
  const out: WalkEntry[] = [{ relative: ".", stats: top }];
  const visit = (dir: string, relative: string, depth: number): void => {
    if (limit !== undefined && depth > limit) return;
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (ignore.some((pattern) => fnmatch(pattern, name))) continue;
      const path = join(dir, name);
      const stats = statFor(path, follow);
      if (!stats) continue;
      const rel = relative === "." ? name : `${relative}/${name}`;
      out.push({ relative: rel, stats });
      if (stats.isDirectory()) visit(path, rel, depth + 1);
    }
  };
  if (top.isDirectory()) visit(root, ".", 1);
  return out;
}
