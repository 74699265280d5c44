/**
 * File functions: fileexists, isdir, isplain, islink, lsdir, findfiles,
 * readfile, readjson, readdata (JSON), readstringlist, filestat.
 * All synchronous: they run while a policy loads.
 */
import { lstatSync, readFileSync, readdirSync, statSync } from "node:fs";
import { posix } from "node:path";
import { type JsonValue, type Value, data, list, scalar } from "../values.js";
import { boolean, classResult, compileRegex, fullMatch, integer, text } from "./args.js";
import { type BuiltinFunction, defineFunction } from "./types.js";

function statOf(path: string, follow = true) {
  try {
    return follow ? statSync(path, { throwIfNoEntry: false }) : lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function readText(path: string | undefined, max?: number): string | undefined {
  if (path === undefined) return undefined;
  try {
    const content = readFileSync(path, "utf8");
    return max !== undefined && max > 0 ? content.slice(0, max) : content;
  } catch {
    return undefined;
  }
}

function pathTest(name: string, test: (path: string) => boolean): BuiltinFunction {
  return defineFunction(name, 1, 1, ([path]) => {
    const raw = text(path);
    return raw === undefined ? undefined : classResult(test(raw));
  });
}

function listDirectory(dir: string): string[] | undefined {
  try {
    return [".", "..", ...readdirSync(dir)].sort();
  } catch {
    return undefined;
  }
}

/** Turns one glob path segment into an anchored regex. */
function globSegment(segment: string): RegExp {
  let source = "";
  for (const ch of segment) {
    if (ch === "*") source += "[^/]*";
    else if (ch === "?") source += "[^/]";
    else if (ch === "[" || ch === "]") source += ch;
    else source += ch.replace(/[.+^${}()|\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

function expandGlob(pattern: string): string[] {
  const absolute = pattern.startsWith("/");
  let current = [absolute ? "/" : "."];
  for (const segment of pattern.split("/").filter((s) => s !== "")) {
    const next: string[] = [];
    const wild = /[*?[]/.test(segment);
    for (const base of current) {
      if (!wild) {
        const candidate = posix.join(base, segment);
        if (statOf(candidate, false)) next.push(candidate);
        continue;
      }
      const regex = globSegment(segment);
      for (const entry of listDirectory(base) ?? []) {
        if (entry === "." || entry === "..") continue;
        if (!segment.startsWith(".") && entry.startsWith(".")) continue;
        if (regex.test(entry)) next.push(posix.join(base, entry));
      }
    }
    current = next.sort();
  }
  return current;
}

function parseJsonText(raw: string | undefined): Value | undefined {
  if (raw === undefined) return undefined;
  try {
    return data(JSON.parse(raw) as JsonValue);
  } catch {
    return undefined;
  }
}

function readStringList([path, comment, split, maxEntries, maxSize]: readonly Value[]): Value | undefined {
  const content = readText(text(path), integer(maxSize));
  const splitter = compileRegex(text(split) ?? "\n", "g");
  if (content === undefined || !splitter) return undefined;
  const commentPattern = text(comment) ?? "";
  const commentRegex = commentPattern === "" ? undefined : compileRegex(commentPattern, "gm");
  const cleaned = commentRegex ? content.replace(commentRegex, "") : content;
  const items = cleaned.split(splitter).filter((s) => s !== "");
  return list(items.slice(0, integer(maxEntries) ?? items.length));
}

export const fileFunctions: readonly BuiltinFunction[] = [
  pathTest("fileexists", (p) => statOf(p) !== undefined),
  pathTest("isdir", (p) => statOf(p)?.isDirectory() === true),
  pathTest("isplain", (p) => statOf(p)?.isFile() === true),
  pathTest("islink", (p) => statOf(p, false)?.isSymbolicLink() === true),
  defineFunction("lsdir", 3, 3, ([path, pattern, includeBase]) => {
    const dir = text(path);
    const entries = dir === undefined ? undefined : listDirectory(dir);
    if (dir === undefined || !entries) return undefined;
    const matched = entries.filter((e) => fullMatch(text(pattern) ?? ".*", e));
    return list(boolean(includeBase) ? matched.map((e) => posix.join(dir, e)) : matched);
  }),
  defineFunction("findfiles", 1, Number.POSITIVE_INFINITY, (args) => {
    const patterns = args.map(text);
    if (patterns.some((p) => p === undefined)) return undefined;
    return list((patterns as string[]).flatMap(expandGlob));
  }),
  defineFunction("readfile", 1, 2, ([path, max]) => {
    const content = readText(text(path), integer(max));
    return content === undefined ? undefined : scalar(content);
  }),
  defineFunction("readjson", 1, 2, ([path, max]) => parseJsonText(readText(text(path), integer(max)))),
  defineFunction("readdata", 2, 2, ([path, format]) => {
    const kind = text(format);
    const raw = readText(text(path));
    return kind === "JSON" || (kind === "auto" && text(path)?.endsWith(".json"))
      ? parseJsonText(raw)
      : undefined;
  }),
  defineFunction("readstringlist", 5, 5, (args) => readStringList(args)),
  defineFunction("filestat", 2, 2, ([path, field]) => {
    const stat = statOf(text(path) ?? "", false);
    if (!stat) return undefined;
    const fields: Record<string, () => string> = {
      size: () => String(stat.size),
      type: () => (stat.isDirectory() ? "directory" : stat.isSymbolicLink() ? "symlink" : "regular file"),
      uid: () => String(stat.uid),
      gid: () => String(stat.gid),
      permoct: () => (stat.mode & 0o777).toString(8),
      mtime: () => String(Math.floor(stat.mtimeMs / 1000)),
      basename: () => posix.basename(text(path) ?? ""),
      dirname: () => posix.dirname(text(path) ?? ""),
    };
    const get = fields[text(field) ?? ""];
    return get ? scalar(get()) : undefined;
  }),
];
