/**
 * Regex-driven text helpers shared by file and network functions, with
 * 3.21's semantics (`RlistFromSplitRegex`, `StripPatterns`).
 */
import { compileRegex } from "./args.js";

/**
 * Splits `text` at each match of `pattern`, keeping at most `max` pieces
 * (the rest of the string is dropped). Blank pieces are kept only with
 * `allowBlanks`, and a blank tail only if something was split off before it.
 * A pattern that does not compile splits nothing.
 */
export function splitByRegex(text: string, pattern: string, max: number, allowBlanks: boolean): string[] {
  // CFEngine compiles every regex multi-line with `.` matching newlines.
  const regex = compileRegex(pattern, "ms");
  const out: string[] = [];
  let rest = text;
  while (regex && out.length < max) {
    const match = regex.exec(rest);
    if (!match) break;
    const end = match.index + match[0].length;
    // An empty match at the start would never advance.
    if (end === 0) break;
    const piece = rest.slice(0, match.index);
    if (allowBlanks || piece !== "") out.push(piece);
    rest = rest.slice(end);
  }
  if (out.length < max && ((allowBlanks && rest !== text) || rest !== "")) out.push(rest);
  return out;
}

/** Removes every match of `pattern` (first match first, again and again); an empty pattern removes nothing. */
export function stripPatterns(text: string, pattern: string): string {
  const regex = pattern === "" ? undefined : compileRegex(pattern, "ms");
  if (!regex) return text;
  let out = text;
  for (let count = 0; count <= out.length; count++) {
    const match = regex.exec(out);
    if (!match) break;
    out = out.slice(0, match.index) + out.slice(match.index + match[0].length);
    if (match[0] === "") break;
  }
  return out;
}

/** Lines as C's line reader yields them: a final newline does not start another line. */
export function readLines(content: string): string[] {
  const lines = content.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}
