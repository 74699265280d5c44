/**
 * Removing what is at a path: a file, link or other object is unlinked
 * (a link is never followed), a directory removed when empty or, with
 * `recursive`, with everything in it (no link inside followed). Each
 * level goes through a checked directory (system/safe-fs.ts).
 */
import { rmdirSync, rmSync, unlinkSync } from "../../system/safe-fs.js";
import type { BackupHook } from "./content.js";
import { inspectPath } from "./inspect.js";
import { missing } from "./mode.js";
import { type ActOptions, change, changedWith, type FileResult, failedWith, UNCHANGED } from "./result.js";

export interface RemoveOptions extends ActOptions {
  /** Remove a directory with what it holds; without it, only an empty one (else ENOTEMPTY). */
  readonly recursive?: boolean;
  /** Called before anything is removed. */
  readonly backup?: BackupHook;
  /** False: an absent path fails with ENOENT, as unlink(2) does (default: nothing to do). */
  readonly missingOk?: boolean;
}

/** Removes what is at `path`. Change: `ensure` from the kind found to `absent`. */
export function removePath(path: string, options: RemoveOptions = {}): FileResult {
  const found = inspectPath(path);
  if (found.kind === "absent")
    return options.missingOk === false ? failedWith(missing(path, "unlink"), "unlink") : UNCHANGED;
  const made = [change("ensure", found.kind, "absent", `removed ${found.kind}`, options.noop)];
  if (options.noop) return changedWith(made);
  let syscall = "unlink";
  try {
    options.backup?.(found);
    if (found.kind !== "directory") unlinkSync(path);
    else if (options.recursive) {
      syscall = "rm";
      rmSync(path, { recursive: true });
    } else {
      syscall = "rmdir";
      rmdirSync(path);
    }
  } catch (error) {
    return failedWith(error, syscall);
  }
  return changedWith(made);
}
