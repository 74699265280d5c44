/**
 * `methods` promises: run another bundle (`usebundle => name(args)`, or
 * the promiser as the bundle's name). Arguments are expanded in the
 * caller; `@(list)` passes a list. The outcome is the combined outcome of
 * the called bundle's promises. `useresult` collects what the bundle hands
 * back through `bundle_return_value_index` reports into an array.
 */
import type { Outcome } from "../agent/outcome.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "./contract.js";
import { type BundleCall, bundleCallOf } from "./bundle-call.js";
import { asBoolean, asText, isUnresolved } from "./values.js";

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
  const bundle = env.findBundle(call.name);
  // Both are fatal in 3.21: the run stops.
  if (!bundle) {
    env.fatal(`A method attempted to use a bundle '${call.name}' that was apparently not defined`);
    return "failed";
  }
  const params = bundle.block.params ?? [];
  if (params.length !== call.args.length) {
    env.fatal(
      `Bundle '${call.name}' takes ${params.length} argument(s) but the method gave ${call.args.length}`,
    );
    return "failed";
  }
  if (env.dryRun || asText(promise.bodyValue("action", "action_policy")) === "warn") {
    env.log.warning(`Bundle '${call.name}' should be invoked, but only a warning was promised`);
    return "warn";
  }
  const inherit = asBoolean(promise.value("inherit"), false);
  const outcome = env.runBundle(bundle, call.args, inherit);
  collectResult(promise, env, bundle.block.name.text, bundle.block.namespace);
  if (outcome === "failed") env.log.verbose(`Method '${call.name}' failed in some repairs`);
  else env.log.verbose(`Method '${call.name}' verified`);
  return outcome === "skipped" ? "kept" : outcome;
}

export const methodsPromiseType: PromiseType = {
  name: "methods",
  oncePerRun: true,
  evaluate: evaluateMethod,
};
