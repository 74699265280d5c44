/**
 * Path string helpers with 3.21's edge cases (they differ from
 * `path.dirname`: `dirname("a")` is "." but `dirname("")` is "").
 */

/** Removes trailing slashes, keeping a lone root slash. */
export function deleteSlash(path: string): string {
  let end = path.length;
  while (end > 1 && path[end - 1] === "/") end--;
  return path.slice(0, end);
}

/** Collapses runs of slashes into one (3.21's `DeleteRedundantSlashes`). */
export function deleteRedundantSlashes(path: string): string {
  return path.replace(/\/{2,}/g, "/");
}

/**
 * Drops the last node, runs of slashes collapsed first: `/a/b/c` → `/a/b`,
 * `/a/b/` → `/a/b`, `/a` → `/`, `a//b` → `a`, `a` → `.`, `` → ``.
 */
export function chopLastNode(raw: string): string {
  const path = deleteRedundantSlashes(raw);
  const last = path.lastIndexOf("/");
  if (last === -1) return path === "" ? "" : ".";
  // The root slash of an absolute path stays.
  if (path.startsWith("/") && path.indexOf("/") === last) return path.slice(0, last + 1);
  return path.slice(0, last);
}

/** What follows the last slash (the whole string without one). */
export function readLastNode(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** `dirname()`: trailing slashes removed, then the last node chopped. */
export function cfDirname(path: string): string {
  return chopLastNode(deleteSlash(path));
}

/**
 * `basename()`: POSIX basename (trailing slashes ignored, `/` for a root),
 * with `suffix` removed when it is a proper suffix.
 */
export function cfBasename(path: string, suffix?: string): string {
  if (path === "") return "";
  const trimmed = deleteSlash(path);
  const base = trimmed === "/" || /^\/+$/.test(path) ? "/" : readLastNode(trimmed);
  if (suffix !== undefined && base.endsWith(suffix) && suffix.length < base.length) {
    return base.slice(0, base.length - suffix.length);
  }
  return base;
}

/** Normalises `.`, `..` and doubled slashes in an absolute path, without touching the disk. */
export function compressPath(path: string): string {
  const out: string[] = [];
  for (const node of path.split("/")) {
    if (node === "" || node === ".") continue;
    if (node === "..") out.pop();
    else out.push(node);
  }
  return `/${out.join("/")}`;
}
