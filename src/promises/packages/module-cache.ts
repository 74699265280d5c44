/**
 * The inventory cache of a package module, as 3.21 keeps it: the module's
 * answers to `list-installed` and `list-updates(-local)` stored in the state
 * directory (see eval/package-inventory.ts for the files).
 *
 * A promise asks the module again only when the cache lock allows it:
 * once per run and module (3.21 remembers the lock for the whole run, even
 * with `-K`), and, without `-K`, only when `query_installed_ifelapsed` /
 * `query_updates_ifelapsed` minutes have passed. A cache that does not exist
 * yet is always filled. After installing or removing, the cache is read
 * again at once, without the lock.
 */
import { existsSync } from "node:fs";
import {
  type InventoryEntry,
  type InventoryKind,
  formatEntry,
  moduleInventoryPath,
  readModuleInventory,
} from "../../eval/package-inventory.js";
import type { PromiseEnvironment } from "../contract.js";
import { writeFileAtomically } from "../../system/atomic.js";
import { type ModuleCommand, askModule } from "./module-process.js";
import { optionLines, readInventoryAnswer } from "./module-replies.js";
import { makeDirectoriesSync } from "../../system/make-directories.js";

/** What is asked: the installed packages, the updates (from the network) or the updates known locally. */
export type CacheRequest = "installed" | "updates" | "local-updates";

const REQUEST_NAMES: Readonly<Record<CacheRequest, string>> = {
  installed: "list-installed",
  updates: "list-updates",
  "local-updates": "list-updates-local",
};

const kindOf = (request: CacheRequest): InventoryKind => (request === "installed" ? "installed" : "updates");

/** Cache locks taken in this run, per agent run (3.21's promise lock cache). */
const takenThisRun = new WeakMap<PromiseEnvironment, Set<string>>();

/** The agent's state directory (`$(sys.statedir)`). */
export function stateDirectory(env: PromiseEnvironment): string {
  const value = env.ctx.getVariable({ ns: null, scope: "sys", name: "statedir", indices: [] });
  return value?.type === "string" ? value.value : "/var/lib/cfengine3/state";
}

function writeInventory(path: string, entries: readonly InventoryEntry[]): boolean {
  try {
    makeDirectoriesSync(path.slice(0, path.lastIndexOf("/")));
    writeFileAtomically(path, entries.map((e) => `${formatEntry(e)}\n`).join(""), 0o600);
    return true;
  } catch {
    return false;
  }
}

/**
 * Asks the module for a list and stores it; false when the module failed
 * (the cache is then left as it was) or its answer held errors.
 */
export function refreshCache(
  env: PromiseEnvironment,
  module: ModuleCommand,
  options: readonly string[],
  request: CacheRequest,
): boolean {
  const lines = askModule(
    module,
    REQUEST_NAMES[request],
    optionLines(options),
    env.log,
    env.ctx.workingDirectory,
  );
  if (lines === undefined) {
    env.log.verbose("Some error occurred while communicating with package module while updating cache.");
    return false;
  }
  const answer = readInventoryAnswer(lines, env.log);
  const path = moduleInventoryPath(stateDirectory(env), kindOf(request), module.name);
  if (!writeInventory(path, answer.entries) || answer.hadErrors) {
    env.log.info("Error updating packages cache.");
    return false;
  }
  return true;
}

function invalidIfelapsed(module: ModuleCommand): boolean {
  const body = module.body;
  return body.installedIfelapsed === undefined || body.updatesIfelapsed === undefined;
}

/** Logs 3.21's complaint about a body whose ifelapsed values are not numbers. */
export function logInvalidIfelapsed(env: PromiseEnvironment, module: ModuleCommand): void {
  const body = module.body;
  env.log.error(
    `Invalid or missing arguments in package_module body '${body.name}':  query_installed_ifelapsed = ${body.installedIfelapsed ?? -678} query_updates_ifelapsed = ${body.updatesIfelapsed ?? -678}`,
  );
}

/** Takes the cache lock of this run and module, unless taken already or too recent. */
function takeCacheLock(env: PromiseEnvironment, module: ModuleCommand, kind: InventoryKind): boolean {
  const name = `package-cache-${kind}-${module.name}`;
  const taken = takenThisRun.get(env) ?? new Set<string>();
  takenThisRun.set(env, taken);
  if (taken.has(name)) return false;
  taken.add(name);
  const minutes = (kind === "installed" ? module.body.installedIfelapsed : module.body.updatesIfelapsed) ?? 0;
  return env.acquireLock?.(name, minutes) ?? true;
}

/** Refreshes a cache if its lock allows (or it does not exist yet); false on errors. */
export function updateCacheIfDue(
  env: PromiseEnvironment,
  module: ModuleCommand,
  requested: CacheRequest,
  force = false,
): boolean {
  if (!force && invalidIfelapsed(module)) {
    logInvalidIfelapsed(env, module);
    return false;
  }
  let request = requested;
  let due = force;
  if (!force) {
    const kind = kindOf(request);
    if (!existsSync(moduleInventoryPath(stateDirectory(env), kind, module.name))) {
      env.log.verbose("Forcing package list update due to missing database");
      due = true;
      // A new cache of updates is filled from the network, not the local cache.
      if (request === "local-updates") request = "updates";
    }
    if (takeCacheLock(env, module, kind)) due = true;
  }
  if (!due) {
    const what = request === "installed" ? "installed packages" : "available updates";
    env.log.verbose(`Skipping ${what} package cache update.`);
    return true;
  }
  if (refreshCache(env, module, module.body.defaultOptions, request)) return true;
  env.log.info("Some error occurred while updating available updates cache.");
  return false;
}

/** Whether the cache lists the package (with that version and architecture, when given). */
export function isInCache(
  env: PromiseEnvironment,
  module: ModuleCommand,
  name: string,
  version: string | undefined,
  arch: string | undefined,
  refresh: boolean,
): boolean {
  if (refresh && !updateCacheIfDue(env, module, "installed")) env.log.error("Can not update cache.");
  // A cache never filled is empty (cf-agent creates the database when it opens it).
  const entries = readModuleInventory(stateDirectory(env), "installed", module.name) ?? [];
  const wanted = version === "latest" ? undefined : version;
  return entries.some(
    (e) =>
      e.name === name &&
      (wanted === undefined || e.version === wanted) &&
      (arch === undefined || e.arch === arch),
  );
}

/** The updates the cache lists for a package (after refreshing it if due); undefined when none. */
export function updatesOf(
  env: PromiseEnvironment,
  module: ModuleCommand,
  name: string,
): InventoryEntry[] | undefined {
  if (!updateCacheIfDue(env, module, "updates")) env.log.info("Can not update packages cache.");
  const entries = readModuleInventory(stateDirectory(env), "updates", module.name)?.filter(
    (e) => e.name === name,
  );
  return entries && entries.length > 0 ? entries : undefined;
}
