/**
 * Moving aside what stands where a link or a hard link is to be made
 * (`move_obstructions`), as cf-agent 3.21 does: a file or link is renamed
 * to `<name>.cfsaved` (with a time stamp when backups are time-stamped), a
 * directory to `<name>_<time>.cfsaved.dir`.
 */
import { lstatSync, statSync } from "node:fs";
import { renameSync } from "../../system/safe-fs.js";
import { unlinkQuietly } from "../../system/atomic.js";
import { archiveToRepository } from "./repository.js";
import { runStamp } from "./run-state.js";
import { errorText, type FileStep } from "./step.js";

export interface ObstructionOptions {
  readonly moveObstructions: boolean;
  /** copy_backup or edit_backup is `timestamp`. */
  readonly timestamped: boolean;
  readonly repository: string | undefined;
}

/** Returns whether `path` is free (nothing there, or it was moved aside). */
export function moveObstruction(step: FileStep, path: string, options: ObstructionOptions): boolean {
  let isDirectory: boolean;
  try {
    isDirectory = lstatSync(path).isDirectory();
  } catch {
    return true;
  }
  if (!options.moveObstructions) {
    step.failed(`Object '${path}' is obstructing promise`);
    return false;
  }
  return isDirectory ? moveDirectory(step, path) : moveFile(step, path, options);
}

function moveFile(step: FileStep, path: string, options: ObstructionOptions): boolean {
  if (!step.makingChanges(`move aside object '${path}' obstructing promise`)) return false;
  const saved = `${path}${options.timestamped ? runStamp(step.env) : ""}.cfsaved`;
  try {
    renameSync(path, saved);
  } catch (error) {
    step.failed(`Can't rename '${path}' to '${saved}'. (rename: ${errorText(error)})`);
    return false;
  }
  step.changed(`Moved obstructing object '${path}' to '${saved}'`);
  if (archiveToRepository(step, saved, options.repository)) {
    step.changed(`Archived '${saved}'`);
    unlinkQuietly(saved);
  }
  return true;
}

function moveDirectory(step: FileStep, path: string): boolean {
  if (!step.makingChanges(`move aside directory '${path}' obstructing`)) return false;
  const saved = `${path}${runStamp(step.env)}.cfsaved.dir`;
  try {
    statSync(saved);
    step.failed(`Couldn't move directory '${path}' aside, since '${saved}' exists already`);
    return false;
  } catch {
    // Free: go on.
  }
  try {
    renameSync(path, saved);
  } catch (error) {
    step.failed(`Can't rename '${path}' to '${saved}'. (rename: ${errorText(error)})`);
    return false;
  }
  step.changed(`Moved directory '${path}' to '${path}.cfsaved'`);
  return true;
}
