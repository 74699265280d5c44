/**
 * `content => "text"`: the whole file is exactly the text (no newline is
 * added). A different file is replaced atomically, keeping its mode. The
 * file is read only as far as the text's length and one byte more: enough
 * to tell whether it differs.
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { writeFileAtomically } from "../../system/atomic.js";
import { mayOpen } from "./safe-path.js";
import { errorText, type FileStep } from "./step.js";

/** Whether the file at `path` holds exactly `expected`. Throws the system error. */
function holds(path: string, expected: Buffer): boolean {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(expected.length + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const n = readSync(fd, buffer, filled, buffer.length - filled, filled);
      filled += n;
      // A short read of a regular file is its end: no second call to learn it.
      if (n === 0 || filled < buffer.length) break;
    }
    return filled === expected.length && buffer.subarray(0, filled).equals(expected);
  } finally {
    closeSync(fd);
  }
}

export function verifyContent(step: FileStep, content: string): void {
  const { path } = step;
  const expected = Buffer.from(content, "utf8");
  try {
    if (holds(path, expected)) {
      step.unchanged(`No changes to content of file '${path}'`);
      return;
    }
  } catch (error) {
    step.failed(`Could not read file '${path}'. (${errorText(error)})`);
    return;
  }
  if (!step.makingChanges(`update file '${path}' with content '${content}'`)) return;
  if (!mayOpen(step.env, path)) {
    step.failed(`Cannot open file '${path}' for writing`);
    return;
  }
  try {
    const stats = statSync(path);
    writeFileAtomically(path, expected, stats.mode & 0o7777, stats);
  } catch (error) {
    step.failed(`Failed to update file '${path}' with content. (${errorText(error)})`);
    return;
  }
  step.changed(`Updated file '${path}' with content '${content}'`);
}
