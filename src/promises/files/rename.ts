/**
 * `rename` bodies, as cf-agent 3.21 keeps them: `newname` moves the object
 * (a relative name stays in its directory); `disable` renames it with
 * `disable_suffix` (default `.cfdisabled`) and `disable_mode` (default:
 * its mode), deleting a symbolic link instead; `rotate => n` keeps n numbered
 * copies and empties the file; `rotate => 0` only empties it.
 */
import { type Stats, lstatSync } from "node:fs";
import { removePath } from "../../providers/files/remove.js";
import { renamePath, rotateFile, truncateFile } from "../../providers/files/rename.js";
import type { RenameAttributes } from "./attributes.js";
import { formatMode, setMode } from "../../providers/files/mode.js";
import { chopLastNode, joinPath } from "./paths.js";
import { runState } from "./run-state.js";
import { errorText, type FileStep } from "./step.js";

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function resolveName(path: string, name: string): string {
  return name.startsWith("/") ? name : joinPath(chopLastNode(path), name);
}

/** Verifies the object at `step.path` (lstat `stats`) against the rename body. */
export function verifyRename(step: FileStep, stats: Stats, rename: RenameAttributes): void {
  const { path } = step;
  if (!exists(path)) {
    step.kept(`File object named '${path}' is not there (promise kept)`);
    return;
  }
  if (rename.disable) step.env.log.warning(`File object '${path}' exists, contrary to promise`);
  if (rename.newname !== undefined) {
    moveTo(step, resolveName(path, rename.newname));
    return;
  }
  if (stats.isSymbolicLink() && rename.disable) {
    disableLink(step);
    return;
  }
  if (rename.disable) {
    disable(step, stats, rename);
    return;
  }
  if (rename.rotate === 0) truncate(step);
  else if (rename.rotate !== undefined && rename.rotate > 0) rotate(step, rename.rotate);
}

function moveTo(step: FileStep, target: string): void {
  const { path } = step;
  if (!step.makingChanges(`rename file '${path}' to '${target}'`)) return;
  if (runState(step.env).archived.has(target)) {
    step.warned(`Renaming '${path}' to same destination twice would overwrite saved copy - aborting`);
    return;
  }
  const moved = renamePath(path, target);
  if (moved.status === "failed") {
    step.failed(`Error occurred while renaming '${path}'. (rename: ${errorText(moved.cause)})`);
    return;
  }
  step.env.changesChroot?.recordRename(path, target);
  step.changed(`Renamed file '${path}' to '${target}'`);
}

function disableLink(step: FileStep): void {
  const { path } = step;
  if (!step.makingChanges(`disable link '${path}'`)) return;
  const removed = removePath(path, { missingOk: false });
  if (removed.status === "failed") {
    step.failed(`Unable to unlink '${path}'. (unlink: ${errorText(removed.cause)})`);
    return;
  }
  step.changed(`Disabled symbolic link '${path}' by deleting it`);
}

function disable(step: FileStep, stats: Stats, rename: RenameAttributes): void {
  const { path } = step;
  if (!step.makingChanges(`rename '${stats.isDirectory() ? "directory" : "file"}' '${path}'`)) return;
  const target =
    rename.newname !== undefined && rename.newname !== ""
      ? resolveName(path, rename.newname)
      : `${path}${rename.disableSuffix ?? ".cfdisabled"}`;
  const masks = rename.disableMode;
  // Without disable_mode the masks are empty: the file keeps its mode.
  const mode = masks ? ((stats.mode & 0o7777) | masks.plus) & ~masks.minus : stats.mode & 0o7777;
  if (!step.makingChanges(`rename file '${path}' to '${target}'`)) return;
  const chmodded = setMode(path, mode, { current: stats.mode & 0o7777 });
  if (chmodded.status === "failed") {
    step.failed(
      `Failed to change permissions of '${path}' to 'mode ${formatMode(mode)}' (${errorText(chmodded.cause)})`,
    );
  } else step.changed(`Changed permissions of '${path}' to 'mode ${formatMode(mode)}'`);
  if (runState(step.env).archived.has(target)) {
    step.warned("Disable required twice? Would overwrite saved copy - changing permissions only");
    return;
  }
  const moved = renamePath(path, target);
  if (moved.status === "failed") {
    step.failed(`Error occurred while renaming '${path}'. (rename: ${errorText(moved.cause)})`);
    return;
  }
  step.env.changesChroot?.recordRename(path, target);
  step.changed(`Disabled file '${path}' by renaming to '${target}' with mode ${formatMode(mode)}`);
}

function truncate(step: FileStep): void {
  const { path } = step;
  if (!step.makingChanges(`truncate '${path}'`)) return;
  try {
    truncateFile(path);
  } catch (error) {
    step.env.log.error(`Failed to create or truncate file '${path}'. (create: ${errorText(error)})`);
  }
  step.changed(`Truncated '${path}'`);
}

/**
 * `path.1` is the newest copy (with its mode and owner); the file itself is
 * emptied in place, keeping its mode. Compressed copies (`.gz`, `.Z`,
 * `.bz`, `.bz2`) move along. A file is rotated at most once per run.
 */
function rotate(step: FileStep, count: number): void {
  const { path } = step;
  if (!step.makingChanges(`rotate file '${path}' in ${count} fifo`)) return;
  const { rotated } = runState(step.env);
  if (!rotated.has(path)) {
    rotated.add(path);
    rotateFile(path, count);
  }
  step.changed(`Rotated file '${path}' in ${count} fifo`);
}
