/**
 * 3.21 refreshes the inventory of each package module named in
 * `package_inventory` (body common control) at the end of the run, and
 * after a package_method promise changed or failed: the installed
 * packages and the updates known locally, each when its cache lock allows.
 */
import type { PromiseEnvironment } from "../contract.js";
import { updateCacheIfDue } from "./module-cache.js";
import { readModuleBody } from "./module-body.js";
import { checkModuleRunnable, moduleCommand } from "./module-process.js";
import { speaksApiVersion1, workdirOf } from "./module-promise.js";

export function updateDefaultInventory(env: PromiseEnvironment): void {
  for (const name of env.ctx.packageInventory) {
    const body = env.findBody?.("package_module", name);
    if (!body) {
      env.log.error(`Can not find body for package module: ${name}`);
      continue;
    }
    const module = moduleCommand(readModuleBody(env.ctx, body), workdirOf(env));
    if (!checkModuleRunnable(module, env.log) || !speaksApiVersion1(env, module)) {
      env.log.error(`Can not set up wrapper for module: ${name}`);
      continue;
    }
    updateCacheIfDue(env, module, "installed");
    updateCacheIfDue(env, module, "local-updates");
  }
}
