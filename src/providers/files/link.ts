/**
 * Links: making a symbolic or hard link (through a checked directory, see
 * system/safe-fs.ts), and making a path a symbolic link with a given
 * target (`ensureSymlink`).
 */
import { linkSync, symlinkSync } from "../../system/safe-fs.js";
import type { BackupHook } from "./content.js";
import { inspectPath } from "./inspect.js";
import { removePath } from "./remove.js";
import { type ActOptions, change, changedWith, type FileResult, failedWith, UNCHANGED } from "./result.js";

/** Makes the symbolic link `path` with the text `target`. Throws the symlink error (EEXIST...). */
export function createSymlink(path: string, target: string): void {
  symlinkSync(target, path);
}

/** Makes `path` a hard link to the file `existing`. Throws the link error. */
export function createHardLink(path: string, existing: string): void {
  linkSync(existing, path);
}

export interface SymlinkOptions extends ActOptions {
  /** Replace a directory in the way (removed recursively); without it that fails with EISDIR. */
  readonly force?: boolean;
  /** Called before an object in the way (a file, a link elsewhere, a directory) is removed. */
  readonly backup?: BackupHook;
}

/**
 * Makes `path` a symbolic link whose text is `target`: created when
 * absent; a link to elsewhere, a file or another object in the way is
 * replaced (after `backup`), a directory only with `force`. Changes:
 * `ensure` (absent or another kind to `link`) or `target`.
 */
export function ensureSymlink(path: string, target: string, options: SymlinkOptions = {}): FileResult {
  const found = inspectPath(path);
  if (found.kind === "link" && found.target === target) return UNCHANGED;
  if (found.kind === "directory" && !options.force) {
    return failedWith(
      Object.assign(new Error(`EISDIR: is a directory, symlink '${path}'`), { code: "EISDIR", path }),
      "symlink",
    );
  }
  const made =
    found.kind === "link"
      ? change(
          "target",
          found.target,
          target,
          `target changed '${found.target}' to '${target}'`,
          options.noop,
        )
      : found.kind === "absent"
        ? change("ensure", "absent", "link", "created", options.noop)
        : change("ensure", found.kind, "link", `replaced ${found.kind} with a link`, options.noop);
  if (options.noop) return changedWith([made]);
  if (found.kind !== "absent") {
    const removed = removePath(path, { recursive: true, backup: options.backup });
    if (removed.status === "failed") return removed;
  }
  try {
    createSymlink(path, target);
  } catch (error) {
    return failedWith(error, "symlink");
  }
  return changedWith([made]);
}
