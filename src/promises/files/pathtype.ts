/**
 * `pathtype`: a promiser is a literal path, or (`regex`, or `guess` when it
 * holds regex characters) a path whose parts are anchored regular
 * expressions matched against directory entries, giving every path that
 * exists and matches.
 */
import { readdirSync } from "node:fs";
import { matchesFully } from "../../eval/regex/match.js";

const REGEX_CHARACTERS = /[*+?^$|()[\]{}\\]/;

/** Whether a promiser is to be matched as a pattern. */
export function isPathPattern(promiser: string, pathtype: string | undefined): boolean {
  if (pathtype === "literal") return false;
  if (pathtype === "regex") return true;
  return REGEX_CHARACTERS.test(promiser);
}

/** The existing paths a pattern promiser matches, in directory order sorted by name. */
export function expandPathPattern(pattern: string): string[] {
  let paths = [""];
  for (const part of pattern.split("/").slice(1)) {
    const next: string[] = [];
    for (const base of paths) {
      if (!REGEX_CHARACTERS.test(part)) {
        next.push(`${base}/${part}`);
        continue;
      }
      for (const entry of listDirectory(base || "/")) {
        if (matchesFully(part, entry) === true) next.push(`${base}/${entry}`);
      }
    }
    paths = next;
  }
  return paths;
}

function listDirectory(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}
