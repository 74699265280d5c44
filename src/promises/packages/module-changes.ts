/**
 * The requests that change the system through a package module
 * (`repo-install`, `file-install`, `remove`), and the check 3.21 makes
 * after each: the caches are read again and must show the change.
 */
import type { Outcome } from "../outcome.js";
import type { PromiseEnvironment } from "../contract.js";
import { isInCache, refreshCache } from "./module-cache.js";
import { type ModuleCommand, askModule } from "./module-process.js";
import { logModuleErrors, optionLines, versionArchLines } from "./module-replies.js";

/** What a package promise using a module asks for. */
export interface ModulePolicy {
  readonly policy: "present" | "absent";
  readonly version: string | undefined;
  readonly architecture: string | undefined;
  /** The promise's `options`, else the body's `default_options`. */
  readonly options: readonly string[];
}

/** Sends a change request; any answer at all means it failed (modules answer only errors). */
function changeRequest(
  env: PromiseEnvironment,
  module: ModuleCommand,
  request: string,
  input: string,
  failure: string,
): Outcome {
  const lines = askModule(module, request, input, env.log, env.ctx.workingDirectory);
  let outcome: Outcome = "repaired";
  if (lines === undefined) {
    env.log.info(failure);
    outcome = "failed";
  } else if (lines.length > 0) {
    logModuleErrors(lines, env.log);
    outcome = "failed";
  }
  return outcome;
}

/** `repo-install` or `file-install` of the packages described by `packages` (Name=/File= lines). */
export function installPackages(
  env: PromiseEnvironment,
  module: ModuleCommand,
  options: readonly string[],
  request: "repo-install" | "file-install",
  packages: string,
): Outcome {
  const failure = "Some error occurred while communicating with package module while installing package.";
  return changeRequest(env, module, request, optionLines(options) + packages, failure);
}

/** `remove` of a package (of a version and architecture, when given). */
export function removePackage(
  env: PromiseEnvironment,
  module: ModuleCommand,
  policy: ModulePolicy,
  name: string,
): Outcome {
  const input = `${optionLines(policy.options)}Name=${name}\n${versionArchLines(policy.version, policy.architecture)}`;
  const failure = "Error communicating package module while removing package.";
  return changeRequest(env, module, "remove", input, failure);
}

/** After a change: the caches read again, and the package must be there (present) or gone (absent). */
export function validateChange(
  env: PromiseEnvironment,
  module: ModuleCommand,
  options: readonly string[],
  data: { readonly name?: string; readonly version?: string; readonly arch?: string },
  wanted: "present" | "absent",
): Outcome {
  if (!refreshCache(env, module, options, "installed")) {
    env.log.info("Can not update installed packages cache after package installation");
    return "failed";
  }
  if (!refreshCache(env, module, options, "local-updates")) {
    env.log.info("Can not update available updates cache after package installation");
    return "failed";
  }
  const there = isInCache(env, module, data.name ?? "", data.version, data.arch, false);
  return there === (wanted === "present") ? "repaired" : "failed";
}
