/**
 * How a package_method promise looks at the installed packages, as 3.21
 * does: names compared with commas as underscores, versions compared
 * built in or by the body's commands (`$(v1)`, `$(v2)`), the largest
 * version in `package_file_repositories` whose file name fits
 * `package_name_convention`; and the verdicts it logs on the way.
 */
import { readdirSync } from "node:fs";
import type { Outcome } from "../outcome.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import type { MethodAttributes, VersionSelect } from "./method-body.js";
import { extractFirstReference, fullTextMatch, runMethodCommand } from "./method-commands.js";
import { type PackageItem, installedLists } from "./method-inventory.js";
import { type VersionVerdict, compareVersions } from "./method-versions.js";
import { recordOutcome } from "./outcome-log.js";

export interface Decision {
  readonly promise: ActivePromise;
  readonly env: PromiseEnvironment;
  readonly a: MethodAttributes;
}

const reported = (d: Decision) => !d.promise.promiser.startsWith("cfe_internal_");

type Level = "error" | "warning" | "info" | "verbose";

export function record(d: Decision, level: Level, outcome: Outcome, message: string): Outcome {
  return reported(d) ? recordOutcome(d.promise, d.env, level, outcome, message) : outcome;
}

/** `$(key)` and `${key}` replaced by the values (3.21 expands these in its packages scope). */
export function fillIn(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(
    /\$(?:\(([a-z0-9_]+)\)|\{([a-z0-9_]+)\})/g,
    (whole, round?: string, curly?: string) => {
      const key = round ?? curly ?? "";
      return values[key] ?? whole;
    },
  );
}

function runComparison(d: Decision, command: string, v1: string, v2: string): VersionVerdict {
  const line = fillIn(command, { v1, v2 });
  d.env.log.verbose(`Executing '${line}'`);
  const result = runMethodCommand(line, d.a.useShell);
  d.env.log.verbose(`returned: ${result.exitCode ?? -1}`);
  if (result.exitCode === null) {
    record(d, "error", "failed", `Error during package version comparison command execution '${line}'.`);
    return "error";
  }
  return result.exitCode === 0 ? "match" : "no-match";
}

export function versionsCompare(d: Decision, v1: string, v2: string, select: VersionSelect | undefined) {
  const commands = {
    less: d.a.text.package_version_less_command,
    equal: d.a.text.package_version_equal_command,
  };
  const note = (message: string) => d.env.log.verbose(message);
  const verdict = compareVersions(v1, v2, select, commands, (c, x, y) => runComparison(d, c, x, y), note);
  const text =
    verdict === "match" ? "yes" : verdict === "no-match" ? "no" : "Incompatible version format. Can't decide";
  d.env.log.verbose(
    `CompareVersions: Checked whether package version ${v1} ${select ?? "=="} ${v2}: ${text}`,
  );
  return verdict;
}

/** Names equal, commas counting as underscores (3.21's CompareCSVName). */
export const sameName = (a: string, b: string) => a.replaceAll(",", "_") === b.replaceAll(",", "_");

function installedItems(d: Decision): PackageItem[] {
  return installedLists(d.env).find((l) => l.command === (d.a.text.package_list_command ?? ""))?.items ?? [];
}

/** Whether an installed package is (name, version, arch); versions compared for equality. */
export function packageMatch(
  d: Decision,
  name: string,
  version: string,
  arch: string,
  mode: string,
): VersionVerdict {
  const manager = d.a.text.package_list_command ?? "";
  const log = d.env.log;
  log.verbose(
    `PackageMatch: looking for ${mode} (${name},${version},${arch}) [name,version,arch] in package manager ${manager}`,
  );
  for (const item of installedItems(d)) {
    const verdict = comparePackage(d, name, version, arch, item, mode);
    if (verdict === "no-match") continue;
    const shown = verdict === "match" ? "MATCH" : "ERROR";
    log.verbose(`PackageMatch: package comparison for ${mode} ${item.name} was decisive: ${shown}`);
    return verdict;
  }
  log.verbose(
    `PackageMatch did not find ${mode} packages to match the constraints of promise (${name},${version},${arch}) [name,version,arch]`,
  );
  return "no-match";
}

/** 3.21's ComparePackages: an item against (name, version, arch), versions compared for equality. */
export function comparePackage(
  d: Decision,
  name: string,
  version: string,
  arch: string,
  item: PackageItem,
  mode: string,
): VersionVerdict {
  const log = d.env.log;
  const given = `(${name},${version},${arch}) [name,version,arch]`;
  log.verbose(
    `Comparing ${mode} package (${item.name},${item.version},${item.arch}) to [==] with given ${given}`,
  );
  if (!sameName(name, item.name)) return "no-match";
  log.verbose(`Matched ${mode} name '${name}'`);
  if (arch !== "*") {
    if (arch !== item.arch) return "no-match";
    log.verbose(`Matched ${mode} arch '${arch}'`);
  } else log.verbose(`Matched ${mode} wildcard arch '${arch}'`);
  if (version === "*") {
    log.verbose(`Matched ${mode} wildcard version '${version}'`);
    return "match";
  }
  const verdict = versionsCompare(d, item.version, version, "==");
  const shown = verdict === "match" ? "MATCH" : verdict === "no-match" ? "NO_MATCH" : "ERROR";
  log.verbose(
    `Version comparison returned ${shown} for ${mode} package (${item.name},${item.version},${item.arch}) to [==] with given ${given}`,
  );
  return verdict;
}

/** The installed version older than `version` (`<` compared), if one of that name and arch is installed. */
export function olderInstalled(d: Decision, name: string, version: string, arch: string) {
  d.env.log.verbose(
    `Looking for an installed package older than (${name},${version},${arch}) [name,version,arch]`,
  );
  const item = installedItems(d).find((i) => i.name === name && (arch === "*" || arch === i.arch));
  if (!item) {
    d.env.log.verbose(`Package (${name},${arch}) [name,arch] is not installed`);
    return { older: false, version: "", arch: "" };
  }
  d.env.log.verbose(
    `Found installed package (${item.name},${item.version},${item.arch}) [name,version,arch]`,
  );
  return {
    older: versionsCompare(d, item.version, version, "<") === "match",
    version: item.version,
    arch: item.arch,
  };
}

/** Escapes a name pattern for a regex, leaving `(.*)` as is. */
function escapeExceptAnyVersion(text: string): string {
  return text
    .split("(.*)")
    .map((part) => part.replace(/[^a-zA-Z0-9]/g, (c) => `\\${c}`))
    .join("(.*)");
}

/** The largest version in the repositories whose file name fits the name convention. */
export function largestInRepositories(d: Decision, name: string, version: string, arch: string) {
  const convention = d.a.text.package_name_convention;
  const pattern = escapeExceptAnyVersion(
    convention ? fillIn(convention, { name, version: "(.*)", arch }) : "",
  );
  let best = { file: "", version: version === "*" ? "" : version, found: false };
  for (const repository of d.a.fileRepositories) {
    let entries: string[];
    try {
      entries = readdirSync(repository);
    } catch (error) {
      d.env.log.error(`Can't open local directory '${repository}'. (opendir: ${(error as Error).message})`);
      continue;
    }
    for (const entry of [".", "..", ...entries]) {
      if (!fullTextMatch(pattern, entry)) continue;
      const found = extractFirstReference(pattern, entry);
      if (versionsCompare(d, found, best.version, d.a.select) === "match")
        best = { file: entry, version: found, found: true };
    }
  }
  return best;
}
