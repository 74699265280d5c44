/**
 * The checks cf-agent 3.21 makes on an existing object for `perms`,
 * `changes`, `acl` and `touch` (its VerifyFileAttributes), in its order:
 * setuid/setgid watch, owner and group, content and stat changes, then —
 * except on a symbolic link, which is only checked for being dead — the
 * mode, the ACL, and the time stamps.
 */
import type { Stats } from "node:fs";
import { touchPath } from "../../providers/files/rename.js";
import { setMode } from "../../providers/files/mode.js";
import { verifyAcl } from "./acl.js";
import type { FilesAttributes } from "./attributes.js";
import { verifyFileChanges, verifyFileIntegrity } from "./changes.js";
import { killGhostLink } from "./links.js";
import { applyMode, formatMode } from "../../providers/files/mode.js";
import { verifyOwner, verifySetUidGid } from "./ownership.js";
import type { PermsSpec } from "./perms.js";
import { errorText, type FileStep } from "./step.js";

/** The mode `stats` should have under `perms` (unchanged without a mode). */
export function wantedMode(step: FileStep, stats: Stats, perms: PermsSpec): number {
  const current = stats.mode & 0o7777;
  if (!perms.masks) return current;
  const isDir = stats.isDirectory();
  if (isDir && !perms.rxdirs) step.unchanged("NB: rxdirs is set to false - x for r bits not checked");
  return applyMode(current, perms.masks, isDir && perms.rxdirs);
}

/** Verifies `file` (lstat `stats`) against the promise's perms, changes, acl and touch. */
export function verifyFileAttributes(
  step: FileStep,
  file: string,
  stats: Stats,
  perms: PermsSpec,
  attrs: FilesAttributes,
): void {
  const wanted = wantedMode(step, stats, perms);
  verifySetUidGid(step, file, stats, wanted);
  verifyOwner(step, file, stats, perms);
  if (attrs.haveChange && stats.isFile()) verifyFileIntegrity(step, file, attrs.change);
  if (attrs.haveChange) verifyFileChanges(step, file, stats, attrs.change);
  if (stats.isSymbolicLink()) {
    killGhostLink(step, file, {
      whenNoSource: attrs.link.whenNoSource,
      rmdeadlinks: attrs.recursion.rmdeadlinks,
    });
    return;
  }
  verifySetUidGid(step, file, stats, stats.mode);
  verifyMode(step, file, stats.mode & 0o7777, wanted);
  if (attrs.haveAcl) verifyAcl(step, file, stats);
  // cf-agent touches here even in a dry run; tend changes nothing then.
  if (attrs.touch && !step.warnOnly) updateTimestamps(step, file);
}

function verifyMode(step: FileStep, file: string, current: number, wanted: number): void {
  if (wanted === current) {
    step.kept(`File permissions on '${file}' as promised`);
    return;
  }
  const [from, to] = [formatMode(current), formatMode(wanted)];
  if (!step.makingChanges(`change permissions of '${file}' from ${from} to ${to}`)) return;
  const result = setMode(file, wanted, { current });
  if (result.status === "failed") {
    step.failed(`Failed to change permissions of '${file}'. (chmod: ${errorText(result.cause)})`);
    return;
  }
  step.changed(`Object '${file}' had permissions ${from}, changed it to ${to}`);
}

function updateTimestamps(step: FileStep, file: string): void {
  const touched = touchPath(file);
  if (touched.status === "failed") {
    step.denied(`Updating timestamps on '${file}' failed. (utime: ${errorText(touched.cause)})`);
    return;
  }
  step.changed(`Updated timestamps on '${file}'`);
}
