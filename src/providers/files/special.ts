/**
 * Creating a new, empty object at a path: an empty regular file (never
 * through a dangling link someone left there: O_EXCL) or a named pipe;
 * and finding the file a chain of links leads to, through trusted links
 * only.
 */
import { spawnSync } from "node:child_process";
import { closeSync, fchmodSync, lstatSync, readlinkSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { mayFollowLinkAt, openSync, severedLinkError } from "../../system/safe-fs.js";

/**
 * Creates the empty file `path` with exactly `mode` (O_EXCL: an object
 * already there, a dangling link included, fails with EEXIST). Throws the
 * system error.
 */
export function createEmptyFile(path: string, mode: number): void {
  const fd = openSync(path, "wx", mode);
  try {
    fchmodSync(fd, mode);
  } finally {
    closeSync(fd);
  }
}

/**
 * Creates the named pipe `path` with `mode` (with mkfifo(1): Node has no
 * mkfifo). Returns undefined, or mkfifo's complaint when it failed.
 */
export function createFifo(path: string, mode: number): string | undefined {
  const run = spawnSync("mkfifo", ["-m", mode.toString(8), "--", path], { encoding: "utf8" });
  if (run.status === 0) return undefined;
  return (run.stderr ?? "").trim().replace(/^mkfifo: /, "") || "failed";
}

/**
 * The path at the end of the chain of links starting at `path` (`path`
 * itself when it is no link), up to 40 links. Throws ENOLINK for a link
 * that may not be followed (another user's, leading to a file of another
 * owner: see system/safe-fs.ts) and the lstat error of a missing part.
 */
export function resolveLinkChain(path: string): string {
  let current = path;
  for (let hops = 0; hops < 40; hops++) {
    const link = lstatSync(current);
    if (!link.isSymbolicLink()) return current;
    if (!mayFollowLinkAt(current, link)) throw severedLinkError("lstat", current);
    const target = readlinkSync(current);
    current = isAbsolute(target) ? target : join(dirname(current), target);
  }
  return current;
}
