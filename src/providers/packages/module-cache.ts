/**
 * The inventory cache of a package module, as 3.21 keeps it: the module's
 * answers to `list-installed` and `list-updates(-local)` stored in the state
 * directory (see inventory.ts for the files).
 *
 * The module is asked again only when the cache lock allows it: once per
 * run and module (3.21 remembers the lock for the whole run, even with
 * `-K`), and, without `-K`, only when `query_installed_ifelapsed` /
 * `query_updates_ifelapsed` minutes have passed. A cache that does not exist
 * yet is always filled. After installing or removing, the cache is read
 * again at once, without the lock.
 */
import { existsSync } from "node:fs";
import { writeFileAtomically } from "../../system/atomic.js";
import type { Logger } from "../../system/logger.js";
import { makeDirectoriesSync } from "../../system/make-directories.js";
import {
  type InventoryEntry,
  type InventoryKind,
  formatEntry,
  moduleInventoryPath,
  readModuleInventory,
} from "./inventory.js";
import { type PackageModule, askModule } from "./module-process.js";
import { optionLines, readInventoryAnswer } from "./module-protocol.js";

/** What is asked: the installed packages, the updates (from the network) or the updates known locally. */
export type CacheRequest = "installed" | "updates" | "local-updates";

/**
 * A module as one run uses it: where its caches live, how often they may be
 * refreshed, and the run's cache locks. Front ends build one per use.
 */
export interface ModuleSession {
  readonly module: PackageModule;
  readonly log: Logger;
  /** The state directory holding the caches (`$(sys.statedir)`). */
  readonly stateDir: string;
  /** The directory the module runs in, when it exists. */
  readonly cwd?: string;
  /** Minutes between refreshes; undefined when the front end's setting was not a number. */
  readonly installedIfelapsed: number | undefined;
  readonly updatesIfelapsed: number | undefined;
  /** Options sent with the cache requests. */
  readonly defaultOptions: readonly string[];
  /** Cache locks taken in this run (kept by the front end for the whole run). */
  readonly takenLocks: Set<string>;
  /** The run's lock across runs: false when it was taken less than `minutes` ago. */
  readonly acquireLock?: (name: string, minutes: number) => boolean;
}

const REQUEST_NAMES: Readonly<Record<CacheRequest, string>> = {
  installed: "list-installed",
  updates: "list-updates",
  "local-updates": "list-updates-local",
};

const kindOf = (request: CacheRequest): InventoryKind => (request === "installed" ? "installed" : "updates");

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
export function refreshCache(s: ModuleSession, options: readonly string[], request: CacheRequest): boolean {
  const lines = askModule(s.module, REQUEST_NAMES[request], optionLines(options), s.log, s.cwd);
  if (lines === undefined) {
    s.log.verbose("Some error occurred while communicating with package module while updating cache.");
    return false;
  }
  const answer = readInventoryAnswer(lines, s.log);
  const path = moduleInventoryPath(s.stateDir, kindOf(request), s.module.name);
  if (!writeInventory(path, answer.entries) || answer.hadErrors) {
    s.log.info("Error updating packages cache.");
    return false;
  }
  return true;
}

/** Logs 3.21's complaint about a body whose ifelapsed values are not numbers. */
export function logInvalidIfelapsed(
  log: Logger,
  name: string,
  installed: number | undefined,
  updates: number | undefined,
): void {
  log.error(
    `Invalid or missing arguments in package_module body '${name}':  query_installed_ifelapsed = ${installed ?? -678} query_updates_ifelapsed = ${updates ?? -678}`,
  );
}

/** Takes the cache lock of this run and module, unless taken already or too recent. */
function takeCacheLock(s: ModuleSession, kind: InventoryKind): boolean {
  const name = `package-cache-${kind}-${s.module.name}`;
  if (s.takenLocks.has(name)) return false;
  s.takenLocks.add(name);
  const minutes = (kind === "installed" ? s.installedIfelapsed : s.updatesIfelapsed) ?? 0;
  return s.acquireLock?.(name, minutes) ?? true;
}

/** Refreshes a cache if its lock allows (or it does not exist yet); false on errors. */
export function updateCacheIfDue(s: ModuleSession, requested: CacheRequest, force = false): boolean {
  if (!force && (s.installedIfelapsed === undefined || s.updatesIfelapsed === undefined)) {
    logInvalidIfelapsed(s.log, s.module.name, s.installedIfelapsed, s.updatesIfelapsed);
    return false;
  }
  let request = requested;
  let due = force;
  if (!force) {
    const kind = kindOf(request);
    if (!existsSync(moduleInventoryPath(s.stateDir, kind, s.module.name))) {
      s.log.verbose("Forcing package list update due to missing database");
      due = true;
      // A new cache of updates is filled from the network, not the local cache.
      if (request === "local-updates") request = "updates";
    }
    if (takeCacheLock(s, kind)) due = true;
  }
  if (!due) {
    const what = request === "installed" ? "installed packages" : "available updates";
    s.log.verbose(`Skipping ${what} package cache update.`);
    return true;
  }
  if (refreshCache(s, s.defaultOptions, request)) return true;
  s.log.info("Some error occurred while updating available updates cache.");
  return false;
}

/** Whether the cache lists the package (with that version and architecture, when given). */
export function isInCache(
  s: ModuleSession,
  name: string,
  version: string | undefined,
  arch: string | undefined,
  refresh: boolean,
): boolean {
  if (refresh && !updateCacheIfDue(s, "installed")) s.log.error("Can not update cache.");
  // A cache never filled is empty (cf-agent creates the database when it opens it).
  const entries = readModuleInventory(s.stateDir, "installed", s.module.name) ?? [];
  const wanted = version === "latest" ? undefined : version;
  return entries.some(
    (e) =>
      e.name === name &&
      (wanted === undefined || e.version === wanted) &&
      (arch === undefined || e.arch === arch),
  );
}

/** The updates the cache lists for a package (after refreshing it if due); undefined when none. */
export function updatesOf(s: ModuleSession, name: string): InventoryEntry[] | undefined {
  if (!updateCacheIfDue(s, "updates")) s.log.info("Can not update packages cache.");
  const entries = readModuleInventory(s.stateDir, "updates", s.module.name)?.filter((e) => e.name === name);
  return entries && entries.length > 0 ? entries : undefined;
}
