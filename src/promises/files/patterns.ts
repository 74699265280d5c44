/**
 * Lists of names or regular expressions in files promises (`exclude_dirs`,
 * `copy_patterns`, `linkcopy_patterns`, ...): an item matches a text it
 * equals, or that it matches as an anchored regular expression.
 */
import { matchesFully } from "../../eval/regex/match.js";

export function matchesAny(patterns: readonly string[], text: string): boolean {
  return patterns.some((p) => p === text || matchesFully(p, text) === true);
}
