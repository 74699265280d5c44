/**
 * 3.21 refreshes the inventory of each package module named in
 * `package_inventory` (body common control) at the end of the run, and
 * after a package_method promise changed or failed: the installed
 * packages and the updates known locally, each when its cache lock allows.
 */
import type { PromiseEnvironment } from "../contract.js";
import { updateCacheIfDue } from "../../providers/packages/module-cache.js";
import { checkModuleRunnable, speaksApiVersion1 } from "../../providers/packages/module-process.js";
import { readModuleBody } from "./module-body.js";
import { moduleSession } from "./module-session.js";

export function updateDefaultInventory(env: PromiseEnvironment): void {
  for (const name of env.ctx.packageInventory) {
    const body = env.findBody?.("package_module", name);
    if (!body) {
      env.log.error(`Can not find body for package module: ${name}`);
      continue;
    }
    const session = moduleSession(env, readModuleBody(env.ctx, body));
    const { module } = session;
    if (!checkModuleRunnable(module, env.log) || !speaksApiVersion1(module, env.log, session.cwd)) {
      env.log.error(`Can not set up wrapper for module: ${name}`);
      continue;
    }
    updateCacheIfDue(session, "installed");
    updateCacheIfDue(session, "local-updates");
  }
}
