/**
 * A requested path made safe to check, as cf-serverd 3.21's
 * `PreprocessRequestPath` does and a little stricter: it must be absolute;
 * `.`, `..`, repeated slashes and every symbolic link are resolved
 * (realpath), so that the path ACL judges the file that would be served,
 * never a name leading out of an admitted directory. A missing file is
 * refused, as in 3.21. A dead symbolic link is kept as a link (3.21 keeps
 * the whole request unresolved there; tend still resolves its directory).
 */
import { lstatSync, realpathSync, type Stats } from "node:fs";
import { basename, dirname } from "node:path";
import type { Logger } from "../../system/logger.js";

/** The resolved path (a trailing slash kept when the request had one), or undefined when refused. */
export function resolveRequestPath(requested: string, log: Logger): string | undefined {
  if (!requested.startsWith("/")) {
    log.info(`Relative paths are not allowed: ${requested}`);
    return undefined;
  }
  if (requested.includes("\0")) return undefined;
  let resolved: string;
  try {
    resolved = realpathSync.native(requested);
  } catch (error) {
    const dead = deadLink(requested);
    if (dead === undefined) {
      log.info(`Failed to canonicalise filename '${requested}' (realpath: ${errnoText(error)})`);
      return undefined;
    }
    log.verbose(`Requested file is a dead symbolic link (filename: ${requested})`);
    resolved = dead;
  }
  return requested.endsWith("/") && !resolved.endsWith("/") ? `${resolved}/` : resolved;
}

/** A dead link's path with its directory resolved, or undefined when the request is no link. */
function deadLink(requested: string): string | undefined {
  try {
    const stats = lstatSync(requested);
    if (!stats.isSymbolicLink()) return undefined;
    const dir = realpathSync.native(dirname(requested));
    return dir === "/" ? `/${basename(requested)}` : `${dir}/${basename(requested)}`;
  } catch {
    return undefined;
  }
}

/** Without a trailing slash, unless it is the root (PathRemoveTrailingSlash). */
export function withoutTrailingSlash(path: string): string {
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}

/** With a trailing slash (PathAppendTrailingSlash). */
export function withTrailingSlash(path: string): string {
  return path.endsWith("/") ? path : `${path}/`;
}

const ERRNO_TEXT: Readonly<Record<string, string>> = {
  ENOENT: "No such file or directory",
  ENOTDIR: "Not a directory",
  EACCES: "Permission denied",
  ELOOP: "Too many levels of symbolic links",
  ENAMETOOLONG: "File name too long",
};

/** strerror's text for a Node error, as cf-serverd prints it. */
export function errnoText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code && ERRNO_TEXT[code]) return ERRNO_TEXT[code];
  return error instanceof Error ? error.message : String(error);
}

/** A directory that is not a link to one (IsDirReal). */
export function isDirectory(path: string): boolean {
  return lstatOrNothing(path)?.isDirectory() === true;
}

/** The path's own lstat, or undefined when it cannot be had. */
export function lstatOrNothing(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
