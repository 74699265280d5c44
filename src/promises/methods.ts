/**
 * `methods` promises: run another bundle (`usebundle => name(args)`, or
 * the promiser as the bundle's name). Arguments are expanded in the
 * caller; `@(list)` passes a list. The outcome is the combined outcome of
 * the called bundle's promises. `useresult` collects what the bundle hands
 * back through `bundle_return_value_index` reports into an array.
 */
import { parseVarRef } from "../eval/var-ref.js";
import type { Outcome } from "./outcome.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "./contract.js";
import { type BundleCall, bundleCallOf } from "./bundle-call.js";
import { asBoolean, asText, isUnresolved } from "./values.js";
import { logPromiseContext } from "./promise-context.js";
import { applyOutcomeClasses } from "./outcome-classes.js";

/** The bundle to run: `usebundle`, or the promiser naming it. */
function bundleCall(promise: ActivePromise, env: PromiseEnvironment): BundleCall | undefined {
  if (!promise.raw("usebundle")) return { name: promise.promiser, args: [] };
  return bundleCallOf(promise, env, "usebundle");
}

function collectResult(
  promise: ActivePromise,
  env: PromiseEnvironment,
  calleeName: string,
  ns: string,
): void {
  const target = asText(promise.value("useresult"));
  if (!target) return;
  const table = env.ctx.scopeEntries(ns, calleeName);
  for (const [lval, value] of table) {
    if (!lval.startsWith("last-result")) continue;
    const index = lval.slice("last-result".length).replace(/^\[|\]$/g, "");
    env.ctx.setVariable({ ns: null, scope: null, name: target, indices: index ? [index] : [] }, value);
  }
}

function evaluateMethod(promise: ActivePromise, env: PromiseEnvironment): Outcome {
  const call = bundleCall(promise, env);
  if (!call || isUnresolved(call.name)) return "skipped";
  return runMethodCall(promise, env, call);
}

/**
 * 3.21's VerifyMethod: runs the bundle `call` names for `promise` (a
 * methods promise, or a services promise calling its service bundle) and
 * turns the bundle's outcome into the promise's, with the same messages
 * and `classes`. A missing bundle fails the promise and, without
 * `ignore_missing_bundles`, stops the run.
 */
export function runMethodCall(promise: ActivePromise, env: PromiseEnvironment, call: BundleCall): Outcome {
  const bundle = env.findBundle(call.name);
  if (!bundle) return missingBundle(call.name, env);
  // As in 3.21, a dry run still runs the bundle (its promises warn); only
  // `action_policy => "warn"` on the method itself stops at a warning.
  const name = bundle.block.name.text;
  if (asText(promise.bodyValue("action", "action_policy")) === "warn") {
    env.log.warning(`Bundle '${call.name}' should be invoked, but only a warning was promised!`);
    env.endBundleBanner?.(name);
    return "warn";
  }
  const inherit = asBoolean(promise.value("inherit"), false);
  clearArrays(env, bundle.block.namespace, bundle.block.name.text);
  const outcome = env.runBundle(bundle, call.args, inherit, undefined, {
    argsText: call.argsText,
    argKinds: call.argKinds,
    method: true,
  });
  collectResult(promise, env, name, bundle.block.namespace);
  if (env.failedFatally) return "failed";
  const result = reportOutcome(promise, name, outcome, env);
  // As 3.21: the outcome classes are set before the bundle's closing banner.
  applyOutcomeClasses(promise, env, result);
  env.endBundleBanner?.(name);
  return result;
}

/**
 * As 3.21's VerifyMethod, a bundle called as a method first loses its array
 * entries (`x[k]`), so they do not pile up over calls; its other variables
 * stay (and a bundle run from the bundlesequence keeps its arrays too).
 */
export function clearArrays(env: PromiseEnvironment, ns: string, scope: string): void {
  for (const key of [...env.ctx.scopeEntries(ns, scope).keys()]) {
    if (!key.includes("[")) continue;
    const ref = parseVarRef(key);
    env.ctx.removeVariable({ ns, scope, name: ref.name, indices: ref.indices });
  }
}

/** A missing bundle fails the promise; without `ignore_missing_bundles` the run stops. */
export function missingBundle(name: string, env: PromiseEnvironment): Outcome {
  if (isUnresolved(name)) {
    env.log.error(
      "A variable seems to have been used for the name of the method. In this case, the promiser also needs to contain the unique name of the method",
    );
  }
  env.log.error(`A method attempted to use a bundle '${name}' that was apparently not defined`);
  if (!env.ignoresMissingBundles) {
    env.audit?.("failed");
    env.fatal(`Fatal CFEngine error: Aborting due to missing bundle '${name}'`);
  }
  return "failed";
}

/** The method's outcome from its bundle's, logged as 3.21 logs it. */
export function reportOutcome(
  promise: ActivePromise,
  name: string,
  outcome: Outcome,
  env: PromiseEnvironment,
): Outcome {
  switch (outcome) {
    case "skipped":
    case "kept":
      logPromiseContext(promise, env);
      env.log.verbose(`Method '${name}' verified`);
      return "kept";
    case "warn":
      env.log.warning(`Method '${name}' invoked repairs, but only warnings promised`);
      return "warn";
    case "repaired":
      logPromiseContext(promise, env);
      env.log.verbose(`Method '${name}' invoked repairs`);
      return "repaired";
    case "failed":
    case "denied":
      env.log.error(`Method '${name}' failed in some repairs`);
      return "failed";
    default:
      env.log.info(`Method '${name}' aborted in some repairs`);
      return "failed";
  }
}

export const methodsPromiseType: PromiseType = {
  name: "methods",
  oncePerRun: true,
  evaluate: evaluateMethod,
};
