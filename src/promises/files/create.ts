/**
 * Creating what a files promise names when it is missing (`create`,
 * `touch`, `content`): a directory when the promiser's last part is `.`,
 * otherwise an empty file, with any missing parent directories.
 */
import { renameSync, rmSync } from "../../system/safe-fs.js";
import { isAbsolute } from "node:path";
import { replaceContent } from "../../providers/files/content.js";
import { createEmptyFile, createFifo } from "../../providers/files/special.js";
import { createDirectories, followedKind } from "../../providers/files/directory.js";
import { formatMode, type ModeMasks } from "../../providers/files/mode.js";
import { mayOpen, SEVERED } from "./safe-path.js";
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
  kind: "auto" | "directory" | "fifo" = "auto",
  content?: string,
): boolean {
  const { path } = step;
  if (!isAbsolute(path)) {
    step.failed(`Cannot create a relative filename '${path}' - has no invariant meaning`);
    return false;
  }
  if (kind === "directory" || namesDirectory(path)) {
    if (!step.makingChanges(`create directory '${path}'`)) return false;
    const created = makeParentDirectory(step, force);
    if (created === undefined) return false;
    if (created) step.changed(`Created directory '${path}'`);
    return true;
  }
  const mode = masks ? masks.plus & ~masks.minus : 0o600;
  if (kind === "fifo") return makeFifo(step, mode, force);
  return createFile(step, mode, force, content);
}

/** `file_type => "fifo"`: a named pipe (made with mkfifo(1): Node has no mkfifo). */
function makeFifo(step: FileStep, mode: number, force: boolean): boolean {
  const { path } = step;
  const created = makeParentDirectory(step, force);
  if (created === undefined) return false;
  if (created) step.changed(`Created directory for '${path}'`);
  if (!step.makingChanges(`create named pipe '${path}', mode ${formatMode(mode)}`)) return false;
  const reason = createFifo(path, mode);
  if (reason !== undefined) {
    step.failed(`Error creating file '${path}', mode '${formatMode(mode)}'. (mkfifo: ${reason})`);
    return false;
  }
  step.changed(`Created named pipe '${path}', mode ${formatMode(mode)}`);
  return true;
}

function createFile(step: FileStep, mode: number, force: boolean, content: string | undefined): boolean {
  const { path } = step;
  if (!step.makingChanges(`create file '${path}', mode '${formatMode(mode)}'`)) return false;
  const created = makeParentDirectory(step, force);
  if (created === undefined) return false;
  if (created) step.changed(`Created directory for '${path}'`);
  if (!mayOpen(step.env, path)) {
    step.failed(`Error creating file '${path}', mode '${formatMode(mode)}'. (open: ${SEVERED})`);
    return false;
  }
  try {
    if (content !== undefined) replaceContent(path, content, { mode }, null);
    else {
      // O_EXCL: never follow a dangling symlink someone left in the way.
      createEmptyFile(path, mode);
    }
  } catch (error) {
    const detail =
      (error as NodeJS.ErrnoException).code === "EEXIST"
        ? `(open: '${errorText(error)}'). Most likely a dangling symlink is in the way. Refusing to create the target file of dangling symlink (security risk).`
        : `(open: ${errorText(error)})`;
    step.failed(`Error creating file '${path}', mode '${formatMode(mode)}'. ${detail}`);
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
export function makeParentDirectory(step: FileStep, force: boolean, target = step.path): boolean | undefined {
  const parent = target.slice(0, target.lastIndexOf("/")).replace(/\/+$/, "") || "/";
  const kind = followedKind(parent);
  if (kind === "other" && !(force && moveObstruction(step, parent, target))) {
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
  const { created, failure } = createDirectories(dir, 0o700);
  if (!failure) return created.length > 0;
  if (failure.notDirectory) {
    step.failed(
      `The object '${failure.path}' is not a directory. Cannot make a new directory without deleting it.`,
    );
  } else step.failed(`Failed to make directory '${failure.path}'. (mkdir: ${errorText(failure.cause)})`);
  return undefined;
}

function moveObstruction(step: FileStep, path: string, target: string): boolean {
  const saved = `${path}.cf-moved`;
  const what = `move obstructing file/link '${path}' to '${saved}' to make directories for '${target}'`;
  if (!step.makingChanges(what)) return false;
  try {
    rmSync(saved, { recursive: true, force: true });
    renameSync(path, saved);
  } catch (error) {
    step.failed(`Couldn't rename '${path}' to .cf-moved (rename: ${errorText(error)})`);
    return false;
  }
  step.changed(`Moved obstructing file/link '${path}' to '${saved}' to make directories for '${target}'`);
  return true;
}
