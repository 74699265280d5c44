/**
 * Directories: making one (and, when asked, those above it), each
 * component through a checked directory (system/safe-fs.ts), created once
 * from the top; and making a path a directory (`ensureDirectory`).
 */
import { lstatSync, statSync } from "node:fs";
import { chmodSync, lchownSync, mkdirSync } from "../../system/safe-fs.js";
import type { BackupHook } from "./content.js";
import { inspectPath } from "./inspect.js";
import type { Ownership } from "./owner.js";
import { removePath } from "./remove.js";
import { type ActOptions, change, changedWith, type FileResult, failedWith, UNCHANGED } from "./result.js";

/** What is at a path, following links: nothing, a directory or something else. */
export function followedKind(path: string): "missing" | "directory" | "other" {
  try {
    return statSync(path).isDirectory() ? "directory" : "other";
  } catch {
    try {
      lstatSync(path);
      return "other";
    } catch {
      return "missing";
    }
  }
}

/** Directories made, and where making them stopped. */
export interface DirectoriesMade {
  readonly created: readonly string[];
  readonly failure?: {
    /** The component that could not be made. */
    readonly path: string;
    /** Something that is no directory is in its place. */
    readonly notDirectory: boolean;
    /** The mkdir error, when there was one. */
    readonly cause?: NodeJS.ErrnoException;
  };
}

/**
 * Makes the absolute directory `dir` and each missing one above it, with
 * `mode` (the umask applies, as to mkdir(2)). A component that is a link
 * to a directory is gone through; one that is not a directory stops it.
 */
export function createDirectories(dir: string, mode = 0o700): DirectoriesMade {
  const created: string[] = [];
  let current = "";
  for (const part of dir.split("/").filter((p) => p !== "")) {
    current = `${current}/${part}`;
    const kind = followedKind(current);
    if (kind === "directory") continue;
    if (kind === "other") return { created, failure: { path: current, notDirectory: true } };
    try {
      mkdirSync(current, mode);
      created.push(current);
    } catch (error) {
      return {
        created,
        failure: { path: current, notDirectory: false, cause: error as NodeJS.ErrnoException },
      };
    }
  }
  return { created };
}

/** Makes the directory `path` with exactly `mode` (whatever the umask). Throws the system error. */
export function makeDirectory(path: string, mode: number): void {
  mkdirSync(path, mode);
  chmodSync(path, mode);
}

export interface DirectoryOptions extends ActOptions {
  /** Mode of a directory made here (exactly, whatever the umask); default 0755. Not checked on an existing one. */
  readonly mode?: number;
  /** Owner of a directory made here. */
  readonly owner?: Ownership;
  /** Make missing directories above it (0755); without it a missing parent fails with ENOENT. */
  readonly parents?: boolean;
  /** Called before a file, link or other object in the way is removed. */
  readonly backup?: BackupHook;
}

/**
 * Makes `path` a directory: created when absent; a file, link or other
 * object in its place is removed first (after `backup`). An existing
 * directory is left as it is (its mode and owner are setMode's and
 * setOwner's). Change: `ensure` to `directory`.
 */
export function ensureDirectory(path: string, options: DirectoryOptions = {}): FileResult {
  const found = inspectPath(path);
  if (found.kind === "directory") return UNCHANGED;
  const message = found.kind === "absent" ? "created" : `replaced ${found.kind} with a directory`;
  const made = [change("ensure", found.kind, "directory", message, options.noop)];
  if (options.noop) return changedWith(made);
  if (found.kind !== "absent") {
    const removed = removePath(path, { backup: options.backup });
    if (removed.status === "failed") return removed;
  }
  if (options.parents) {
    const above = createDirectories(path.slice(0, path.lastIndexOf("/")), 0o755);
    if (above.failure) return failedWith(above.failure.cause ?? notDirectory(above.failure.path), "mkdir");
  }
  try {
    const mode = options.mode ?? 0o755;
    makeDirectory(path, mode);
    const owner = options.owner;
    if (owner && (owner.uid !== undefined || owner.gid !== undefined))
      lchownSync(path, owner.uid ?? -1, owner.gid ?? -1);
  } catch (error) {
    return failedWith(error, "mkdir");
  }
  return changedWith(made);
}

function notDirectory(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${path}'`), {
    code: "ENOTDIR",
    syscall: "mkdir",
    path,
  });
}
