/**
 * A package module as the agent uses it: the `body package_module` turned
 * into the provider's module (where it is, what runs it) and a session over
 * it for one promise (the state directory, the agent's current directory,
 * the run's cache locks and the lock database).
 */
import { posix } from "node:path";
import { splitCommand } from "../../eval/functions/exec.js";
import type { ModuleSession } from "../../providers/packages/module-cache.js";
import type { PackageModule } from "../../providers/packages/module-process.js";
import type { PromiseEnvironment } from "../contract.js";
import type { RunSlot } from "../run-state.js";
import type { PackageModuleBody } from "./module-body.js";

/** Cache locks taken in this run (3.21's promise lock cache). */
const CACHE_LOCKS: RunSlot<Set<string>> = { name: "package cache locks", create: () => new Set() };

/** The agent's state directory (`$(sys.statedir)`). */
export function stateDirectory(env: PromiseEnvironment): string {
  const value = env.ctx.getVariable({ ns: null, scope: "sys", name: "statedir", indices: [] });
  return value?.type === "string" ? value.value : "/var/lib/cfengine3/state";
}

/** The agent's work directory (`$(sys.workdir)`). */
export function workdirOf(env: PromiseEnvironment): string {
  const value = env.ctx.getVariable({ ns: null, scope: "sys", name: "workdir", indices: [] });
  return value?.type === "string" ? value.value : "/var/lib/cfengine3";
}

/** Where the module is and what runs it (its interpreter, if the body names one). */
export function moduleCommand(body: PackageModuleBody, workdir: string): PackageModule {
  const path = body.modulePath ?? posix.join(workdir, "modules", "packages", body.name);
  if (body.interpreter === undefined)
    return { name: body.name, program: path, leadingArgs: [], interpreted: false };
  const [program = body.interpreter, ...options] = body.interpreter.includes(" ")
    ? splitCommand(body.interpreter)
    : [body.interpreter];
  return { name: body.name, program, leadingArgs: [...options, path], interpreted: true };
}

/** A session over the module for what the agent does now. */
export function moduleSession(
  env: PromiseEnvironment,
  body: PackageModuleBody,
  module: PackageModule = moduleCommand(body, workdirOf(env)),
): ModuleSession {
  const acquireLock = env.acquireLock?.bind(env);
  return {
    module,
    log: env.log,
    stateDir: stateDirectory(env),
    // In the agent's current directory, which cf-agent moves to each files
    // promise's directory: a module's relative paths (ncf's test_db) land there.
    cwd: env.ctx.workingDirectory,
    installedIfelapsed: body.installedIfelapsed,
    updatesIfelapsed: body.updatesIfelapsed,
    defaultOptions: body.defaultOptions,
    takenLocks: env.runState.get(CACHE_LOCKS),
    acquireLock,
  };
}
