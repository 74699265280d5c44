/**
 * The operations package_method promises schedule, and their execution
 * once the bundle's packages promises of a pass were all seen (3.21's
 * ExecuteScheduledPackages): deletions first, then additions, updates and
 * verifications. Each manager (an operation's command and the body's
 * `package_changes`) runs its command once per package (`individual`) or
 * once with every package (`bulk`); a command ending in `$` takes no
 * package names. The outcome of each run defines the promise's classes.
 */
import { existsSync } from "node:fs";
import type { Outcome } from "../outcome.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import type { RunSlot } from "../run-state.js";
import { isExecutable } from "../commands/executable.js";
import { judgeExit, readReturnCodes } from "../commands/verdict.js";
import { commandArg0 } from "../../eval/functions/exec.js";
import type { MethodAttributes } from "./method-body.js";
import { fullTextMatch, runMethodCommand } from "./method-commands.js";
import { type PackageItem, forgetInstalledLists, invalidateSoftwareCache } from "./method-inventory.js";
import { recordOutcome } from "./outcome-log.js";

export type Operation = "add" | "delete" | "update" | "verify" | "patch";

interface ScheduledItem extends PackageItem {
  readonly promise: ActivePromise;
  readonly attributes: MethodAttributes;
}

interface Manager {
  readonly command: string;
  readonly operation: Operation;
  readonly changes: MethodAttributes["changes"];
  /** Newest first, as 3.21 prepends. */
  readonly items: ScheduledItem[];
}

/** The managers of the pass, newest first (emptied when they have run). */
const SCHEDULE: RunSlot<Manager[]> = { name: "package_method schedule", create: () => [] };

/** Adds a package to the manager of `command` (created for `operation` when new). */
export function schedule(
  env: PromiseEnvironment,
  command: string,
  operation: Operation,
  item: ScheduledItem,
): void {
  const managers = env.runState.get(SCHEDULE);
  const changes = item.attributes.changes;
  env.log.verbose(`Looking for a package manager called '${command}'`);
  let manager = managers.find((m) => m.command === command && m.changes === changes);
  if (!manager) {
    manager = { command, operation, changes, items: [] };
    managers.unshift(manager);
  }
  env.log.verbose(`Package (${item.name},${item.version},${item.arch}) [name,version,arch] found`);
  manager.items.unshift(item);
}

/** The package's file in the first of the body's `package_file_repositories` holding it, quoted. */
export function prefixLocalRepository(repositories: readonly string[], name: string): string | undefined {
  for (const repository of repositories) {
    const path = `${repository.endsWith("/") ? repository : `${repository}/`}${name}`;
    if (existsSync(path)) return `"${path}"`;
  }
  return undefined;
}

function repositoryPath(item: ScheduledItem): string | undefined {
  const repositories = item.attributes.fileRepositories;
  return repositories.length > 0 ? prefixLocalRepository(repositories, item.name) : item.name;
}

const NOT_REPORTED = (promise: ActivePromise) => promise.promiser.startsWith("cfe_internal_");

/** Runs one command for a promise; whether it went well (3.21's ExecPackageCommand). */
function execPackageCommand(
  env: PromiseEnvironment,
  command: string,
  verify: boolean,
  item: ScheduledItem,
): boolean {
  const { promise, attributes: a } = item;
  const record = (level: Parameters<typeof recordOutcome>[2], outcome: Outcome, message: string): Outcome =>
    NOT_REPORTED(promise) ? outcome : recordOutcome(promise, env, level, outcome, message);
  if (!a.useShell && !isExecutable(commandArg0(command), env)) {
    record("error", "failed", `The proposed package schedule command '${command}' was not executable`);
    return false;
  }
  if (env.dryRun) return true;
  if (a.useShell) env.log.verbose(`Running ${command} in shell`);
  const result = runMethodCommand(command, a.useShell);
  env.log.verbose(`Executing ${command.slice(0, 60)}...`);
  // 3.21 quotes output after the command from its program's base name on.
  const space = command.indexOf(" ");
  const short = command.slice(command.lastIndexOf("/", (space === -1 ? command.length : space) - 1) + 1);
  let ok = true;
  for (const line of result.lines) {
    env.log.info(`Q:${short.slice(0, 20).padStart(20)} ...:${line}`);
    const noverify = a.text.package_noverify_regex;
    if (verify && line !== "" && noverify !== undefined && fullTextMatch(noverify, line)) {
      record("info", "failed", `Package verification error in ${short.slice(0, 40)} ... :${line}`);
      ok = false;
    }
  }
  const status = result.exitCode ?? -1;
  if (verify && a.noverifyReturncode !== undefined) {
    if (a.noverifyReturncode === status) {
      record("info", "failed", `Package verification error (returned ${status})`);
      return false;
    }
    record("info", "kept", `Package verification succeeded (returned ${status})`);
    return ok;
  }
  if (verify && a.text.package_noverify_regex !== undefined) {
    if (ok) record("info", "kept", "Package verification succeeded (no match with package_noverify_regex)");
    return ok;
  }
  if (NOT_REPORTED(promise)) return ok;
  const verdict = judgeExit(record, promise.promiser, result.exitCode, true, readReturnCodes(promise));
  return verdict !== "failed";
}

const OPERATION_WORDS: Readonly<Record<Operation, [string, string | undefined]>> = {
  add: ["addition", "Installing"],
  delete: ["deletion", "Deleting"],
  update: ["update", "Updating"],
  verify: ["verification", undefined],
  patch: ["patch", undefined],
};

/** Patches: one promise's attributes for all, and a command ending in `$` loses it. */
function runPatchManager(env: PromiseEnvironment, manager: Manager, first: ScheduledItem): void {
  env.log.verbose("Execute scheduled package patch");
  if (manager.command.endsWith("$")) {
    env.log.verbose("Command does not allow arguments");
    if (execPackageCommand(env, manager.command.slice(0, -1), false, first))
      env.log.verbose("Package patching seemed to succeed (outcome cannot be promised by cf-agent)");
    else env.log.error("Package patching failed");
    return;
  }
  const prefix = `${manager.command} `;
  env.log.verbose(`Command prefix '${prefix}'`);
  const names = manager.items.map((item) => item.name);
  const runs =
    manager.changes === "individual" ? names.map((n) => [n]) : manager.changes === "bulk" ? [names] : [];
  for (const run of runs) {
    const command =
      manager.changes === "bulk" ? `${prefix}${run.map((n) => `${n} `).join("")}` : prefix + run[0];
    const ok = execPackageCommand(env, command, false, first);
    for (const name of run) {
      if (name === "cfe_internal_non_existing_package") continue;
      const bulk = manager.changes === "bulk" ? "Bulk package" : "Package";
      if (ok)
        env.log.verbose(
          `${bulk} schedule execution ok for '${name}' (outcome cannot be promised by cf-agent)`,
        );
      else if (manager.changes === "bulk")
        env.log.error(`Bulk package schedule execution failed somewhere - unknown outcome for '${name}'`);
      else env.log.error(`Package schedule execution failed for '${name}'`);
    }
  }
}

function runManager(env: PromiseEnvironment, manager: Manager): void {
  const first = manager.items[0];
  if (!first) return;
  if (manager.operation === "patch") {
    runPatchManager(env, manager, first);
    return;
  }
  const [noun, verb] = OPERATION_WORDS[manager.operation];
  env.log.verbose(`Execute scheduled package ${noun}`);
  if (verb) env.log.info(`${verb} ${first.promise.promiser.slice(0, 39)}...`);
  const verify = manager.operation === "verify";
  if (manager.command.endsWith("$")) {
    env.log.verbose("Command does not allow arguments");
    if (execPackageCommand(env, manager.command, verify, first))
      env.log.verbose("Package schedule execution ok (outcome cannot be promised by cf-agent)");
    else env.log.error("Package schedule execution failed");
    return;
  }
  const prefix = `${manager.command} `;
  env.log.verbose(`Command prefix '${prefix}'`);
  const fromRepository = manager.operation === "add" || manager.operation === "update";
  if (manager.changes === "individual") {
    for (const item of manager.items) {
      const path = fromRepository ? repositoryPath(item) : item.name;
      if (path === undefined) continue;
      const ok = execPackageCommand(env, prefix + path, verify, item);
      if (item.name === "cfe_internal_non_existing_package") continue;
      if (ok)
        env.log.verbose(
          `Package schedule execution ok for '${item.name}' (outcome cannot be promised by cf-agent)`,
        );
      else env.log.error(`Package schedule execution failed for '${item.name}'`);
    }
  } else if (manager.changes === "bulk") {
    let command = prefix;
    for (const item of manager.items) {
      const path = fromRepository ? repositoryPath(item) : item.name;
      if (path === undefined) break;
      command += `${path} `;
    }
    const ok = execPackageCommand(env, command, verify, first);
    for (const item of manager.items) {
      if (item.name === "cfe_internal_non_existing_package") continue;
      if (ok)
        env.log.verbose(
          `Bulk package schedule execution ok for '${item.name}' (outcome cannot be promised by cf-agent)`,
        );
      else
        env.log.error(
          `Bulk package schedule execution failed somewhere - unknown outcome for '${item.name}'`,
        );
    }
  }
}

function executeOperation(env: PromiseEnvironment, managers: readonly Manager[], operation: Operation): void {
  let verified = false;
  for (const manager of managers) {
    if (manager.operation !== operation || manager.items.length === 0) continue;
    runManager(env, manager);
    verified ||= operation === "verify";
  }
  // Something may have changed: the list of installed packages is stale.
  if (!verified || operation === "patch") invalidateSoftwareCache(env);
}

/** Runs what the pass scheduled, then forgets it and the pass's package lists. */
export function runScheduledOperations(env: PromiseEnvironment): void {
  const scheduled = env.runState.get(SCHEDULE);
  const managers = scheduled.splice(0, scheduled.length);
  if (managers.length > 0) {
    env.log.verbose("Offering the following package-promise suggestions to the managers");
    for (const [operation, title] of [
      ["delete", "Deletion"],
      ["add", "Addition"],
      ["update", "Update"],
      ["patch", "Patch"],
      ["verify", "Verify"],
    ] as const) {
      env.log.verbose(`${title} schedule...`);
      executeOperation(env, managers, operation);
    }
  }
  forgetInstalledLists(env);
}
