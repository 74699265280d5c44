/**
 * `delete` bodies: remove the file or link, or (with `rmdirs`) the empty
 * directory. A directory that is not empty is never removed, silently, as
 * in 3.21; nor is the base directory of a depth search. A symbolic link is
 * removed, never followed. `dirlinks` is accepted and, as in 3.21, has no
 * effect.
 */
import type { Stats } from "node:fs";
import { removePath } from "../../providers/files/remove.js";
import type { FilesAttributes } from "./attributes.js";
import { errorText, type FileStep } from "./step.js";

/** Deletes the object at the step's path, whose stat is `stats`. */
export function verifyDelete(
  step: FileStep,
  stats: Stats,
  attrs: Pick<FilesAttributes, "rmdirs" | "haveDepthSearch">,
  promiser?: string,
): void {
  const { path } = step;
  step.unchanged(`Verifying file deletions for '${path}'`);
  const isDir = stats.isDirectory();
  if (!step.makingChanges(`delete ${isDir ? "directory" : "file"} '${path}'`)) return;
  if (!isDir) {
    const removed = removePath(path, { missingOk: false });
    if (removed.status === "failed") {
      step.failed(`Couldn't unlink '${path}' tidying. (unlink: ${errorText(removed.cause)})`);
      return;
    }
    step.changed(`Deleted file '${path}'`);
    return;
  }
  if (!attrs.rmdirs) {
    step.kept(`Keeping directory '${path}' since 'rmdirs' attribute was not specified`);
    return;
  }
  if (attrs.haveDepthSearch && path === promiser) {
    step.env.log.debug(
      `Skipping deletion of parent directory for recursive promise '${path}', you must specify separate promise for deleting`,
    );
    return;
  }
  removeDirectory(step);
}

function removeDirectory(step: FileStep): void {
  const removed = removePath(step.path, { missingOk: false });
  if (removed.status === "failed") {
    const code = removed.cause?.code;
    if (code === "ENOTEMPTY" || code === "EEXIST") {
      step.unchanged(`Delete directory '${step.path}' not empty, skipping`);
      return;
    }
    step.failed(`Delete directory '${step.path}' failed (rmdir: ${errorText(removed.cause)})`);
    return;
  }
  step.changed(`Deleted directory '${step.path}'`);
}
