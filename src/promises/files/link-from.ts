/**
 * `link_from`: the promiser is a link to the source (symbolic, relative,
 * absolute or hard, per `link_type`), or is copied from it when its name
 * matches `copy_patterns`; with `link_children`, the promiser is a
 * directory whose entries link to the source directory's entries
 * (leaving existing files alone unless `when_linking_children =>
 * "override_file"`), recursing as deep as the depth_search allows.
 */
import { lstatSync } from "node:fs";
import { removePath } from "../../providers/files/remove.js";
import { newCopyContext } from "./copy-context.js";
import { verifyCopy } from "./copy-from.js";
import { createObject } from "./create.js";
import type { FilesJob } from "./job.js";
import { type LinkOptions, verifyLinkOfType } from "./links.js";
import { joinPath, lastNode, readDirectory } from "./paths.js";
import { matchesAny } from "./patterns.js";
import { repositoryFor } from "./repository.js";
import { errorText, type FileStep } from "./step.js";

function linkOptions(job: FilesJob, step: FileStep, moveObstructions: boolean): LinkOptions {
  return {
    whenNoSource: job.attrs.link.whenNoSource,
    rmdeadlinks: job.attrs.recursion.rmdeadlinks,
    moveObstructions,
    timestamped: job.attrs.copy.backup === "timestamp",
    repository: repositoryFor(step, job.repository),
  };
}

/** The link at `destination` to `source` (or a copy, for names in `copy_patterns`). */
export function scheduleLink(
  job: FilesJob,
  step: FileStep,
  destination: string,
  source: string,
  moveObstructions = job.attrs.moveObstructions,
): void {
  if (matchesAny(job.attrs.link.copyPatterns, lastNode(destination))) {
    step.unchanged(`Link '${destination}' matches copy_patterns`);
    verifyCopy(
      job,
      newCopyContext(step, job.attrs, job.repository),
      job.attrs.link.source ?? source,
      destination,
    );
    return;
  }
  verifyLinkOfType(
    step,
    job.attrs.link.linkType,
    destination,
    source,
    linkOptions(job, step, moveObstructions),
  );
}

/** Links the entries of directory `source` into directory `destination`. */
export function scheduleLinkChildren(
  job: FilesJob,
  step: FileStep,
  destination: string,
  source: string,
  level: number,
  moveObstructions = job.attrs.moveObstructions,
): void {
  let existing: ReturnType<typeof lstatSync> | undefined;
  try {
    existing = lstatSync(destination);
  } catch {
    existing = undefined;
  }
  if (existing && moveObstructions && existing.isSymbolicLink()) {
    if (removePath(destination, { missingOk: false }).status === "failed")
      step.failed(`Failed to remove obstructing link '${destination}'`);
    else step.changed(`Removed obstructing link '${destination}'`);
  } else if (existing && !existing.isDirectory()) {
    step.failed(`Cannot promise to link files to children of '${destination}' as it is not a directory`);
    return;
  }
  if (!existing) {
    const dir = step.at(`${destination}/.`);
    const made = createObject(dir, undefined, moveObstructions);
    step.update(dir.outcome);
    if (!made) {
      step.failed(`Failed to create directory '${destination}' for linking files as its children`);
      return;
    }
  }
  let names: string[];
  try {
    names = readDirectory(source);
  } catch (error) {
    step.failed(
      `Can't open source of children to link '${job.attrs.link.source}'. (opendir: ${errorText(error)})`,
    );
    return;
  }
  // As in cf-agent, once a file was overridden, later entries move obstructions too.
  let move = moveObstructions;
  for (const name of names)
    move = linkChild(job, step, joinPath(destination, name), joinPath(source, name), level, move);
}

function linkChild(
  job: FilesJob,
  step: FileStep,
  destination: string,
  source: string,
  level: number,
  moveObstructions: boolean,
): boolean {
  let move = moveObstructions;
  try {
    const here = lstatSync(destination);
    if (!here.isSymbolicLink() && !here.isDirectory()) {
      if (!job.attrs.link.overrideFiles) {
        step.unchanged(`Have promised not to disturb existing content belonging to '${destination}'`);
        return move;
      }
      move = true;
    }
  } catch {
    // Nothing there yet.
  }
  let sourceIsDir = false;
  try {
    sourceIsDir = lstatSync(source).isDirectory();
  } catch {
    sourceIsDir = false;
  }
  if (job.attrs.recursion.depth > level && sourceIsDir) {
    scheduleLinkChildren(job, step, destination, source, level + 1, move);
  } else {
    scheduleLink(job, step, destination, source, move);
  }
  return move;
}
