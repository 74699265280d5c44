/**
 * The installed packages of a package_method, as 3.21 finds them: read
 * from `software_packages.csv` in the state directory while it is fresh
 * (`package_list_update_ifelapsed` minutes, a day by default) and lists
 * this manager, else by running `package_list_command` and picking name,
 * version and architecture out of each line that matches
 * `package_installed_regex` (or of each `package_multiline_start` group).
 * Each listing rewrites the CSV file with every list known in the pass.
 *
 * A manager is named after its list command; the CSV file names it by the
 * program's last path element, an `env` prefix skipped.
 */
import { closeSync, openSync, statSync, utimesSync } from "node:fs";
import { posix } from "node:path";
import { commandArg0 } from "../../eval/functions/exec.js";
import {
  formatCsvField,
  legacyInventoryPath,
  readInventoryLines,
} from "../../providers/packages/inventory.js";
import { parseCsvLine } from "../../eval/functions/system-tables.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import type { RunSlot } from "../run-state.js";
import { writeFileAtomically } from "../../system/atomic.js";
import { stateDirectory } from "./module-session.js";
import type { MethodAttributes } from "./method-body.js";
import {
  extractFirstReference,
  firstWord,
  fullTextMatch,
  pickPackage,
  runMethodCommand,
} from "./method-commands.js";
import { readPatches } from "./method-patch-list.js";

/** One package: installed, available, or scheduled for an operation by a promise. */
export interface PackageItem {
  readonly name: string;
  readonly version: string;
  readonly arch: string;
  readonly promise?: ActivePromise;
}

export interface InstalledList {
  readonly command: string;
  /** Newest first, as 3.21 prepends. */
  items: PackageItem[];
  /** Patches `package_patch_list_command` lists as installed, and as available. */
  patches: PackageItem[];
  availablePatches: PackageItem[];
}

/** The lists of the pass (3.21 forgets them after each packages section). */
const LISTS: RunSlot<{ lists: InstalledList[] }> = {
  name: "package_method installed lists",
  create: () => ({ lists: [] }),
};

export function installedLists(env: PromiseEnvironment): InstalledList[] {
  return env.runState.get(LISTS).lists;
}

export function forgetInstalledLists(env: PromiseEnvironment): void {
  env.runState.get(LISTS).lists = [];
}

/** 3.21's RealPackageManager + ReadLastNode: `env A=b /usr/bin/rpm -qa` is `rpm`. */
export function managerName(command: string): string {
  const space = command.indexOf(" ");
  const isEnv = command.startsWith("env ") || (space >= 4 && command.slice(space - 4, space) === "/env");
  let program = commandArg0(command);
  if (isEnv) {
    const words = command
      .slice(space + 1)
      .trim()
      .split(/ +/);
    const real = words.find((word) => !word.includes("="));
    program = real === undefined ? program : commandArg0(real);
  }
  return program.slice(program.lastIndexOf("/") + 1);
}

/** Prepends an item unless a field is empty (3.21 drops those). */
export function prependItem(list: PackageItem[], item: PackageItem, env: PromiseEnvironment): boolean {
  if (!item.name || !item.version || !item.arch) return false;
  env.log.verbose(`Package (${item.name},${item.version},${item.arch}) [name,version,arch] found`);
  list.unshift(item);
  return true;
}

/** Rewrites software_packages.csv with every list of the pass. */
function reportSoftware(env: PromiseEnvironment): void {
  const lines: string[] = [];
  for (const list of installedLists(env)) {
    for (const item of list.items) {
      const fields = [item.name, item.version, item.arch, managerName(list.command)];
      lines.push(`${fields.map(formatCsvField).join(",")}\r\n`);
    }
  }
  const path = legacyInventoryPath(stateDirectory(env), "installed");
  try {
    writeFileAtomically(path, lines.join(""), 0o600);
  } catch (error) {
    env.log.error(`Cannot open the destination file '${path}'. (fopen: ${(error as Error).message})`);
  }
}

/** After an operation the list is stale: 3.21 dates the file back to 1970. */
export function invalidateSoftwareCache(env: PromiseEnvironment): void {
  try {
    utimesSync(legacyInventoryPath(stateDirectory(env), "installed"), 0, 0);
  } catch {
    // No cache yet: nothing to invalidate.
  }
}

function cachedList(env: PromiseEnvironment, a: MethodAttributes, command: string, defaultArch: string) {
  const path = legacyInventoryPath(stateDirectory(env), "installed");
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return undefined;
  const horizon = a.listUpdateIfelapsed ?? 24 * 60;
  if (Date.now() - stat.mtimeMs >= horizon * 60_000) {
    env.log.verbose(`Cache file '${path}' exists, but it is out of date (package_list_update_ifelapsed)`);
    return undefined;
  }
  env.log.verbose(
    `Cache file '${path}' exists and is sufficiently fresh according to (package_list_update_ifelapsed)`,
  );
  const manager = managerName(command);
  const items: PackageItem[] = [];
  for (const line of readInventoryLines(path) ?? []) {
    const [name = "", version = "", arch = "", mgr = ""] = parseCsvLine(line.replace(/\r$/, ""));
    if (mgr !== manager) continue;
    prependItem(items, { name, version, arch: arch === "default" ? defaultArch : arch }, env);
  }
  return items.length > 0 ? items : undefined;
}

function listItem(line: string, a: MethodAttributes, defaultArch: string): PackageItem | undefined {
  const t = a.text;
  const regexes = [
    t.package_list_name_regex,
    t.package_list_version_regex,
    t.package_list_arch_regex,
  ] as const;
  return pickPackage(line, regexes, defaultArch);
}

/** Groups of lines, each starting at a `package_multiline_start` line. */
function multilineItems(lines: string[], a: MethodAttributes, defaultArch: string, env: PromiseEnvironment) {
  const items: PackageItem[] = [];
  const t = a.text;
  let name = "";
  let version = "";
  let arch = "";
  const flush = (): void => {
    if (name === "CF_NOMATCH" || version === "CF_NOMATCH") return;
    if (name !== "" || version !== "") prependItem(items, { name, version, arch }, env);
  };
  const pick = (regex: string | undefined, line: string): string | undefined =>
    regex !== undefined && fullTextMatch(regex, line)
      ? firstWord(extractFirstReference(regex, line))
      : undefined;
  for (const line of [...lines, undefined]) {
    if (line === undefined || fullTextMatch(t.package_multiline_start ?? "", line)) {
      flush();
      name = "CF_NOMATCH";
      version = "CF_NOMATCH";
      arch = defaultArch;
    }
    if (line === undefined) break;
    name = pick(t.package_list_name_regex, line) ?? name;
    version = pick(t.package_list_version_regex, line) ?? version;
    arch = pick(t.package_list_arch_regex, line) ?? arch;
  }
  return items;
}

/** Runs `package_list_update_command` when its timestamp file is older than the horizon. */
function updateListIfDue(env: PromiseEnvironment, a: MethodAttributes): boolean {
  const update = a.text.package_list_update_command;
  if (update === undefined) return true;
  if (a.text.package_add_command === undefined) {
    env.log.error("package_add_command missing while trying to generate list of installed packages");
    return false;
  }
  const stamp = posix.join(
    stateDirectory(env),
    `software_update_timestamp_${managerName(a.text.package_add_command)}`,
  );
  const stat = statSync(stamp, { throwIfNoEntry: false });
  const horizon = a.listUpdateIfelapsed ?? 24 * 60;
  let due = true;
  if (stat) {
    due = Date.now() - stat.mtimeMs >= horizon * 60_000;
    const [rel, action] = due ? ["more", "Updating"] : ["less", "Not updating"];
    env.log.verbose(
      `'${stamp}' is ${rel} than ${a.listUpdateIfelapsed ?? -678} minutes old. ${action} package list.`,
    );
  } else env.log.verbose(`'${stamp}' does not exist. Updating package list.`);
  if (!due) return true;
  env.log.verbose(`Calling package list update command: '${update}'`);
  runMethodCommand(update, a.useShell);
  try {
    const now = new Date();
    if (stat) utimesSync(stamp, now, now);
    else closeSync(openSync(stamp, "w", 0o600));
  } catch (error) {
    env.log.error(`Could not create timestamp file '${stamp}'. (open: '${(error as Error).message}')`);
  }
  return true;
}

/** Lists the installed packages by running the list command; undefined when it fails. */
function listFromCommand(env: PromiseEnvironment, a: MethodAttributes, defaultArch: string) {
  if (!updateListIfDue(env, a)) return undefined;
  const command = a.text.package_list_command ?? "";
  env.log.verbose(`Reading package list from '${command}'`);
  const result = runMethodCommand(command, a.useShell);
  const lines = result.lines;
  if (a.text.package_multiline_start !== undefined) {
    return { items: multilineItems(lines, a, defaultArch, env), ok: result.exitCode === 0 };
  }
  const items: PackageItem[] = [];
  for (const line of lines) {
    if (!fullTextMatch(a.text.package_installed_regex ?? "", line)) {
      env.log.verbose(`Package line '${line}' did not match the package_installed_regex pattern`);
      continue;
    }
    const item = listItem(line, a, defaultArch);
    if (!item || !prependItem(items, item, env)) {
      env.log.verbose(
        `Package line '${line}' did not match one of the package_list_(name|version|arch)_regex patterns`,
      );
    }
  }
  return { items, ok: result.exitCode === 0 };
}

/**
 * Makes sure the pass knows the installed packages of the promise's
 * manager; false (logged) when they cannot be listed.
 */
export function verifyInstalledPackages(
  env: PromiseEnvironment,
  a: MethodAttributes,
  defaultArch: string,
): boolean {
  const command = a.text.package_list_command ?? "";
  env.log.verbose(`Looking for a package manager called '${command}'`);
  const lists = installedLists(env);
  let list = lists.find((l) => l.command === command);
  if (!list) {
    list = { command, items: [], patches: [], availablePatches: [] };
    lists.unshift(list);
  }
  if (list.items.length > 0) {
    env.log.verbose("Already have a package list for this manager");
    return true;
  }
  const cached = cachedList(env, a, command, defaultArch);
  if (cached) {
    list.items = cached;
    env.log.verbose("Already have a (cached) package list for this manager ");
    return true;
  }
  if (a.text.package_list_command === undefined) return true;
  const listed = listFromCommand(env, a, defaultArch);
  list.items = listed?.items ?? [];
  if (!listed?.ok) {
    env.log.error("Could not get list of installed packages");
    return false;
  }
  reportSoftware(env);
  if (!readPatches(env, a, list, defaultArch)) return false;
  if (a.text.package_patch_list_command !== undefined)
    env.log.verbose("Patch reporting feature is only available in the enterprise version");
  env.log.verbose("Done checking packages and patches");
  return true;
}
