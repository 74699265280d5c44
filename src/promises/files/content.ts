/**
 * `content => "text"`: the whole file is exactly the text (no newline is
 * added). A different file is replaced atomically, keeping its mode. The
 * file is read only as far as the text's length and one byte more: enough
 * to tell whether it differs.
 */
import { statSync } from "node:fs";
import { contentMatches, replaceContent } from "../../providers/files/content.js";
import { mayOpen } from "./safe-path.js";
import { errorText, type FileStep } from "./step.js";

export function verifyContent(step: FileStep, content: string): void {
  const { path } = step;
  const expected = Buffer.from(content, "utf8");
  try {
    if (contentMatches(path, expected)) {
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
    replaceContent(path, expected, {}, statSync(path));
  } catch (error) {
    step.failed(`Failed to update file '${path}' with content. (${errorText(error)})`);
    return;
  }
  step.changed(`Updated file '${path}' with content '${content}'`);
}
