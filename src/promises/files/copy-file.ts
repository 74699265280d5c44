/**
 * Copying one object to one destination (cf-agent 3.21's CfCopyFile and
 * LinkCopy): a regular file is copied when missing or out of date, a
 * FIFO or device is recreated, and a link is copied as a link (3.21's
 * `link_type` is never "none"). `linkcopy_patterns` turn copies into
 * links, `copylink_patterns` turn links into copies.
 */
import { spawnSync } from "node:child_process";
import { type Stats, lstatSync, statSync } from "node:fs";
import { removePath } from "../../providers/files/remove.js";
import { canonify } from "../../eval/class-expression.js";
import { filesAutoDefine, filesSingleCopy } from "./agent-settings.js";
import { isOutOfDate } from "./copy-compare.js";
import type { CopyContext } from "./copy-context.js";
import { verifyCopiedFileAttributes } from "./copied-attributes.js";
import { copyRegularFile } from "./copy-regular.js";
import { makeParentDirectory } from "./create.js";
import { selectLeaf } from "./file-select.js";
import type { FilesJob } from "./job.js";
import { expandLinks, verifyLinkOfType } from "./links.js";
import { addSlash, chopLastNode, lastNode } from "./paths.js";
import { matchesAny } from "./patterns.js";
import { runState } from "./run-state.js";
import { errorText } from "./step.js";
import { lstatOrUndefined, statOrUndefined } from "../../providers/files/inspect.js";

/** Copies `source` (stat or lstat `ss`) to `dest`. */
export function copyFile(job: FilesJob, copy: CopyContext, source: string, dest: string, ss: Stats): void {
  const { step } = copy;
  const { attrs } = job;
  if (source === dest) {
    step.kept(`File copy promise loop: file/dir '${source}' is its own source`);
    return;
  }
  if (job.select && !selectLeaf(job.env, job.select, source, ss)) {
    step.kept(`Skipping non-selected file '${source}'`);
    return;
  }
  if (runState(job.env).singleCopied.has(dest)) {
    step.kept(`Skipping single-copied file '${dest}'`);
    return;
  }
  if (matchesAny(attrs.copy.linkcopyPatterns, lastNode(source))) {
    if (matchesAny(attrs.copy.copylinkPatterns, lastNode(source))) {
      step.kept(
        `File ${source} matches both copylink_patterns and linkcopy_patterns - promise loop (skipping)!`,
      );
      return;
    }
    step.unchanged(`Copy item '${source}' marked for linking`);
    linkCopy(job, copy, source, dest, ss);
    return;
  }
  let ds = lstatOrUndefined(dest);
  if (ds) {
    const removed = removeLinkInTheWay(job, copy, dest, ds, ss);
    if (removed === undefined) return;
    if (removed) ds = undefined;
  } else {
    const created = makeParentDirectory(step, true, dest);
    if (created === undefined) return;
    if (created) step.changed(`Created parent directory for '${dest}'`);
  }
  const range = attrs.copy.sizeRange;
  if (range && (ss.size < range[0] || ss.size > range[1])) {
    step.kept(`Source file '${source}' size is not in the permitted safety range, skipping`);
    return;
  }
  if (!ds) copyToNew(job, copy, source, dest, ss);
  else updateExisting(job, copy, source, dest, ss, ds);
}

/**
 * A link at the destination gives way to a copy of a non-link (or of
 * anything, without `link_type`). Returns whether it was removed, or
 * undefined to stop.
 */
function removeLinkInTheWay(
  job: FilesJob,
  copy: CopyContext,
  dest: string,
  ds: Stats,
  ss: Stats,
): boolean | undefined {
  const { step } = copy;
  const linkType = job.attrs.copy.linkType;
  if (!ds.isSymbolicLink() || (linkType !== undefined && ss.isSymbolicLink())) return false;
  if (!ss.isSymbolicLink() && job.attrs.copy.typeCheck && linkType !== undefined) {
    step.failed("File image exists but destination type is silly (file/dir/link doesn't match)");
    step.ref();
    return undefined;
  }
  if (!step.makingChanges(`remove old symbolic link '${dest}' to make way for copy`)) return undefined;
  const removed = removePath(dest, { missingOk: false });
  if (removed.status === "failed") {
    step.failed(`Couldn't remove link '${dest}'. (unlink: ${errorText(removed.cause)})`);
    return undefined;
  }
  step.changed(`Removing old symbolic link '${dest}' to make way for copy`);
  return true;
}

function copyToNew(job: FilesJob, copy: CopyContext, source: string, dest: string, ss: Stats): void {
  const { step } = copy;
  const server = copy.source.server;
  if (ss.isFile()) {
    // cf-agent names the two the other way round in this message.
    if (!step.makingChanges(`copy '${dest}' to '${source}'`)) return;
    step.unchanged(`'${dest}' wasn't at destination, copying from '${server}:${source}'`);
    if (!copyRegularFile(copy, source, dest, ss)) {
      step.failed(`Copy from '${server}:${source}' failed`);
      return;
    }
    verifyCopied(job, copy, source, dest, ss, false);
    step.changed(`Updated file '${dest}' from '${server}:${source}'`);
    noteSingleCopy(job, dest, true);
    autoDefine(job, dest);
    return;
  }
  if (ss.isFIFO()) makeFifo(copy, dest, ss);
  else if (ss.isBlockDevice() || ss.isCharacterDevice() || ss.isSocket()) makeSpecial(copy, dest, ss);
  if (ss.isSymbolicLink()) linkCopy(job, copy, source, dest, ss);
}

function updateExisting(
  job: FilesJob,
  copy: CopyContext,
  source: string,
  dest: string,
  ss: Stats,
  ds: Stats,
): void {
  const { step } = copy;
  const { copy: attrs } = job.attrs;
  const server = copy.source.server;
  step.unchanged(`Destination file '${dest}' already exists`);
  if (attrs.compare === "exists") {
    step.kept("Existence only is promised, no copying required");
    return;
  }
  const stale = attrs.forceUpdate || isOutOfDate(step, attrs.compare, source, dest, ss, ds, copy.source);
  if (attrs.typeCheck && fileType(ds) !== fileType(ss)) {
    step.failed(`Promised file copy ${dest} exists but type mismatch with source '${source}'`);
    return;
  }
  if (!stale && !ss.isSymbolicLink()) {
    verifyCopiedFileAttributes(job, copy, source, dest, ss, ds);
    noteSingleCopy(job, dest, false);
    step.kept(`File '${dest}' is an up to date copy of source`);
    return;
  }
  if (!ss.isFile()) {
    if (ss.isSymbolicLink()) linkCopy(job, copy, source, dest, ss);
    return;
  }
  if (!step.makingChanges(`update file '${dest}' from '${source}' on '${server}'`)) return;
  autoDefine(job, dest);
  if (!copyRegularFile(copy, source, dest, ss)) {
    step.failed(`Was not able to copy '${source}' on '${server}' to '${dest}'`);
    return;
  }
  step.changed(`Updated '${dest}' from source '${source}' on '${server}'`);
  verifyCopied(job, copy, source, dest, ss, true);
  noteSingleCopy(job, dest, false);
}

/** After a copy: the destination's attributes (perms, preserve). */
function verifyCopied(
  job: FilesJob,
  copy: CopyContext,
  source: string,
  dest: string,
  ss: Stats,
  update: boolean,
): void {
  let ds: Stats;
  try {
    ds = statSync(dest);
  } catch (error) {
    if (update) copy.step.interrupted(`Can't stat destination '${dest}'. (stat: ${errorText(error)})`);
    else job.env.log.error(`Can't stat destination file '${dest}'. (stat: ${errorText(error)})`);
    return;
  }
  verifyCopiedFileAttributes(job, copy, source, dest, ss, ds);
}

function fileType(stats: Stats): string {
  if (stats.isFile()) return "file";
  if (stats.isDirectory()) return "dir";
  if (stats.isSymbolicLink()) return "link";
  if (stats.isFIFO()) return "fifo";
  return "other";
}

/** `files_single_copy`: the first copy of a matching file is the only one this run. */
function noteSingleCopy(job: FilesJob, dest: string, anyList: boolean): void {
  const list = filesSingleCopy(job.env);
  if (list.length === 0) return;
  // cf-agent remembers every new copy once a list is given, matching or not.
  if (anyList || matchesAny(list, dest)) runState(job.env).singleCopied.add(dest);
}

/** `files_auto_define`: copying a matching file defines `auto_<canonified path>`. */
function autoDefine(job: FilesJob, dest: string): void {
  const list = filesAutoDefine(job.env);
  if (!matchesAny(list, dest)) return;
  const name = `auto_${canonify(dest)}`;
  job.env.defineClass(name, "namespace");
  job.env.log.info(`Auto defining class '${name}'`);
}

function makeFifo(copy: CopyContext, dest: string, ss: Stats): void {
  const { step } = copy;
  if (!step.makingChanges(`create FIFO '${dest}'`)) return;
  const mode = (ss.mode & 0o7777).toString(8);
  const run = spawnSync("mkfifo", ["-m", mode, dest], { encoding: "utf8" });
  if (run.status !== 0) {
    step.failed(`Cannot create fifo '${dest}'. (mkfifo: ${(run.stderr ?? "").trim() || "failed"})`);
    return;
  }
  step.changed(`Created fifo '${dest}'`);
}

function makeSpecial(copy: CopyContext, dest: string, ss: Stats): void {
  const { step } = copy;
  if (!step.makingChanges(`make special file/device '${dest}'`)) return;
  if (ss.isSocket()) {
    step.failed(`Cannot create special file '${dest}'. (mknod: sockets cannot be made by tend)`);
    return;
  }
  const kind = ss.isBlockDevice() ? "b" : "c";
  const major = String((ss.rdev >> 8) & 0xfff);
  const minor = String((ss.rdev & 0xff) | ((ss.rdev >> 12) & 0xfff00));
  const mode = (ss.mode & 0o7777).toString(8);
  const run = spawnSync("mknod", ["-m", mode, dest, kind, major, minor], { encoding: "utf8" });
  if (run.status !== 0) {
    step.failed(`Cannot create special file '${dest}'. (mknod: ${(run.stderr ?? "").trim() || "failed"})`);
    return;
  }
  step.changed(`Created special file/device '${dest}'.`);
}

/** Links `dest` to the source instead of copying it (or copies what a link points to). */
export function linkCopy(job: FilesJob, copy: CopyContext, source: string, dest: string, ss: Stats): void {
  const { step } = copy;
  const linkType = job.attrs.copy.linkType;
  let target = source;
  if (ss.isSymbolicLink()) {
    try {
      target = copy.source.readlink(source);
    } catch {
      step.failed(`Can't read link '${source}'`);
      return;
    }
    step.unchanged(`Checking link from '${dest}' to '${target}'`);
    if (linkType === "absolute" && !target.startsWith("/"))
      target = `${addSlash(chopLastNode(source))}${target}`;
  }
  if (matchesAny(job.attrs.copy.copylinkPatterns, lastNode(source))) {
    // 3.21 expands a remote link on the local disk; the server follows it instead.
    target = copy.source.remote ? source : (expandLinks(step, source) ?? "");
    step.unchanged(`Link item in copy '${source}' marked for copying from '${target}' instead`);
    const ts = copy.source.remote ? copy.source.stat(target) : statOrUndefined(target);
    if (!ts) {
      step.failed(`Can't stat '${target}' in verify copy`);
      return;
    }
    copyFile(job, copy, target, dest, ts);
    return;
  }
  // Whether the link was made or kept decides on checking its attributes;
  // like cf-agent, the promise's result takes only those checks.
  const link = step.forPath(step.path);
  const type = linkType === "symlink" && target.startsWith(".") ? "relative" : linkType;
  verifyLinkOfType(link, type, dest, target, copy.links);
  if (link.outcome !== "kept" && link.outcome !== "repaired") return;
  let ds: Stats;
  try {
    ds = lstatSync(dest);
  } catch (error) {
    step.failed(`Can't lstat '${dest}'. (lstat: ${errorText(error)})`);
    return;
  }
  verifyCopiedFileAttributes(job, copy, source, dest, ss, ds);
}
