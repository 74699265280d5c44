/**
 * Replacing a file with a copy of a regular source file, safely: the copy
 * is written to `<dest>.cfnew` in the same directory and flushed, the old
 * file is kept as `<dest>.cfsaved` (or a time-stamped name, or not at all,
 * per `copy_backup`), and the new file is renamed over the old one. The
 * destination is never missing and never half-written: the backup is a
 * hard link to the old file made before the rename, where cf-agent 3.21
 * renames the old file away first. Messages are cf-agent's.
 */
import type { Stats } from "node:fs";
import { linkSync, renameSync, rmdirSync, unlinkSync, utimesSync } from "../../system/safe-fs.js";
import { unlinkQuietly } from "../../system/atomic.js";
import type { CopyContext } from "./copy-context.js";
import { makeHardLink } from "./links.js";
import { purgeLocalFiles } from "./purge.js";
import { archiveToRepository } from "./repository.js";
import { runStamp } from "./run-state.js";
import { mayOpen, SEVERED } from "./safe-path.js";
import { errorText } from "./step.js";
import { lstatOrUndefined, statOrUndefined } from "../../providers/files/inspect.js";

/**
 * Copies the regular file `source` (stat `ss`) to `dest`. Returns whether
 * the copy is in place; failures are recorded on the step.
 */
export function copyRegularFile(copy: CopyContext, source: string, dest: string, ss: Stats): boolean {
  const { step } = copy;
  if (!step.makingChanges(`copy '${source}' to '${dest}'`)) return false;
  if (ss.nlink > 1) {
    const linkable = copy.inodes.get(ss.ino);
    if (linkable !== undefined && linkable !== dest) {
      try {
        unlinkSync(dest);
        step.changed(`Removed '${dest}'`);
      } catch {
        // Nothing there to remove.
      }
      makeHardLink(step, dest, linkable);
      return true;
    }
  }
  const fresh = `${dest}.cfnew`;
  const destStats = statOrUndefined(dest);
  if (!writeNewFile(copy, source, fresh, destStats, ss)) return false;
  if (copy.attrs.copy.stealth && !copy.source.remote) restoreTimes(source, ss);
  step.unchanged(`Copy of regular file succeeded '${source}' to '${fresh}'`);
  const backup = destStats ? keepOldFile(copy, dest, destStats) : undefined;
  if (!checkNewFile(copy, source, fresh, dest, ss, backup)) return false;
  try {
    renameSync(fresh, dest);
  } catch (error) {
    step.failed(
      `Could not install copy file as '${dest}', directory in the way?. (rename: ${errorText(error)})`,
    );
    unlinkQuietly(fresh);
    restoreBackup(copy, dest, backup);
    return false;
  }
  step.changed(`Moved '${fresh}' to '${dest}'`);
  if (backup) archiveBackup(copy, backup);
  if (copy.attrs.copy.stealth) restoreTimes(dest, ss);
  return true;
}

function writeNewFile(
  copy: CopyContext,
  source: string,
  fresh: string,
  destStats: Stats | undefined,
  ss: Stats,
): boolean {
  const { step } = copy;
  const remote = copy.source.remote;
  if (remote) return fetchNewFile(copy, source, fresh);
  const preserve = copy.attrs.copy.preserve;
  // Never carry over setuid and friends unless preserving (0777).
  const mode = preserve ? undefined : destStats ? destStats.mode & 0o777 : 0o600;
  if (!mayOpen(step.env, fresh)) {
    step.env.log.info(
      `Unable to open destination file while copying '${source}' to '${fresh}' (open: ${SEVERED})`,
    );
    step.failed(`Failed copying file '${source}' to '${fresh}'`);
    return false;
  }
  try {
    unlinkQuietly(fresh);
    copy.source.copyTo(source, fresh, mode ?? copy.source.modeOf(source, ss));
  } catch (error) {
    unlinkQuietly(fresh);
    step.env.log.info(`Can't copy '${source}' (${errorText(error)})`);
    step.failed(`Failed copying file '${source}' to '${fresh}'`);
    return false;
  }
  if (mode === undefined) step.changed(`Copied file '${source}' to '${fresh}' (permissions preserved)`);
  else step.changed(`Copied file '${source}' to '${fresh}' (mode '${mode.toString(8)}')`);
  return true;
}

/** A remote source's bytes fetched into `fresh` (created 0600, as 3.21's CopyRegularFileNet). */
function fetchNewFile(copy: CopyContext, source: string, fresh: string): boolean {
  const { step } = copy;
  const address = copy.source.remote?.address ?? copy.source.server;
  if (!mayOpen(step.env, fresh)) {
    step.failed(`Failed to copy file '${source}' from '${address}'`);
    return false;
  }
  try {
    unlinkQuietly(fresh);
    copy.source.copyTo(source, fresh, 0o600);
  } catch (error) {
    unlinkQuietly(fresh);
    step.env.log.info(errorText(error));
    step.failed(`Failed to copy file '${source}' from '${address}'`);
    return false;
  }
  step.changed(`Copied file '${source}' from '${address}' to '${fresh}'`);
  return true;
}

interface Backup {
  readonly path: string;
  readonly isDirectory: boolean;
  /** Whether the old file is there to restore from. */
  readonly ok: boolean;
}

/** Keeps the file about to be replaced as the backup copy_backup asks for. */
function keepOldFile(copy: CopyContext, dest: string, destStats: Stats): Backup | undefined {
  const { step } = copy;
  if (copy.attrs.copy.backup === "false") {
    if (destStats.isDirectory()) removeDirectoryInTheWay(copy, dest);
    return undefined;
  }
  const stamp = copy.attrs.copy.backup === "timestamp" ? runStamp(step.env) : "";
  const path = `${dest}${stamp}.cfsaved`;
  step.unchanged(`Backup for '${dest}' is '${path}'`);
  const isDirectory = removeOldBackup(copy, path);
  try {
    // A hard link keeps the old file in place until the new one replaces it.
    if (destStats.isFile()) linkSync(dest, path);
    else renameSync(dest, path);
    step.changed(`Backed up '${dest}' as '${path}'`);
  } catch {
    step.failed(`Failed to back up '${dest}' as '${path}'`);
  }
  return { path, isDirectory, ok: lstatOrUndefined(path) !== undefined };
}

/** Removes an earlier backup of the same name; returns whether it was a directory. */
function removeOldBackup(copy: CopyContext, path: string): boolean {
  const { step } = copy;
  const old = lstatOrUndefined(path);
  if (!old) return false;
  if (old.isDirectory()) {
    purgeLocalFiles(step, undefined, path, copy.attrs.haveDepthSearch);
    try {
      rmdirSync(path);
      step.changed(`Removed old backup directory '${path}'`);
    } catch {
      step.failed(`Failed to remove old backup directory '${path}'`);
    }
  }
  try {
    unlinkSync(path);
    step.changed(`Removed old backup '${path}'`);
  } catch {
    step.failed(`Failed to remove old backup '${path}'`);
  }
  return old.isDirectory();
}

function removeDirectoryInTheWay(copy: CopyContext, dest: string): void {
  purgeLocalFiles(copy.step, undefined, dest, copy.attrs.haveDepthSearch);
  try {
    rmdirSync(dest);
    copy.step.changed(`Removed directory '${dest}'`);
  } catch {
    copy.step.failed(`Failed to remove directory '${dest}'`);
  }
}

/** The new file has the source's size and (with `verify`) content; else it is dropped. */
function checkNewFile(
  copy: CopyContext,
  source: string,
  fresh: string,
  dest: string,
  ss: Stats,
  backup: Backup | undefined,
): boolean {
  const { step } = copy;
  const stats = lstatOrUndefined(fresh);
  if (!stats) {
    step.failed(
      `Can't stat new file '${fresh}' - another agent has picked it up?. (stat: No such file or directory)`,
    );
    return false;
  }
  let problem: string | undefined;
  if (stats.isFile() && stats.size !== ss.size) {
    problem = `New file '${fresh}' seems to have been corrupted in transit, destination size (${stats.size}) differs from the source size (${ss.size}), aborting.`;
  } else if (copy.attrs.copy.verify) {
    step.unchanged("Final verification of transmission ...");
    if (copy.source.differs(source, fresh, ss, stats))
      problem = `New file '${fresh}' seems to have been corrupted in transit, aborting.`;
    else step.unchanged(`New file '${fresh}' transmitted correctly - verified`);
  }
  if (problem === undefined) return true;
  step.failed(problem);
  unlinkQuietly(fresh);
  restoreBackup(copy, dest, backup);
  return false;
}

function restoreBackup(copy: CopyContext, dest: string, backup: Backup | undefined): void {
  const { step } = copy;
  const path = backup?.path ?? "";
  if (backup?.ok && lstatOrUndefined(dest) === undefined) {
    try {
      renameSync(backup.path, dest);
      step.changed(`Restored '${dest}' from '${path}'`);
      return;
    } catch {
      // Reported below.
    }
  } else if (backup?.ok) {
    // The old file never left: the backup is only a second name for it.
    unlinkQuietly(backup.path);
    step.changed(`Restored '${dest}' from '${path}'`);
    return;
  }
  step.failed(`Could not restore '${dest}' as '${path}'`);
}

function archiveBackup(copy: CopyContext, backup: Backup): void {
  const { step } = copy;
  if (backup.isDirectory) {
    step.env.log.info(`Cannot move a directory to repository, leaving at '${backup.path}'`);
    return;
  }
  if (!archiveToRepository(step, backup.path, copy.repository)) return;
  step.changed(`Archived backup '${backup.path}'`);
  try {
    unlinkSync(backup.path);
  } catch {
    step.failed(`Failed to clean backup '${backup.path}' after archiving`);
  }
}

/** `stealth`: the file keeps the access and modification times of the source. */
function restoreTimes(path: string, ss: Stats): void {
  try {
    utimesSync(path, ss.atime, ss.mtime);
  } catch {
    // Times are cosmetic here; the copy itself succeeded.
  }
}
