/**
 * `services` promises, as 3.21's verify_services.c keeps them: a service
 * is an abstraction over a bundle. The promise calls `service_bundle` (in
 * its `service_method` body) or, without one, a bundle named
 * `service_<canonified promiser>` of the promise's namespace, or else
 * `default:standard_services`, with the promiser and the service policy as
 * arguments, exactly as a methods promise would (same messages, outcome
 * and classes). `$(this.service_policy)` holds the policy meanwhile.
 *
 * 3.21 takes any `service_policy` string (default "start"); the bundle
 * gives it a meaning. `service_autostart_policy`, `service_dependence_chain`
 * and `service_args` are accepted and not acted on by 3.21 on Unix; nor
 * here. `service_type => "windows"` is not supported off Windows.
 */
import type { Outcome } from "../outcome.js";
import { canonify } from "../../eval/class-expression.js";
import { scalar } from "../../eval/values.js";
import type { BundleCall } from "../bundle-call.js";
import { bundleCallOfRval } from "../bundle-call.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "../contract.js";
import { runMethodCall } from "../methods.js";
import { promiseRef } from "../promise-ref.js";
import { asStrings, asText, isUnresolved } from "../values.js";

/** The service policy, defaulted as 3.21's SetServiceDefaults does. */
function servicePolicy(promise: ActivePromise, env: PromiseEnvironment): string {
  const policy = promise.text("service_policy");
  if (policy !== undefined && policy !== "") return policy;
  env.log.verbose("Attribute 'service_policy' was not set, defaulting to: 'start'");
  return "start";
}

/** 3.21's ServicesSanityChecks: a service may not depend on itself. */
function dependsOnItself(promise: ActivePromise, env: PromiseEnvironment): boolean {
  const dependencies = asStrings(promise.value("service_dependencies"));
  if (!dependencies.includes(promise.promiser)) return false;
  env.log.error(`Service promiser '${promise.promiser}' has itself as dependency`);
  promiseRef(env, "error", promise);
  return true;
}

/**
 * The bundle the promise calls: its `service_bundle`, else 3.21's default
 * (DefaultServiceBundleCall): an agent bundle `service_<promiser>` in the
 * promise's namespace, else `default:standard_services`.
 */
function serviceCall(
  promise: ActivePromise,
  env: PromiseEnvironment,
  policy: string,
): BundleCall | undefined {
  const own = promise.body("service_method")?.attributes.get("service_bundle")?.value;
  if (own) return bundleCallOfRval(own, promise, env);
  const args = [scalar(promise.promiser), scalar(policy)];
  const argsText = ` {"${promise.promiser}","${policy}"}`;
  const ns = promise.bundle.block.namespace;
  const special = `service_${canonify(promise.promiser)}`;
  if (env.findBundle(`${ns}:${special}`, ["agent"])) {
    env.log.verbose(`Found service special bundle ${special} in ns ${ns}`);
    return { name: special, args, argsText, argKinds: ["s", "s"] };
  }
  return { name: "default:standard_services", args, argsText, argKinds: ["s", "s"] };
}

function evaluateService(promise: ActivePromise, env: PromiseEnvironment): Outcome {
  const policy = servicePolicy(promise, env);
  // 3.21 stops there without an outcome, and again in every pass.
  if (dependsOnItself(promise, env)) return "skipped";
  // 3.21 shows the banner here (VerifyServices) and again as the bundle is called (VerifyMethod).
  env.promiseBanner?.(true);
  if (asText(promise.bodyValue("service_method", "service_type")) === "windows") {
    env.log.info("Service type windows not supported on this platform.");
    return "skipped";
  }
  env.ctx.currentFrame().thisVars.set("service_policy", scalar(policy));
  const call = serviceCall(promise, env, policy);
  if (!call || isUnresolved(call.name)) return "skipped";
  env.promiseBanner?.();
  return runMethodCall(promise, env, call);
}

export const servicesPromiseType: PromiseType = {
  name: "services",
  // A promise failing 3.21's sanity check is checked again in every pass.
  oncePerRun: (promise) => !asStrings(promise.value("service_dependencies")).includes(promise.promiser),
  announcesItself: true,
  evaluate: evaluateService,
};
