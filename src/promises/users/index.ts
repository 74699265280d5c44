/**
 * `users` promises, as cf-agent 3.21 keeps them on Linux: a thin layer
 * mapping the promise's attributes onto the users provider
 * (src/providers/users), its messages onto the agent's log, and its
 * result onto 3.21's outcome, messages and `classes` body.
 *
 * As 3.21: a promise without `policy`, or with a `password` body missing
 * `format` or `data`, is refused in every pass, with no outcome classes;
 * `home_bundle` runs (as a method, with `home_bundle_inherit`) when the
 * account is created, before its password is set, and its outcome
 * defines the promise's classes too; a dry run (`-n`, or
 * `action_policy => "warn"`) warns at the first change needed and counts
 * the promise as not kept.
 */
import type { Outcome } from "../outcome.js";
import { applyOutcomeClasses } from "../outcome-classes.js";
import { type UserSpec, type UsersLogLevel, ensureUser } from "../../providers/users/index.js";
import { bundleCallOf } from "../bundle-call.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "../contract.js";
import { clearArrays, missingBundle, reportOutcome } from "../methods.js";
import { logPromiseContext, logPromiseRef } from "../promise-context.js";
import { asBoolean, asStrings, asText } from "../values.js";

/** What 3.21 reads of the password body: either may be missing. */
function passwordParts(promise: ActivePromise): { format?: string; data?: string } {
  if (!promise.body("password")) return {};
  return {
    format: asText(promise.bodyValue("password", "format")),
    data: asText(promise.bodyValue("password", "data")),
  };
}

/** 3.21's UserSanityCheck: the message, or undefined when the promise can be kept. */
function sanityProblem(promise: ActivePromise): string | undefined {
  const policy = asText(promise.value("policy"));
  if (policy !== "present" && policy !== "absent" && policy !== "locked")
    return `No policy specified for 'users' promise '${promise.promiser}'`;
  const { format, data } = passwordParts(promise);
  const hasData = data !== undefined && data !== "";
  const hasFormat = format === "hash" || format === "plaintext";
  if (hasData !== hasFormat)
    return `Both 'data' and 'format' must be specified in password body for 'users' promise '${promise.promiser}'`;
  return undefined;
}

function userSpec(promise: ActivePromise): UserSpec {
  const { format, data } = passwordParts(promise);
  const given = (name: string) => promise.raw(name) !== undefined;
  return {
    name: promise.promiser,
    policy: asText(promise.value("policy")) as UserSpec["policy"],
    uid: promise.text("uid"),
    description: promise.text("description"),
    groupPrimary: promise.text("group_primary"),
    groupsSecondary: given("groups_secondary") ? asStrings(promise.value("groups_secondary")) : undefined,
    homeDir: promise.text("home_dir"),
    shell: promise.text("shell"),
    password: format === "hash" || format === "plaintext" ? { format, data: data ?? "" } : undefined,
  };
}

function isDryRun(promise: ActivePromise, env: PromiseEnvironment): boolean {
  const policy = asText(promise.bodyValue("action", "action_policy"));
  return env.dryRun || policy === "warn" || policy === "nop";
}

/**
 * cf-agent's VerifyMethod on `home_bundle`, with the users promise's
 * classes body; false when the run is over (a missing bundle is fatal
 * without `ignore_missing_bundles`).
 */
function runHomeBundle(promise: ActivePromise, env: PromiseEnvironment): boolean {
  const call = bundleCallOf(promise, env, "home_bundle");
  if (!call) return true;
  const bundle = env.findBundle(call.name);
  if (!bundle) {
    applyOutcomeClasses(promise, env, missingBundle(call.name, env));
    return !env.failedFatally;
  }
  const name = bundle.block.name.text;
  clearArrays(env, bundle.block.namespace, name);
  const inherit = asBoolean(promise.value("home_bundle_inherit"), false);
  const outcome = env.runBundle(bundle, call.args, inherit, undefined, {
    argsText: call.argsText,
    argKinds: call.argKinds,
    method: true,
  });
  if (env.failedFatally) return false;
  const result = reportOutcome(promise, name, outcome, env);
  applyOutcomeClasses(promise, env, result);
  env.audit?.(result);
  env.endBundleBanner?.(name);
  return true;
}

const VERDICTS: Record<"kept" | "changed" | "failed", [Outcome, string]> = {
  kept: ["kept", "User promise kept"],
  changed: ["repaired", "User promise repaired"],
  failed: ["failed", "User promise not kept"],
};

function evaluateUser(promise: ActivePromise, env: PromiseEnvironment): Outcome {
  if (sanityProblem(promise) !== undefined) {
    // Refused before 3.21's cfPS: no outcome classes, nothing counted.
    applyOutcomeClasses(promise, env, "failed", () => undefined);
    return "failed";
  }
  const log = (level: UsersLogLevel, message: string) => env.log.log(level, message);
  const result = ensureUser(userSpec(promise), {
    dryRun: isDryRun(promise, env),
    log,
    onCreate: promise.raw("home_bundle") ? () => runHomeBundle(promise, env) : undefined,
  });
  if (env.failedFatally) return "failed";
  const [outcome, message] = VERDICTS[result.status];
  logPromiseContext(promise, env);
  env.log.verbose(message);
  applyOutcomeClasses(promise, env, outcome);
  env.audit?.(outcome);
  return outcome;
}

/** 3.21 checks the promise before taking its lock: a bad one is reported in every pass. */
function checkEveryPass(promise: ActivePromise, env: PromiseEnvironment): void {
  const problem = sanityProblem(promise);
  if (problem === undefined) return;
  env.log.error(problem);
  logPromiseRef(promise, env, "error");
}

export const usersPromiseType: PromiseType = {
  name: "users",
  waitsForResolution: true,
  oncePerRun: true,
  auditsItself: true,
  everyPass: checkEveryPass,
  evaluate: evaluateUser,
};
