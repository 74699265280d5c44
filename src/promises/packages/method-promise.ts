/**
 * A packages promise using a `package_method` body, as 3.21's old
 * package promise: checked, locked, the manager's installed packages
 * listed (method-inventory.ts), then the operation the promise needs is
 * scheduled (method-decide.ts) to run at the end of the bundle's packages
 * section (method-schedule.ts). The promiser is the package name, or
 * holds name, version and architecture for the body's
 * `package_name_regex`, `package_version_regex` and `package_arch_regex`.
 */
import type { Outcome } from "../outcome.js";
import { combineOutcomes } from "../outcome.js";
import { applyOutcomeClasses } from "../outcome-classes.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import { type MethodAttributes, readMethodAttributes } from "./method-body.js";
import { extractFirstReference, runMethodCommand } from "./method-commands.js";
import { checkPackageState } from "./method-decide.js";
import type { Decision } from "./method-match.js";
import { verifyPromisedPatch } from "./method-patch.js";
import { verifyInstalledPackages } from "./method-inventory.js";
import { methodSanityProblem } from "./method-sanity.js";
import { recordOutcome } from "./outcome-log.js";
import { acquirePromiseLock } from "./promise-lock.js";

export { runScheduledOperations } from "./method-schedule.js";

const RESERVED = ["name", "version", "arch", "firstrepo"];

function warnReservedVariables(env: PromiseEnvironment): void {
  for (const name of RESERVED) {
    if (env.ctx.getVariable({ ns: null, scope: "this", name, indices: [] }) !== undefined)
      env.log.warning(
        `$(${name}) variable has a special meaning in packages promises. Things may not work as expected if it is already defined.`,
      );
  }
}

/** The first line of `package_default_arch_command`, "default" without one; undefined when it prints nothing. */
function defaultArch(env: PromiseEnvironment, a: MethodAttributes): string | undefined {
  const command = a.text.package_default_arch_command;
  if (command === undefined) return "default";
  env.log.verbose(`Obtaining default architecture for package manager '${command}'`);
  const first = runMethodCommand(command, true).lines[0];
  if (first !== undefined) env.log.verbose(`Default architecture for package manager is '${first}'`);
  return first;
}

function verifyPromisedPackage(d: Decision): Outcome {
  const { promise, env, a } = d;
  const log = env.log;
  const archs = a.architectures;
  let outcome: Outcome = "kept";
  const check = (name: string, version: string, arch: string, noVersion: boolean) => {
    outcome = combineOutcomes(outcome, checkPackageState(d, name, version, arch, noVersion));
  };
  if (a.version !== undefined) {
    log.verbose(`Package version ${a.version} specified explicitly in promise body`);
    if (archs.length === 0) {
      log.verbose(" ... trying any arch '*'");
      check(promise.promiser, a.version, "*", false);
    }
    for (const arch of archs) {
      log.verbose(` ... trying listed arch '${arch}'`);
      check(promise.promiser, a.version, arch, false);
    }
  } else if (a.text.package_version_regex !== undefined) {
    const regex = a.text.package_version_regex;
    log.verbose(`Package version ${regex} specified implicitly in promiser's name`);
    const version = extractFirstReference(regex, promise.promiser);
    const name = extractFirstReference(a.text.package_name_regex, promise.promiser);
    let arch = extractFirstReference(a.text.package_arch_regex, promise.promiser);
    if (arch === "" || arch === "CF_NOMATCH") arch = "*";
    log.verbose(` ... trying arch '${arch}' and version '${version}'`);
    check(name, version, arch, false);
  } else {
    log.verbose("Package version was not specified");
    if (archs.length === 0) {
      log.verbose(" ... trying any arch '*' and any version '*'");
      check(promise.promiser, "*", "*", true);
    }
    for (const arch of archs) {
      log.verbose(` ... trying listed arch '${arch}' and any version '*'`);
      check(promise.promiser, "*", arch, true);
    }
  }
  return outcome;
}

function act(promise: ActivePromise, env: PromiseEnvironment, a: MethodAttributes): Outcome {
  const reported = !promise.promiser.startsWith("cfe_internal_");
  const fail = (message: string): Outcome =>
    reported ? recordOutcome(promise, env, "error", "failed", message) : "failed";
  const problem = methodSanityProblem(a, env);
  if (problem !== undefined) {
    fail(problem);
    env.log.verbose(`Package promise ${promise.promiser} failed sanity check`);
    return "failed";
  }
  env.promiseBanner?.();
  const lock = `package-${promise.promiser}-${a.text.package_list_command ?? ""}`;
  if (!acquirePromiseLock(promise, env, lock)) return "skipped";
  const arch = defaultArch(env, a);
  if (arch === undefined) return fail("Unable to obtain default architecture for package manager - aborting");
  env.log.verbose(`Default package architecture for promise ${promise.promiser} is '${arch}'`);
  if (!verifyInstalledPackages(env, a, arch))
    return fail("Unable to obtain a list of installed packages - aborting");
  if (a.policy === "patch") {
    env.log.verbose(`Verifying patch action for promise ${promise.promiser}`);
    return verifyPromisedPatch({ promise, env, a });
  }
  env.log.verbose(`Verifying action for promise ${promise.promiser}`);
  return verifyPromisedPackage({ promise, env, a });
}

export function evaluateMethodPromise(promise: ActivePromise, env: PromiseEnvironment): Outcome {
  warnReservedVariables(env);
  const outcome = act(promise, env, readMethodAttributes(promise, env));
  // Classes come only with 3.21's verdicts (some after the scheduled commands ran), never from the outcome.
  if (!promise.promiser.startsWith("cfe_internal_")) {
    applyOutcomeClasses(promise, env, "skipped");
    return outcome;
  }
  // 3.21 reports nothing of its own placeholder promises but gives them a kept outcome.
  return recordOutcome(promise, env, "debug", "kept", "Giving dummy package kept outcome");
}
