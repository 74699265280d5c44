/**
 * A file as edit_line sees it: lines split at newlines (a last line
 * without one is still a line; a carriage return stays part of its line),
 * read and written as bytes (invalid UTF-8 is kept, see regex/bytes.ts).
 */
import { readFileSync } from "node:fs";
import { decodeBytes, encodeBytes } from "../../eval/regex/bytes.js";

/** The lines of a file's text: no empty last line for the final newline. */
export function splitFileLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * The lines as cf-agent loads them for editing; with `recognize_join`, a
 * line ending in a backslash is dropped (3.21 clears the joined text
 * before using it).
 */
export function loadEditLines(path: string, join: boolean): string[] {
  const lines = splitFileLines(decodeBytes(readFileSync(path)));
  return join ? lines.filter((l) => !l.endsWith("\\")) : lines;
}

/** The file's bytes for these lines: each followed by a newline. */
export function linesToBytes(lines: Iterable<string>): Buffer {
  let text = "";
  for (const line of lines) text += `${line}\n`;
  return encodeBytes(text);
}
