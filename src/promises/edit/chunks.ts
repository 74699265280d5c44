/**
 * Matching a promiser of several lines (split at newlines) against the
 * file's lines, and cf-agent's splitting of a string into items.
 */
import type { PromiseEnvironment } from "../contract.js";
import type { Line } from "./lines.js";
import { fullTextMatch } from "./match.js";

/**
 * How many lines of `chunk` match the file from `begin` on, one line each
 * (as text, or as full regexes); 0 unless every piece matches, none of the
 * matched lines is `end`, and the file does not run out first.
 */
export function matchRegion(
  env: PromiseEnvironment,
  chunk: string,
  begin: Line | null,
  end: Line | null,
  regex: boolean,
): number {
  const pieces = chunk.split("\n");
  let line = begin;
  let count = 0;
  for (let k = 0; k < pieces.length; k++) {
    const piece = pieces[k] as string;
    if (!line) return 0;
    if (regex ? !fullTextMatch(env, piece, line.text) : piece !== line.text) return 0;
    count++;
    if (line === end) return 0;
    if (line.next) line = line.next;
    else if (k < pieces.length - 1) return 0;
    else break;
  }
  return count;
}

/**
 * Splits at `sep` as cf-agent's SplitString does: a backslash before `sep`
 * or before another backslash escapes it (and goes); other backslashes stay.
 */
export function splitString(text: string, sep: string): string[] {
  const out: string[] = [];
  let piece = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === "\\") {
      const next = text[i + 1];
      if (next === "\\" || next === sep) {
        piece += next;
        i++;
      } else piece += c;
    } else if (c === sep) {
      out.push(piece);
      piece = "";
    } else piece += c;
  }
  out.push(piece);
  return out;
}
