/**
 * `delete` bodies: remove the file, link or (with `rmdirs`) empty
 * directory. A directory that is not empty is never removed, silently as
 * in 3.21. A symlink is removed, not followed (`dirlinks` only matters in
 * depth searches).
 */
import { type Stats, rmdirSync, unlinkSync } from "node:fs";
import { asBoolean } from "../values.js";
import { errorText, type FileStep } from "./step.js";

/** Deletes the object at the step's path, whose lstat is `stats`. */
export function verifyDelete(step: FileStep, stats: Stats): void {
  const { path, promise } = step;
  const isDir = stats.isDirectory();
  if (!step.makingChanges(`delete ${isDir ? "directory" : "file"} '${path}'`)) return;
  if (!isDir) {
    try {
      unlinkSync(path);
      step.changed(`Deleted file '${path}'`);
    } catch (error) {
      step.failed(`Couldn't unlink '${path}' tidying. (unlink: ${errorText(error)})`);
    }
    return;
  }
  if (!asBoolean(promise.bodyValue("delete", "rmdirs"), false)) {
    step.unchanged(`Keeping directory '${path}' since 'rmdirs' attribute was not specified`);
    return;
  }
  removeDirectory(step);
}

function removeDirectory(step: FileStep): void {
  try {
    rmdirSync(step.path);
    step.changed(`Deleted directory '${step.path}'`);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOTEMPTY" || code === "EEXIST") {
      step.unchanged(`Delete directory '${step.path}' not empty, skipping`);
      return;
    }
    step.failed(`Delete directory '${step.path}' failed (rmdir: ${errorText(error)})`);
  }
}
