/**
 * Moving a file aside or emptying it: renaming a path, truncating a file
 * in place, and rotating numbered copies of a log (`path.1` the newest),
 * each through checked directories (system/safe-fs.ts).
 */
import { closeSync, type Stats, statSync } from "node:fs";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  openSync,
  renameSync,
  truncateSync,
  utimesSync,
} from "../../system/safe-fs.js";
import { lstatOrUndefined } from "./inspect.js";
import { missing } from "./mode.js";
import { type ActOptions, change, changedWith, type FileResult, failedWith } from "./result.js";

/**
 * Renames `from` to `to` (replacing what `to` is, as rename(2) does).
 * Change: `path` from the old name to the new. Fails with the rename error.
 */
export function renamePath(from: string, to: string, options: ActOptions = {}): FileResult {
  if (!lstatOrUndefined(from)) return failedWith(missing(from, "rename"), "rename");
  const made = [change("path", from, to, `renamed '${from}' to '${to}'`, options.noop)];
  if (options.noop) return changedWith(made);
  try {
    renameSync(from, to);
  } catch (error) {
    return failedWith(error, "rename");
  }
  return changedWith(made);
}

/** Empties the file at `path` (creating it when absent, mode 0666 less the umask). Throws the system error. */
export function truncateFile(path: string): void {
  closeSync(openSync(path, "w"));
}

/** Extensions of compressed copies that move along with a rotation. */
const COMPRESSED = ["", ".gz", ".Z", ".bz", ".bz2"];

/**
 * Rotates the file at `path` keeping `count` copies: `path.N` (and its
 * compressed forms) become `path.N+1`, the file is copied to `path.1`
 * with its mode and owner, then emptied in place (keeping its mode). A
 * step that fails is passed over, as cf-agent does; returns false when
 * there was no file to rotate.
 */
export function rotateFile(path: string, count: number): boolean {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch {
    return false;
  }
  for (let i = count - 1; i > 0; i--) {
    for (const ext of COMPRESSED) {
      try {
        renameSync(`${path}.${i}${ext}`, `${path}.${i + 1}${ext}`);
      } catch {
        // Not every generation exists.
      }
    }
  }
  try {
    copyFileSync(path, `${path}.1`);
    chmodSync(`${path}.1`, stats.mode & 0o7777);
    chownSync(`${path}.1`, stats.uid, stats.gid);
    truncateSync(path, 0);
  } catch {
    // A rotation half done still leaves the file usable.
  }
  return true;
}

/**
 * Sets the access and modification times of `path` to `when` (now, by
 * default), following a trusted link. Change: `mtime`. Fails with the
 * utime error.
 */
export function touchPath(path: string, options: ActOptions & { readonly when?: Date } = {}): FileResult {
  const when = options.when ?? new Date();
  const before = lstatOrUndefined(path);
  const made = [change("mtime", before?.mtime.toISOString(), when.toISOString(), "touched", options.noop)];
  if (options.noop) return changedWith(made);
  try {
    utimesSync(path, when, when);
  } catch (error) {
    return failedWith(error, "utime");
  }
  return changedWith(made);
}
