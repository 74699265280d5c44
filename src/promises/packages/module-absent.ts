/**
 * `policy => "absent"` with a package module, as 3.21 does it: when the
 * installed cache lists the package (of the promised version and
 * architecture, if given), ask the module to `remove` it, then check the
 * fresh cache no longer lists it.
 */
import type { Outcome } from "../outcome.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import { recordOperation, refuseChange } from "./simulate-record.js";
import { type ModuleSession, isInCache } from "../../providers/packages/module-cache.js";
import { type ModulePolicy, removePackage, validateChange } from "../../providers/packages/module-changes.js";

/** Makes the promised package absent; the outcome before the promise's closing message. */
export function makeAbsent(
  promise: ActivePromise,
  env: PromiseEnvironment,
  module: ModuleSession,
  policy: ModulePolicy,
): Outcome {
  const name = promise.promiser;
  if (policy.version === "latest") {
    env.log.error("Package version 'latest' not supported forabsent package promise");
    return "failed";
  }
  if (!isInCache(module, name, policy.version, policy.architecture, true)) {
    env.log.debug(`Package '${name}' not installed. Skipping removing.`);
    recordOperation(env, "absent", name, policy.version, policy.architecture);
    return "kept";
  }
  const refused = refuseChange(promise, env, `remove package '${name}'`);
  if (refused) return refused;
  if (env.changesChroot) {
    recordOperation(env, "remove", name, policy.version, policy.architecture);
    return "repaired";
  }
  if (!removePackage(module, policy, name)) return "failed";
  const data = { name, version: policy.version, arch: policy.architecture };
  return validateChange(module, policy.options, data, "absent") ? "repaired" : "failed";
}
