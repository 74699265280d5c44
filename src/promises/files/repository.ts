/**
 * The backup repository (`repository` of a files promise, else
 * `default_repository` of body agent control): a backup made while
 * copying or moving an obstruction aside is copied there, under its whole
 * path canonified, and the caller removes the original backup.
 */
import { constants, statSync } from "node:fs";
import { copyFileSync, mkdirSync, renameSync } from "../../system/safe-fs.js";
import { canonify } from "../../eval/class-expression.js";
import { defaultRepository } from "./agent-settings.js";
import { unlinkQuietly } from "../../system/atomic.js";
import { joinPath } from "./paths.js";
import { runState } from "./run-state.js";
import type { FileStep } from "./step.js";

/** The repository directory that applies, if any. */
export function repositoryFor(step: FileStep, own: string | undefined): string | undefined {
  return own ?? defaultRepository(step.env);
}

/**
 * Copies `file` into the repository; returns whether the caller should
 * delete `file` (it was archived, or archiving is moot).
 */
export function archiveToRepository(step: FileStep, file: string, repository: string | undefined): boolean {
  if (file === "" || repository === undefined) return false;
  const { archived } = runState(step.env);
  if (archived.has(file)) {
    step.env.log.info(
      `The file '${file}' has already been moved to the repository once. Multiple update will cause loss of backup.`,
    );
    return true;
  }
  archived.add(file);
  const destination = joinPath(repository, canonify(file));
  try {
    mkdirSync(repository, { recursive: true, mode: 0o700 });
    statSync(file);
  } catch {
    return true;
  }
  const temporary = `${destination}.cfnew`;
  try {
    unlinkQuietly(temporary);
    copyFileSync(file, temporary, constants.COPYFILE_EXCL);
    renameSync(temporary, destination);
  } catch {
    unlinkQuietly(temporary);
    step.env.log.info(`Failed to move '${file}' to repository location '${destination}'`);
    return false;
  }
  step.env.log.info(`Moved '${file}' to repository location '${destination}'`);
  return true;
}
