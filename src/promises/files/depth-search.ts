/**
 * `depth_search`: a files promise on a directory acts on what is inside
 * it, down to `depth` levels, as cf-agent 3.21's DepthSearch does: dead
 * links may be removed on the way (`rmdeadlinks`), links to directories
 * are followed only with `traverse_links` (and never when owned by
 * another user), other devices are skipped with `xdev`, directories are
 * entered per `include_dirs`/`exclude_dirs`, and each entry `file_select`
 * selects is verified as a leaf. With `changes`, new and removed files
 * are reported per directory.
 */
import { type Stats, lstatSync, statSync } from "node:fs";
import type { FilesAttributes } from "./attributes.js";
import { changesDatabase } from "./changes-db.js";
import { checkDirectoryChanges, logNewFile } from "./changes.js";
import { selectLeaf } from "./file-select.js";
import { recordLeafInChroot } from "./simulate.js";
import type { FilesJob } from "./job.js";
import { verifyFileLeaf } from "./leaf.js";
import { killGhostLink } from "./links.js";
import { joinPath, readDirectory } from "./paths.js";
import { matchesAny } from "./patterns.js";
import { errorText, type FileStep } from "./step.js";
import { mayEnter } from "./safe-path.js";
import { severedLinkError } from "../../system/safe-fs.js";

const RECURSION_LIMIT = 100;

/**
 * Verifies `path` (lstat `stats`): the object itself without a depth
 * search (`attrs.haveDepthSearch` false), else what is inside it.
 */
export function depthSearch(
  job: FilesJob,
  step: FileStep,
  stats: Stats,
  level: number,
  rootDevice: number,
  attrs: FilesAttributes,
  promiser: string,
): void {
  if (!attrs.haveDepthSearch) {
    if (!job.select || selectLeaf(job.env, job.select, step.path, stats)) {
      verifyFileLeaf(job, step, stats, promiser);
    }
    return;
  }
  if (level > RECURSION_LIMIT) {
    step.warned(`Very deep nesting of directories (>${level} deep) for '${step.path}' (Aborting files)`);
    step.update("failed");
    return;
  }
  let names: string[];
  try {
    // Entered only through links that may be followed (safe-fs.ts), as cf-agent's chdir.
    if (!mayEnter(job.env, step.path)) throw severedLinkError("chdir", step.path);
    names = readDirectory(step.path);
  } catch (error) {
    const mode = (stats.mode & 0o7777).toString(8).padStart(4, "0");
    step.failed(`Could not change to directory '${step.path}' (mode '${mode}', chdir: ${errorText(error)})`);
    return;
  }
  const watch = attrs.haveChange;
  const recorded = watch ? changesDatabase(job.env).directory(step.path) : [];
  const known = new Set(recorded);
  const selected: string[] = [];
  for (const name of names) {
    const path = joinPath(step.path, name);
    const stats = visitEntry(job, step, path, name, level, rootDevice, attrs, promiser);
    if (!stats) continue;
    if (watch) {
      if (!known.has(name)) logNewFile(step, path);
      selected.push(name);
    }
    const leaf = step.forPath(path);
    verifyFileLeaf(job, leaf, stats, promiser);
    step.update(leaf.outcome);
    recordLeafInChroot(job.env, path, step.outcome, attrs.haveRename);
  }
  if (watch) checkDirectoryChanges(step, step.path, selected, recorded, attrs.change.update);
}

/**
 * One entry of a searched directory: dead links, links followed, devices,
 * and the descent into a directory. Returns the entry's stat when it is
 * selected to be verified as a leaf.
 */
function visitEntry(
  job: FilesJob,
  step: FileStep,
  path: string,
  name: string,
  level: number,
  rootDevice: number,
  attrs: FilesAttributes,
  promiser: string,
): Stats | undefined {
  const leafStep = step.forPath(path);
  let stats: Stats;
  try {
    stats = lstatSync(path);
  } catch (error) {
    step.unchanged(`Recurse was looking at '${path}' when an error occurred. (lstat: ${errorText(error)})`);
    return undefined;
  }
  const linkOptions = { whenNoSource: attrs.link.whenNoSource, rmdeadlinks: attrs.recursion.rmdeadlinks };
  if (stats.isSymbolicLink() && killGhostLink(leafStep, path, linkOptions)) return merge(step, leafStep);
  if (attrs.recursion.traverseLinks && stats.isSymbolicLink()) {
    if (stats.uid !== 0 && stats.uid !== process.getuid?.()) {
      job.env.log.info(
        `File '${path}' is an untrusted link: cfengine will not follow it with a destructive operation`,
      );
      return undefined;
    }
    try {
      stats = statSync(path);
    } catch (error) {
      leafStep.failed(`Recurse was working on '${path}' when this failed. (stat: ${errorText(error)})`);
      return merge(step, leafStep);
    }
  }
  if (attrs.recursion.xdev && stats.dev !== rootDevice) {
    step.unchanged(
      `Skipping '${path}' on different device - use xdev option to change this. (stat: Success)`,
    );
    return undefined;
  }
  if (stats.isDirectory()) {
    if (skipDirectory(step, path, name, attrs)) return undefined;
    if (attrs.recursion.depth > 1 && level <= attrs.recursion.depth) {
      step.unchanged(`Entering '${path}', level ${level}`);
      const sub = step.forPath(path);
      depthSearch(job, sub, stats, level + 1, rootDevice, attrs, promiser);
      step.update(sub.outcome);
    }
  }
  if (job.select && !selectLeaf(job.env, job.select, path, stats)) return undefined;
  return stats;
}

function merge(step: FileStep, leaf: FileStep): undefined {
  step.update(leaf.outcome);
  return undefined;
}

/** `exclude_dirs` and `include_dirs`, matched against the path or the name. */
export function skipDirectory(step: FileStep, path: string, name: string, attrs: FilesAttributes): boolean {
  const { excludeDirs, includeDirs } = attrs.recursion;
  if (excludeDirs.length > 0 && (matchesAny(excludeDirs, path) || matchesAny(excludeDirs, name))) {
    step.unchanged(`Skipping matched excluded directory '${path}'`);
    return true;
  }
  if (includeDirs.length > 0 && !(matchesAny(includeDirs, path) || matchesAny(includeDirs, name))) {
    step.unchanged(`Skipping matched non-included directory '${path}'`);
    return true;
  }
  return false;
}
