/**
 * What cf-agent 3.21 does to each object a files promise reaches (its
 * VerifyFileLeaf): a `transformer` runs, or else the object is renamed,
 * deleted and touched as promised; then its perms, changes and ACL are
 * checked — except on the base directory of a depth search, which is left
 * alone unless `include_basedir` says otherwise.
 */
import type { Stats } from "node:fs";
import { verifyDelete } from "./delete.js";
import { verifyFileAttributes } from "./file-attributes.js";
import type { FilesJob } from "./job.js";
import { verifyRename } from "./rename.js";
import type { FileStep } from "./step.js";
import { touchFile } from "./touch.js";
import { transformFile } from "./transformer.js";

/**
 * Verifies the object at `step.path`, whose lstat (or stat, for a followed
 * link) is `stats`; `promiser` is the path the promise was verified for.
 */
export function verifyFileLeaf(job: FilesJob, step: FileStep, stats: Stats, promiser: string): void {
  const { attrs } = job;
  const path = step.path;
  step.unchanged(`Handling file existence constraints on '${path}'`);
  if (attrs.transformer !== undefined) {
    const raw = job.promise.raw("transformer");
    if (raw) transformFile(step, path, raw, attrs.transformer);
  } else {
    if (attrs.haveRename) verifyRename(step, stats, attrs.rename);
    if (attrs.haveDelete) verifyDelete(step, stats, attrs, promiser);
    if (attrs.touch) touchFile(step);
  }
  if (!attrs.havePerms && !attrs.haveChange && !attrs.haveAcl) return;
  if (stats.isDirectory() && attrs.recursion.depth && !attrs.recursion.includeBasedir && path === promiser) {
    step.unchanged(`Promise to skip base directory '${path}'`);
    return;
  }
  verifyFileAttributes(step, path, stats, job.perms, attrs);
}
