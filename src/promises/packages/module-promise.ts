/**
 * A packages promise that uses a package module (`policy`, `version`,
 * `architecture`, `options`, `package_module`), as 3.21's new package
 * promise: checked, then the module is started and asked which API it
 * speaks (only version 1 is known), then the package is made present or
 * absent; the outcome is logged with 3.21's closing messages.
 */
import type { Outcome } from "../outcome.js";
import { asStrings, asText } from "../values.js";
import { writes } from "./promise-attributes.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import { type ModuleSession, logInvalidIfelapsed } from "../../providers/packages/module-cache.js";
import type { ModulePolicy } from "../../providers/packages/module-changes.js";
import { checkModuleRunnable, speaksApiVersion1 } from "../../providers/packages/module-process.js";
import { makeAbsent } from "./module-absent.js";
import { type PackageModuleBody, readModuleBody } from "./module-body.js";
import { makePresent } from "./module-present.js";
import { moduleSession } from "./module-session.js";
import { recordOutcome } from "./outcome-log.js";
import { acquirePromiseLock } from "./promise-lock.js";

/** The module body the promise names, else the one `body common control` names. */
function moduleBodyOf(promise: ActivePromise, env: PromiseEnvironment): PackageModuleBody | undefined {
  const own = promise.body("package_module");
  if (own) return readModuleBody(env.ctx, own);
  if (writes(promise, "package_module")) return undefined;
  const name = asText(env.controlValue?.("common", "package_module"));
  const body = name === undefined ? undefined : env.findBody?.("package_module", name);
  return body && readModuleBody(env.ctx, body);
}

function sanityCheck(
  env: PromiseEnvironment,
  body: PackageModuleBody | undefined,
  policy: string | undefined,
) {
  if (!body) {
    env.log.error("Can not find package module body in policy.");
    return false;
  }
  if (body.installedIfelapsed === undefined || body.updatesIfelapsed === undefined) {
    logInvalidIfelapsed(env.log, body.name, body.installedIfelapsed, body.updatesIfelapsed);
    return false;
  }
  if (policy !== "present" && policy !== "absent") {
    env.log.error("Unsupported package policy in package promise.");
    return false;
  }
  return true;
}

/** The module's session, once it runs and speaks API version 1; undefined (logged) otherwise. */
function startModule(env: PromiseEnvironment, body: PackageModuleBody): ModuleSession | undefined {
  const session = moduleSession(env, body);
  if (!checkModuleRunnable(session.module, env.log)) return undefined;
  return speaksApiVersion1(session.module, env.log, session.cwd) ? session : undefined;
}

export function evaluateModulePromise(promise: ActivePromise, env: PromiseEnvironment): Outcome {
  const body = moduleBodyOf(promise, env);
  const policyWord = promise.text("policy");
  if (!sanityCheck(env, body, policyWord) || !body)
    return recordOutcome(promise, env, "error", "failed", "New package promise failed sanity check.");
  const name = promise.promiser;
  env.promiseBanner?.();
  if (!acquirePromiseLock(promise, env, `new-package-${name}-${body.name}`)) return "skipped";
  const module = startModule(env, body);
  if (!module) {
    const message = `Some error occurred while contacting package module for promise '${name}'`;
    return recordOutcome(promise, env, "error", "failed", message);
  }
  const options = asStrings(promise.value("options"));
  const policy: ModulePolicy = {
    policy: policyWord === "absent" ? "absent" : "present",
    version: promise.text("version"),
    architecture: promise.text("architecture"),
    options: options.length > 0 ? options : body.defaultOptions,
  };
  if (policy.policy === "absent") {
    const outcome = makeAbsent(promise, env, module, policy);
    if (outcome === "failed")
      return recordOutcome(promise, env, "error", outcome, `Error removing package '${name}'`);
    if (outcome === "repaired")
      return recordOutcome(promise, env, "info", outcome, `Successfully removed package '${name}'`);
    return recordOutcome(promise, env, "debug", outcome);
  }
  const outcome = makePresent(promise, env, module, policy);
  if (outcome === "failed")
    return recordOutcome(promise, env, "error", outcome, `Error installing package '${name}'`);
  if (outcome === "repaired")
    return recordOutcome(promise, env, "info", outcome, `Successfully installed package '${name}'`);
  if (outcome === "kept")
    return recordOutcome(promise, env, "verbose", outcome, `Package '${name}' already installed`);
  return recordOutcome(promise, env, "debug", outcome);
}
