/**
 * `pathtype`: a promiser is a literal path, or (`regex`, or `guess` when it
 * holds regex characters) a path whose parts are anchored regular
 * expressions matched against directory entries, giving every path that
 * exists and matches.
 */
import { matchesFully } from "../../eval/regex/match.js";
import { readDirectory } from "./paths.js";

const REGEX_CHARACTERS = /[*+?^$|()[\]{}\\]/;

/** Whether a promiser is to be matched as a pattern. */
export function isPathPattern(promiser: string, pathtype: string | undefined): boolean {
  if (pathtype === "literal") return false;
  if (pathtype === "regex") return true;
  return REGEX_CHARACTERS.test(promiser);
}

/**
 * The paths a pattern promiser stands for, as cf-agent's
 * LocateFilePromiserGroup finds them: the first part holding a regular
 * expression is matched against the entries of the directory before it
 * (in the order the system lists them), and each match is expanded again
 * until no pattern is left. A directory that cannot be read stands for
 * itself: the partly expanded pattern is handed on as a path (cf-agent's
 * best effort for a directory still to be made). With `create`, a level
 * where nothing matched hands on the promiser itself.
 */
export function expandPathPattern(pattern: string, create = false): string[] {
  return expandFrom(pattern, pattern, create);
}

function expandFrom(wildpath: string, promiser: string, create: boolean): string[] {
  const parts = wildpath.split("/").filter((p) => p !== "");
  const at = parts.findIndex((p) => REGEX_CHARACTERS.test(p));
  if (at < 0) return [`/${parts.join("/")}`];
  const base = `/${parts.slice(0, at).join("/")}`;
  const rest = parts.slice(at + 1);
  let names: string[];
  try {
    names = readDirectory(base);
  } catch {
    return create ? [wildpath, promiser] : [wildpath];
  }
  const out: string[] = [];
  for (const name of names) {
    if (matchesFully(parts[at] ?? "", name) !== true) continue;
    const next = [base === "/" ? "" : base, name, ...rest].join("/");
    if (rest.length > 0 && next !== wildpath) out.push(...expandFrom(next, promiser, create));
    else out.push(next);
  }
  if (out.length === 0 && create) out.push(promiser);
  return out;
}
