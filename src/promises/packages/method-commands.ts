/**
 * What package_method promises run and match: commands (through the
 * shell unless `package_commands_useshell => "false"`, run by the
 * commands promise type's runner) and regexes as 3.21 applies them —
 * anchored at both ends (FullTextMatch), or the first group of the first
 * match (ExtractFirstReference, `CF_NOMATCH` when there is none).
 */
import { fromByteString, toByteString } from "../../eval/regex/bytes.js";
import { compileCfRegex, matchesFully, searchBytes } from "../../eval/regex/match.js";
import { PcreError } from "../../eval/regex/pcre.js";
import { runContained } from "../commands/process.js";

export interface MethodCommandResult {
  /** Null when the command could not run to its end. */
  readonly exitCode: number | null;
  /** Its output (standard output and error), line by line. */
  readonly lines: string[];
}

/** Runs a package manager command and waits for it. */
export function runMethodCommand(command: string, useShell: boolean): MethodCommandResult {
  const result = runContained({
    commandLine: command,
    shell: useShell ? "useshell" : "noshell",
    umask: 0o077,
  });
  const text = result.output.toString("utf8");
  const lines = text === "" ? [] : text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return { exitCode: result.exitCode, lines };
}

/** Whether the regex matches the whole text (false when it does not compile). */
export function fullTextMatch(regex: string, text: string): boolean {
  const matched = matchesFully(regex, text);
  return matched === true;
}

/** The first group of the first match; `CF_NOMATCH` when empty or unmatched, "" without a regex. */
export function extractFirstReference(regex: string | undefined, text: string): string {
  if (regex === undefined) return "";
  const compiled = compileCfRegex(regex, { global: true });
  if (compiled instanceof PcreError) return "";
  const match = searchBytes(compiled, toByteString(text));
  const group = match?.groups[1];
  const value = group === undefined ? "" : fromByteString(group);
  return value === "" ? "CF_NOMATCH" : value;
}

/** A word as sscanf's `%s` takes it: the first run of non-blanks. */
export function firstWord(text: string): string {
  return /\S+/.exec(text)?.[0] ?? "";
}

/**
 * (name, version, arch) picked out of a line by the first group of each
 * regex (without an arch regex, `defaultArch`); undefined when one of them
 * does not match, as 3.21 drops such lines.
 */
export function pickPackage(
  line: string,
  [name, version, arch]: readonly [string | undefined, string | undefined, string | undefined],
  defaultArch: string,
): { name: string; version: string; arch: string } | undefined {
  const item = {
    name: firstWord(extractFirstReference(name, line)),
    version: firstWord(extractFirstReference(version, line)),
    arch: arch ? firstWord(extractFirstReference(arch, line)) : defaultArch,
  };
  return [item.name, item.version, item.arch].includes("CF_NOMATCH") ? undefined : item;
}
