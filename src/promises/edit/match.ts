/**
 * The two regex tests of edit_line promises, as cf-agent 3.21 makes them:
 * a full match (the text equal to the pattern, or the first match of the
 * pattern starting at the text's start and reaching its end) and a search
 * for the first match anywhere. A pattern that does not compile logs
 * cf-agent's error and matches nothing.
 */
import { toByteString } from "../../eval/regex/bytes.js";
import { type ByteMatch, compileCfRegex, matchesFully, searchBytes } from "../../eval/regex/match.js";
import { PcreError, type PcreRegExp } from "../../eval/regex/pcre.js";
import type { PromiseEnvironment } from "../contract.js";

function logBadPattern(env: PromiseEnvironment, pattern: string, error: PcreError): void {
  env.log.error(
    `Regular expression error: pcre_compile() '${error.reason}' in expression '${pattern}' (offset: ${error.offset})`,
  );
}

/** Whether `pattern` matches all of `text` (equal text matches without being a regex). */
export function fullTextMatch(env: PromiseEnvironment, pattern: string, text: string): boolean {
  if (pattern === text) return true;
  const result = matchesFully(pattern, text);
  if (result instanceof PcreError) {
    logBadPattern(env, pattern, result);
    return false;
  }
  return result;
}

/** The pattern compiled for searching, or undefined (after logging) when it does not compile. */
export function searchRegex(env: PromiseEnvironment, pattern: string): PcreRegExp | undefined {
  const regex = compileCfRegex(pattern, { global: true });
  if (!(regex instanceof PcreError)) return regex;
  logBadPattern(env, pattern, regex);
  return undefined;
}

/** The first match of `pattern` in `text` (offsets in UTF-8 bytes), or null. */
export function blockTextMatch(env: PromiseEnvironment, pattern: string, text: string): ByteMatch | null {
  const regex = searchRegex(env, pattern);
  return regex ? searchBytes(regex, toByteString(text)) : null;
}

/** Whether the pattern compiles (logging cf-agent's error when not). */
export function validRegex(env: PromiseEnvironment, pattern: string): boolean {
  return searchRegex(env, pattern) !== undefined;
}
