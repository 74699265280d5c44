/**
 * `packages` promises, as cf-agent 3.21 keeps them. A promise is one of
 * two kinds, told apart by its attributes as 3.21 does:
 *
 * - with `policy`/`version`/`architecture`/`options`: a package module
 *   (module-promise.ts), the modern interface;
 * - with `package_policy`/`package_version`/`package_architectures`/
 *   `package_select` or only a `package_method`: a package_method body
 *   (method-promise.ts), whose operations are scheduled and run once the
 *   bundle's packages promises of the pass are all seen.
 *
 * Both kinds at once, or neither with a usable body, fail.
 */
import type { Outcome } from "../outcome.js";
import { writes } from "./promise-attributes.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "../contract.js";
import { evaluateMethodPromise, runScheduledOperations } from "./method-promise.js";
import { evaluateModulePromise } from "./module-promise.js";
import { recordOutcome } from "./outcome-log.js";
import { updateDefaultInventory } from "./default-inventory.js";

type PromiseKind = "module" | "method" | "mixed" | "module-error" | "method-error";

const MODULE_POLICIES = new Set(["present", "absent"]);
const METHOD_POLICIES = new Set(["add", "delete", "reinstall", "update", "addupdate", "patch", "verify"]);
const COMPARATORS = new Set([">", "<", "==", "!=", ">=", "<="]);

function hasModuleAttributes(promise: ActivePromise): boolean {
  const set = ["version", "architecture", "options"].some((name) => promise.raw(name) !== undefined);
  return set || MODULE_POLICIES.has(promise.text("policy") ?? "");
}

function hasMethodAttributes(promise: ActivePromise): boolean {
  if (promise.raw("package_version") !== undefined || promise.raw("package_architectures") !== undefined)
    return true;
  return (
    COMPARATORS.has(promise.text("package_select") ?? "") ||
    METHOD_POLICIES.has(promise.text("package_policy") ?? "")
  );
}

function kindOf(promise: ActivePromise, env: PromiseEnvironment): PromiseKind {
  const module = hasModuleAttributes(promise);
  const method = hasMethodAttributes(promise);
  if (module && method) return "mixed";
  if (module) return MODULE_POLICIES.has(promise.text("policy") ?? "") ? "module" : "module-error";
  const hasMethod = writes(promise, "package_method") || env.findBody?.("package_method", "generic");
  return hasMethod ? "method" : "method-error";
}

/** 3.21 reports nothing for its own placeholder promises (`cfe_internal_...`). */
function reported(promise: ActivePromise): boolean {
  return !promise.promiser.startsWith("cfe_internal_");
}

function evaluate(promise: ActivePromise, env: PromiseEnvironment): Outcome {
  const kind = kindOf(promise, env);
  const fail = (message: string): Outcome =>
    reported(promise) ? recordOutcome(promise, env, "error", "failed", message) : "failed";
  switch (kind) {
    case "module":
      return evaluateModulePromise(promise, env);
    case "method": {
      const outcome = evaluateMethodPromise(promise, env);
      // Inventories of package modules may have changed too.
      if (outcome === "repaired" || outcome === "failed") updateDefaultInventory(env);
      return outcome;
    }
    case "module-error":
      return fail("New package promise failed sanity check.");
    case "method-error":
      return fail("Old package promise failed sanity check.");
    default:
      return fail("Mixed old and new package promise attributes inside one package promise.");
  }
}

/** 3.21 says which kind it uses in every pass, before the promise's banner. */
function announceKind(promise: ActivePromise, env: PromiseEnvironment): void {
  const kind = kindOf(promise, env);
  if (kind === "module") env.log.verbose("Using new package promise.");
  else if (kind === "method")
    env.log.verbose(
      "Using old package promise. Please note that this old implementation is being phased out. The old implementation will continue to work, but forward development will be directed toward the new implementation.",
    );
}

/**
 * Not once per run for the engine: as 3.21, the promise is looked at in
 * every pass and takes its own lock (promise-lock.ts) after its checks.
 */
export const packagesPromiseType: PromiseType = {
  name: "packages",
  waitsForResolution: true,
  oncePerRun: false,
  everyPass: announceKind,
  auditsItself: true,
  announcesItself: true,
  evaluate,
  sectionFinished: runScheduledOperations,
  runFinished: updateDefaultInventory,
};
