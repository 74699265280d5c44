/**
 * Regex-driven text helpers shared by file, data and network functions,
 * with 3.21's semantics (`RlistFromSplitRegex`, `StripPatterns`), on PCRE.
 */
import { fromByteString, toByteString } from "../regex/bytes.js";
import { compileCfRegex, searchBytes, splitOnRegex } from "../regex/match.js";
import { PcreError } from "../regex/pcre.js";

/**
 * Splits `text` at each match of `pattern`, keeping at most `max` pieces
 * (the rest of the string is dropped). Blank pieces are kept only with
 * `allowBlanks`, and a blank tail only if something was split off before it.
 * A pattern that does not compile splits nothing.
 */
export function splitByRegex(text: string, pattern: string, max: number, allowBlanks: boolean): string[] {
  const pieces = splitOnRegex(text, pattern, max, allowBlanks);
  if (!(pieces instanceof PcreError)) return pieces;
  return text !== "" && max > 0 ? [text] : [];
}

/**
 * Removes every match of `pattern` (first match first, again and again,
 * stopping at an empty match); an empty or invalid pattern removes nothing.
 */
export function stripPatterns(text: string, pattern: string): string {
  if (pattern === "") return text;
  const regex = compileCfRegex(pattern, { global: true });
  if (regex instanceof PcreError) return text;
  let bytes = toByteString(text);
  const limit = bytes.length;
  for (let count = 0; count <= limit; count++) {
    const match = searchBytes(regex, bytes);
    if (!match) break;
    bytes = bytes.slice(0, match.start) + bytes.slice(match.end);
    if (match.start === match.end) break;
  }
  return fromByteString(bytes);
}

/** Lines as C's line reader yields them: a final newline does not start another line. */
export function readLines(content: string): string[] {
  const lines = content.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}
