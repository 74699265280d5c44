/**
 * Whether a file may be run as a command, and where a bare command name is
 * found along a search path. CFEngine refuses world-writable programs
 * (3.21's IsExecutable); Puppet looks a bare name up along `path` (its
 * `which`). Both read the file system only.
 */
import { accessSync, constants, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";

/** Why a file may not be run: it does not exist, anyone may write it, or we may not execute it. */
export type ExecutableProblem = "missing" | "world-writable" | "not-executable";

/** The problem with running `file`, undefined when it may run. */
export function executableProblem(file: string): ExecutableProblem | undefined {
  let mode: number;
  try {
    mode = statSync(file).mode;
  } catch {
    return "missing";
  }
  if (mode & 0o002) return "world-writable";
  try {
    accessSync(file, constants.X_OK);
    return undefined;
  } catch {
    return "not-executable";
  }
}

/** A regular file we may execute. */
function isRunnable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The file a command name runs: itself when it holds a slash (relative to
 * `cwd` when not absolute), else the first executable regular file of that
 * name in `searchPath`'s directories; undefined when there is none.
 */
export function findExecutable(
  name: string,
  searchPath: readonly string[],
  cwd?: string,
): string | undefined {
  if (name === "") return undefined;
  if (name.includes("/")) {
    const file = isAbsolute(name) || cwd === undefined ? name : join(cwd, name);
    return isRunnable(file) ? file : undefined;
  }
  for (const dir of searchPath) {
    if (dir === "") continue;
    const file = join(dir, name);
    if (isRunnable(file)) return file;
  }
  return undefined;
}
