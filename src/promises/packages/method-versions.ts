/**
 * Comparing package versions as 3.21 does for package_method promises:
 * with the body's `package_version_less_command` /
 * `package_version_equal_command` (exit 0 means yes; `$(v1)` and `$(v2)`
 * are the versions), else with the built-in comparison, which splits a
 * version into alphanumeric parts and the separators between them,
 * refuses versions whose separators differ, and compares the parts as
 * strings, left to right.
 */
import type { VersionSelect } from "./method-body.js";

/** Yes, no, or the versions cannot be compared. */
export type VersionVerdict = "match" | "no-match" | "error";

/** Runs a comparison command (its variables filled in); undefined when it could not run. */
export type RunComparison = (command: string) => number | undefined;

export interface VersionCommands {
  readonly less?: string;
  readonly equal?: string;
}

function parts(version: string): { numbers: string[]; separators: string[] } {
  const numbers: string[] = [];
  const separators: string[] = [];
  const text = version.replaceAll(",", "_");
  let i = 0;
  while (i < text.length) {
    const word = /^[0-9a-zA-Z]{0,29}/.exec(text.slice(i))?.[0] ?? "";
    numbers.push(word);
    i += word.length;
    if (i >= text.length) break;
    separators.push(text[i] ?? "");
    i++;
  }
  return { numbers, separators };
}

function compatible(a: string[], b: string[]): boolean {
  for (let i = 0; i < a.length && i < b.length; i++) {
    if (a[i] !== b[i]) return false;
    if (i === a.length - 1 && i === b.length - 1) return true;
  }
  return true;
}

function decide(cmp: VersionSelect, order: number, equal: boolean): "match" | "stop" | "next" {
  switch (cmp) {
    case "==":
      return equal ? "match" : "next";
    case "!=":
      return equal ? "next" : "match";
    case ">":
      return order > 0 ? "match" : order < 0 ? "stop" : "next";
    case "<":
      return order < 0 ? "match" : order > 0 ? "stop" : "next";
    case ">=":
      return order > 0 || equal ? "match" : order < 0 ? "stop" : "next";
    default:
      return order < 0 || equal ? "match" : order > 0 ? "stop" : "next";
  }
}

/** Where the built-in comparison says what it found (verbose lines). */
export type VersionNote = (message: string) => void;

/** The built-in comparison: whether `v1 cmp v2`. */
export function compareVersionsBuiltin(
  v1: string,
  v2: string,
  cmp: VersionSelect,
  note: VersionNote = () => {},
): VersionVerdict {
  const left = parts(v1);
  const right = parts(v2);
  note(`Check for compatible versioning model in (${v1},${v2})`);
  if (!compatible(left.separators, right.separators)) {
    note(`Versioning models for (${v1},${v2}) were incompatible`);
    return "error";
  }
  note("Verified that versioning models are compatible");
  const equal = v1 === v2;
  let verdict: VersionVerdict = "no-match";
  let i = 0;
  for (; i < left.numbers.length && i < right.numbers.length; i++) {
    const a = left.numbers[i] ?? "";
    const b = right.numbers[i] ?? "";
    const order = a < b ? -1 : a > b ? 1 : 0;
    const step = decide(cmp, order, equal);
    if (step === "match") return "match";
    if (step === "stop") return verdict;
  }
  // One version has more parts: the longer is the greater.
  if (i < left.numbers.length && (cmp === ">" || cmp === ">=")) verdict = "match";
  if (i < right.numbers.length && (cmp === "<" || cmp === "<=")) verdict = "match";
  return verdict;
}

function invert(verdict: VersionVerdict): VersionVerdict {
  return verdict === "error" ? verdict : verdict === "match" ? "no-match" : "match";
}

function both(a: VersionVerdict, b: VersionVerdict): VersionVerdict {
  if (a === "error" || b === "error") return "error";
  return a === "match" && b === "match" ? "match" : "no-match";
}

/** Compares with the body's commands when it has them, else built in. */
export function compareVersions(
  v1: string,
  v2: string,
  cmp: VersionSelect | undefined,
  commands: VersionCommands,
  run: (command: string, v1: string, v2: string) => VersionVerdict,
  note?: VersionNote,
): VersionVerdict {
  const less = (a: string, b: string): VersionVerdict =>
    commands.less !== undefined ? run(commands.less, a, b) : compareVersionsBuiltin(a, b, "<", note);
  const equal = (a: string, b: string): VersionVerdict => {
    if (commands.equal !== undefined) return run(commands.equal, a, b);
    if (commands.less !== undefined) {
      // cf-agent (as built by gcc) runs the second comparison first.
      const reverse = invert(less(b, a));
      return both(invert(less(a, b)), reverse);
    }
    return compareVersionsBuiltin(a, b, "==", note);
  };
  switch (cmp ?? "==") {
    case "==":
      return equal(v1, v2);
    case "!=":
      return invert(equal(v1, v2));
    case "<":
      return less(v1, v2);
    case ">":
      return less(v2, v1);
    case ">=":
      return invert(less(v1, v2));
    default:
      return invert(less(v2, v1));
  }
}
