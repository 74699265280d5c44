/**
 * Creating what a files promise names when it is missing (`create`,
 * `touch`, `content`): a directory when the promiser's last part is `.`,
 * otherwise an empty file, with any missing parent directories.
 */
import { closeSync, fchmodSync, lstatSync, mkdirSync, openSync, renameSync, rmSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { writeFileAtomically } from "./atomic.js";
import { formatMode, type ModeMasks } from "./modes.js";
import { errorText, type FileStep } from "./step.js";

/** A path's last part, as cf-agent reads it (`/a/b/.` gives `.`). */
export function lastNode(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** Whether the promiser names a directory to create (`/path/.`). */
export function namesDirectory(path: string): boolean {
  return lastNode(path) === ".";
}

/**
 * Creates `path` (a file of the promised mode, 0600 by default, or a
 * directory). A file gets `content` when given (written atomically), else
 * is empty. Returns whether it exists afterwards; false on failure (an
 * error is logged) or when only a warning was promised.
 */
export function createObject(
  step: FileStep,
  masks: ModeMasks | undefined,
  force: boolean,
  content?: string,
): boolean {
  const { path } = step;
  if (!isAbsolute(path)) {
    step.failed(`Cannot create a relative filename '${path}' - has no invariant meaning`);
    return false;
  }
  if (namesDirectory(path)) {
    if (!step.makingChanges(`create directory '${path}'`)) return false;
    const created = makeParentDirectory(step, force);
    if (created === undefined) return false;
    if (created) step.changed(`Created directory '${path}'`);
    return true;
  }
  return createFile(step, masks ? masks.plus & ~masks.minus : 0o600, force, content);
}

function createFile(step: FileStep, mode: number, force: boolean, content: string | undefined): boolean {
  const { path } = step;
  if (!step.makingChanges(`create file '${path}', mode '${formatMode(mode)}'`)) return false;
  const created = makeParentDirectory(step, force);
  if (created === undefined) return false;
  if (created) step.changed(`Created directory for '${path}'`);
  try {
    if (content !== undefined) writeFileAtomically(path, content, mode);
    else {
      // O_EXCL: never follow a dangling symlink someone left in the way.
      const fd = openSync(path, "wx", mode);
      fchmodSync(fd, mode);
      closeSync(fd);
    }
  } catch (error) {
    step.failed(`Error creating file '${path}', mode '${formatMode(mode)}'. (open: '${errorText(error)}')`);
    return false;
  }
  step.changed(`Created file '${path}', mode ${formatMode(mode)}`);
  return true;
}

/**
 * Makes the directories above the promiser's last part (mode 0700, as
 * cf-agent's umask gives). Returns whether any was created, or undefined
 * after a failure. With `force` (move_obstructions), a file in the place
 * of the innermost directory is moved aside to `<name>.cf-moved`.
 */
export function makeParentDirectory(step: FileStep, force: boolean): boolean | undefined {
  const parent = step.path.slice(0, step.path.lastIndexOf("/")).replace(/\/+$/, "") || "/";
  const kind = kindOf(parent);
  if (kind === "other" && !(force && moveObstruction(step, parent))) {
    if (!force) {
      step.failed(
        `The object '${parent}' is not a directory. Cannot make a new directory without deleting it.`,
      );
    }
    return undefined;
  }
  if (kind === "directory") return false;
  return makeDirectories(step, parent);
}

function makeDirectories(step: FileStep, dir: string): boolean | undefined {
  let created = false;
  let current = "";
  for (const part of dir.split("/").filter((p) => p !== "")) {
    current = `${current}/${part}`;
    const kind = kindOf(current);
    if (kind === "directory") continue;
    if (kind === "other") {
      step.failed(
        `The object '${current}' is not a directory. Cannot make a new directory without deleting it.`,
      );
      return undefined;
    }
    try {
      mkdirSync(current, 0o700);
      created = true;
    } catch (error) {
      step.failed(`Failed to make directory '${current}'. (mkdir: ${errorText(error)})`);
      return undefined;
    }
  }
  return created;
}

function moveObstruction(step: FileStep, path: string): boolean {
  const saved = `${path}.cf-moved`;
  const what = `move obstructing file/link '${path}' to '${saved}' to make directories for '${step.path}'`;
  if (!step.makingChanges(what)) return false;
  try {
    rmSync(saved, { recursive: true, force: true });
    renameSync(path, saved);
  } catch (error) {
    step.failed(`Couldn't rename '${path}' to .cf-moved (rename: ${errorText(error)})`);
    return false;
  }
  step.changed(`Moved obstructing file/link '${path}' to '${saved}' to make directories for '${step.path}'`);
  return true;
}

/** What is at a path, following symlinks: nothing, a directory or something else. */
export function kindOf(path: string): "missing" | "directory" | "other" {
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
