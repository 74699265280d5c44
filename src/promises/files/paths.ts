/**
 * Path strings as cf-agent handles them for files promises. These work on
 * the text only (no file system access) and keep cf-agent's quirks where
 * its messages or link targets depend on them: `chopLastNode("/a/b/")` is
 * `/a/b`, `compressPath` resolves `.` and `..` without following links.
 */
import { type Dir, opendirSync } from "node:fs";

/** The text after the last `/` (`/a/b/.` gives `.`, `/a/b/` gives ``). */
export function lastNode(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** Collapses repeated slashes (`//a///b` → `/a/b`). */
export function deleteRedundantSlashes(path: string): string {
  return path.replace(/\/{2,}/g, "/");
}

/** The path without its last part; the root stays `/`, a bare name gives `.`. */
export function chopLastNode(path: string): string {
  const text = deleteRedundantSlashes(path);
  const at = text.lastIndexOf("/");
  if (at < 0) return text === "" ? text : ".";
  if (at === 0) return "/";
  return text.slice(0, at);
}

/** Appends a slash unless there is one already. */
export function addSlash(path: string): string {
  return path.endsWith("/") ? path : `${path}/`;
}

/** Removes one trailing slash, keeping the root. */
export function deleteSlash(path: string): string {
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}

/** `dir` and `name` joined with exactly one slash between them. */
export function joinPath(dir: string, name: string): string {
  return `${addSlash(dir)}${name.replace(/^\/+/, "")}`;
}

/**
 * Resolves `.` and `..` parts and repeated slashes, textually. Returns
 * undefined when `..` climbs above the top (cf-agent refuses the path).
 */
export function compressPath(path: string): string | undefined {
  const absolute = path.startsWith("/");
  const parts: string[] = [];
  for (const node of path.split("/")) {
    if (node === "" || node === ".") continue;
    if (node === "..") {
      if (parts.length === 0) return undefined;
      parts.pop();
      continue;
    }
    parts.push(node);
  }
  const joined = parts.join("/");
  return absolute ? `/${joined}` : joined;
}

/** Names cf-agent never descends into or copies (`.`, `..`, `lost+found`, ...). */
const IGNORED_NAMES: ReadonlySet<string> = new Set([".", "..", "lost+found", ".cfengine.rm", "..."]);

/** Whether a directory entry is one cf-agent considers (not `..`, `lost+found`, ...). */
export function isConsidered(name: string): boolean {
  return name !== "" && !IGNORED_NAMES.has(name);
}

/**
 * A directory's entries in the order the system gives them (as cf-agent
 * reads them, so logs come in the same order), without ignored names.
 * Throws the system error when the directory cannot be opened.
 */
export function readDirectory(dir: string): string[] {
  const handle: Dir = opendirSync(dir);
  const names: string[] = [];
  try {
    for (let entry = handle.readSync(); entry !== null; entry = handle.readSync()) {
      if (isConsidered(entry.name)) names.push(entry.name);
    }
  } finally {
    handle.closeSync();
  }
  return names;
}
