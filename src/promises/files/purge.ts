/**
 * `purge => "true"` of copy_from: after a recursive copy of a directory,
 * whatever the destination holds that the source does not is removed, as
 * cf-agent 3.21 does it (only with a depth_search, never `/`).
 */
import { lstatSync } from "node:fs";
import { removePath } from "../../providers/files/remove.js";
import { joinPath, readDirectory } from "./paths.js";
import { errorText, type FileStep } from "./step.js";

/**
 * Removes the entries of `dir` not named in `keep` (all of them when
 * `keep` is undefined).
 */
export function purgeLocalFiles(
  step: FileStep,
  keep: ReadonlySet<string> | undefined,
  dir: string,
  haveDepthSearch: boolean,
): void {
  if (dir.length < 2) {
    step.failed(`Purge of '${dir}' denied - too dangerous!`);
    return;
  }
  if (!haveDepthSearch) {
    step.kept(`No depth search when copying '${dir}' so purging does not apply`);
    return;
  }
  let names: string[];
  try {
    names = readDirectory(dir);
  } catch (error) {
    step.failed(`Can't chdir to local directory '${dir}'. (chdir: ${errorText(error)})`);
    return;
  }
  for (const name of names) {
    if (keep?.has(name)) continue;
    purgeOne(step, joinPath(dir, name));
  }
}

function purgeOne(step: FileStep, path: string): void {
  if (!step.makingChanges(`purge '${path}' from copy dest directory`)) return;
  let isDirectory: boolean;
  try {
    isDirectory = lstatSync(path).isDirectory();
  } catch (error) {
    step.interrupted(`Couldn't stat '${path}' while purging. (lstat: ${errorText(error)})`);
    return;
  }
  if (isDirectory) {
    purgeDirectory(step, path);
    return;
  }
  if (removePath(path, { missingOk: false }).status === "failed") {
    step.failed(`Couldn't delete '${path}' while purging`);
    return;
  }
  step.changed(`Purged '${path}' copy dest directory`);
}

function purgeDirectory(step: FileStep, path: string): void {
  let names: string[];
  try {
    names = readDirectory(path);
  } catch {
    step.failed(`Unable to purge directory tree '${path}'`);
    return;
  }
  for (const name of names) {
    if (removePath(joinPath(path, name), { recursive: true }).status === "failed") {
      step.failed(`Unable to purge directory tree '${path}'`);
      return;
    }
  }
  const removed = removePath(path);
  if (removed.status !== "changed") {
    if (removed.status === "failed") step.failed(`Unable to purge directory '${path}'`);
    return;
  }
  step.changed(`Purged directory '${path}' in copy dest directory`);
}
