/**
 * `copy_from`, as cf-agent 3.21 schedules it: the
 * source is a file (copied to the promiser) or a directory (copied
 * recursively down to the depth_search's `depth`, with `purge` of what the
 * source no longer has), on the local disk or on the first of `servers`
 * that answers (copy-remote.ts); the same code copies from both.
 */
import { type Stats, lstatSync, statSync } from "node:fs";
import { mkdirSync, renameSync, unlinkSync } from "../../system/safe-fs.js";
import { type CopyContext, newCopyContext } from "./copy-context.js";
import { copiedPerms, verifyCopiedFileAttributes } from "./copied-attributes.js";
import { copyFile } from "./copy-file.js";
import { openCopySource } from "./copy-remote.js";
import { makeParentDirectory } from "./create.js";
import { skipDirectory } from "./depth-search.js";
import { verifyFileAttributes } from "./file-attributes.js";
import type { FilesJob } from "./job.js";
import { addSlash, deleteSlash, joinPath } from "./paths.js";
import { purgeLocalFiles } from "./purge.js";
import { errorText, type FileStep } from "./step.js";

function statWith(path: string, follow: boolean): Stats | undefined {
  try {
    return follow ? statSync(path) : lstatSync(path);
  } catch {
    return undefined;
  }
}

/** The source's object at `path`, followed or not. */
function sourceStat(copy: CopyContext, path: string, follow: boolean): Stats | undefined {
  return follow ? copy.source.stat(path) : copy.source.lstat(path);
}

/** Keeps the copy_from promise of `step.path`. */
export function scheduleCopy(job: FilesJob, step: FileStep): void {
  const source = job.attrs.copy.source;
  if (source === undefined) {
    step.failed(`Body copy_from for '${step.path}' has no source`);
    return;
  }
  step.unchanged(`File '${step.path}' copy_from '${source}'`);
  const from = openCopySource(job.env, job.attrs.copy);
  if (from === undefined) {
    step.failed(`No suitable server found for '${step.path}'`);
    step.ref();
    return;
  }
  const context = newCopyContext(step, job.attrs, job.repository, from === "local" ? undefined : from);
  copyFileSources(job, context, source, step.path);
}

function copyFileSources(job: FilesJob, copy: CopyContext, source: string, destination: string): void {
  const { step } = copy;
  const server = copy.source.server;
  const ss = sourceStat(copy, source, true);
  if (!ss) {
    if (job.attrs.copy.missingOk) {
      step.kept(
        `Can't stat file '${source}' on '${server}' but promise is kept because of 'missing_ok' in files.copy_from promise`,
      );
    } else step.failed(`Can't stat file '${source}' on '${server}' in files.copy_from promise`);
    return;
  }
  const parentOf = ss.isDirectory() ? `${addSlash(destination)}.` : destination;
  const created = makeParentDirectory(step, job.attrs.moveObstructions, parentOf);
  if (created === undefined) return;
  if (created) step.changed(`Created parent directory for '${destination}'`);
  if (!ss.isDirectory()) {
    verifyCopy(job, copy, source, destination);
    return;
  }
  if (job.attrs.copy.purge) step.unchanged("Destination purging enabled");
  step.unchanged(`Entering directory '${source}'`);
  searchAndCopy(job, copy, source, destination, job.attrs.recursion.depth, ss.dev);
  const ds = statWith(destination, true);
  if (ds && job.attrs.copy.checkRoot) verifyCopiedFileAttributes(job, copy, source, destination, ss, ds);
}

/** Copies the file `source` to `destination` (or a directory's entries, one level). */
export function verifyCopy(job: FilesJob, copy: CopyContext, source: string, destination: string): void {
  const { step } = copy;
  // 3.21 copies links as links: sources are never followed here.
  const ss = sourceStat(copy, source, false);
  if (!ss) {
    step.failed(`Can't stat '${source}' in verify copy`);
    return;
  }
  if (ss.nlink > 1) registerHardLink(copy, ss.ino, destination);
  if (!ss.isDirectory()) {
    copyFile(job, copy, source, destination, ss);
    return;
  }
  const sourceDir = addSlash(source);
  let names: string[];
  try {
    names = copy.source.readdir(sourceDir);
  } catch (error) {
    step.failed(`Can't open directory '${sourceDir}'. (opendir: ${errorText(error)})`);
    return;
  }
  const destDir = addSlash(destination);
  const ds = statWith(destDir, true);
  if (!ds) step.failed(`Can't stat directory '${destDir}'. (stat: No such file or directory)`);
  else verifyCopiedFileAttributes(job, copy, sourceDir, destDir, ss, ds);
  for (const name of names) {
    const from = `${sourceDir}${name}`;
    const fs = sourceStat(copy, from, false);
    if (!fs) {
      step.failed(`Can't stat source file '${from}'. (lstat: No such file or directory)`);
      return;
    }
    copyFile(job, copy, from, `${destDir}${name}`, fs);
  }
}

/**
 * Keeps hard links between copied files: the first destination of an
 * inode is remembered; a later one is removed so the copy links it.
 */
function registerHardLink(copy: CopyContext, inode: number, destination: string): void {
  const { step } = copy;
  if (!copy.inodes.has(inode)) {
    copy.inodes.set(inode, destination);
    return;
  }
  if (!step.makingChanges(`remove old hard link '${destination}' to preserve structure`)) return;
  step.changed(`Removed old hard link '${destination}' to preserve structure`);
  try {
    unlinkSync(destination);
  } catch {
    // Not there yet: nothing to remove.
  }
}

/** The recursive copy of directory `from` into `to`, down `levels` more levels. */
function searchAndCopy(
  job: FilesJob,
  copy: CopyContext,
  from: string,
  to: string,
  levels: number,
  rootDevice: number,
): void {
  const { step } = copy;
  if (levels === 0) {
    step.failed(`Maximum recursion level reached at '${from}'`);
    return;
  }
  const created = makeParentDirectory(step, job.attrs.moveObstructions, `${addSlash(to)}dummy`);
  if (created === undefined) return;
  if (created) step.changed(`Created parent directory for '${to}'`);
  const dir = deleteSlash(to);
  if (!setAsideSymlink(job, copy, dir)) return;
  let names: string[];
  try {
    names = copy.source.readdir(from);
  } catch {
    step.interrupted(`Can't open directory '${from}' for copying`);
    return;
  }
  const keep = new Set<string>();
  for (const name of names) {
    if (job.attrs.copy.purge) keep.add(name);
    if (!copyEntry(job, copy, joinPath(from, name), dir, name, levels, rootDevice)) return;
    // A lost connection ends the walk before anything is purged (3.21 the same).
    if (!copy.source.connected()) {
      step.interrupted("connection error");
      return;
    }
  }
  if (job.attrs.copy.purge) purgeLocalFiles(step.forPath(step.path), keep, dir, job.attrs.haveDepthSearch);
}

/** A symbolic link where the destination directory should be: moved aside with `move_obstructions`. */
function setAsideSymlink(job: FilesJob, copy: CopyContext, dir: string): boolean {
  const { step } = copy;
  const stats = statWith(dir, false);
  if (!stats) {
    step.failed(`Unable to stat newly created directory '${dir}'. (lstat: No such file or directory)`);
    return false;
  }
  if (!stats.isSymbolicLink()) return true;
  if (!job.attrs.moveObstructions) {
    step.failed(`Path '${dir}' is a symlink. Unable to move it aside without move_obstructions is set`);
    return false;
  }
  if (step.makingChanges(`backup '${dir}'`)) {
    try {
      renameSync(dir, `${dir}.cf-moved`);
      step.changed(`Backed up '${dir}'`);
    } catch {
      job.env.log.error(`Unable to backup old '${dir}'`);
    }
  }
  if (step.makingChanges(`create directory '${dir}'`)) {
    try {
      mkdirSync(dir, 0o700);
    } catch (error) {
      step.failed(`Failed to make directory '${dir}'. (mkdir: ${errorText(error)})`);
      return false;
    }
    step.changed(`Created directory for '${dir}'`);
  }
  return true;
}

function copyEntry(
  job: FilesJob,
  copy: CopyContext,
  from: string,
  to: string,
  name: string,
  levels: number,
  rootDevice: number,
): boolean {
  const { step } = copy;
  const { recursion, copy: attrs } = job.attrs;
  const follow = recursion.traverseLinks;
  const ss = sourceStat(copy, from, follow);
  if (!ss) {
    // A server's refusal reads as EPERM in 3.21 (cf_remote_stat).
    const why = copy.source.remote ? "Operation not permitted" : "No such file or directory";
    step.unchanged(`Can't stat '${from}'. (cf_stat: ${why})`);
    if (!copy.source.connected()) {
      step.interrupted(`Connection error when checking '${from}'`);
      return false;
    }
    step.unchanged(`Skipping '${from}'`);
    return true;
  }
  const target = attrs.collapse && ss.isDirectory() ? to : joinPath(to, name);
  if (recursion.xdev && ss.dev !== rootDevice) {
    step.unchanged(`Skipping '${from}' on different device`);
    return true;
  }
  if (!ss.isDirectory()) {
    verifyCopy(job, copy, from, target);
    return true;
  }
  if (recursion.traverseLinks) {
    step.unchanged("Traversing directory links during copy is too dangerous, pruned");
    return true;
  }
  if (skipDirectory(step, from, name, job.attrs)) return true;
  let ds = statWith(target, true);
  if (!attrs.collapse && !ds) {
    try {
      mkdirSync(target, 0o700);
    } catch (error) {
      step.interrupted(`Can't make directory '${target}'. (mkdir: ${errorText(error)})`);
      return true;
    }
    step.changed(`Created directory '${target}'`);
    ds = statWith(target, true);
    if (!ds) {
      step.interrupted(
        `Can't stat local copy '${target}' - failed to establish directory. (stat: No such file or directory)`,
      );
      return true;
    }
  }
  step.unchanged(`Entering '${target}'`);
  if (!attrs.collapse && ds) verifyFileAttributes(step, target, ds, copiedPerms(job, ss, ds), job.attrs);
  searchAndCopy(job, copy, from, target, levels - 1, rootDevice);
  return true;
}
