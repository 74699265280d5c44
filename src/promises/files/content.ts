/**
 * `content => "text"`: the whole file is exactly the text (no newline is
 * added). A different file is replaced atomically, keeping its mode.
 */
import { type Stats, readFileSync, statSync } from "node:fs";
import { writeFileAtomically } from "./atomic.js";
import { errorText, type FileStep } from "./step.js";

export function verifyContent(step: FileStep, content: string): void {
  const { path } = step;
  let current: Buffer;
  let stats: Stats;
  try {
    current = readFileSync(path);
    stats = statSync(path);
  } catch (error) {
    step.failed(`Could not read file '${path}'. (${errorText(error)})`);
    return;
  }
  if (current.equals(Buffer.from(content, "utf8"))) {
    step.unchanged(`No changes to content of file '${path}'`);
    return;
  }
  if (!step.makingChanges(`update file '${path}' with content '${content}'`)) return;
  try {
    writeFileAtomically(path, content, stats.mode & 0o7777, stats);
  } catch (error) {
    step.failed(`Failed to update file '${path}' with content. (${errorText(error)})`);
    return;
  }
  step.changed(`Updated file '${path}' with content '${content}'`);
}
