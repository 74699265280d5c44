/**
 * The requests that change the system through a package module
 * (`repo-install`, `file-install`, `remove`), and the check 3.21 makes
 * after each: the caches are read again and must show the change. Each
 * answers whether it went well; the messages are 3.21's.
 */
import { type ModuleSession, isInCache, refreshCache } from "./module-cache.js";
import { askModule } from "./module-process.js";
import { logModuleErrors, optionLines, versionArchLines } from "./module-protocol.js";

/** What is asked of a module for one package. */
export interface ModulePolicy {
  readonly policy: "present" | "absent";
  readonly version: string | undefined;
  readonly architecture: string | undefined;
  /** The options sent with the request. */
  readonly options: readonly string[];
}

/** Sends a change request; any answer at all means it failed (modules answer only errors). */
function changeRequest(s: ModuleSession, request: string, input: string, failure: string): boolean {
  const lines = askModule(s.module, request, input, s.log, s.cwd);
  if (lines === undefined) {
    s.log.info(failure);
    return false;
  }
  if (lines.length > 0) {
    logModuleErrors(lines, s.log);
    return false;
  }
  return true;
}

/** `repo-install` or `file-install` of the packages described by `packages` (Name=/File= lines). */
export function installPackages(
  s: ModuleSession,
  options: readonly string[],
  request: "repo-install" | "file-install",
  packages: string,
): boolean {
  const failure = "Some error occurred while communicating with package module while installing package.";
  return changeRequest(s, request, optionLines(options) + packages, failure);
}

/** `remove` of a package (of a version and architecture, when given). */
export function removePackage(s: ModuleSession, policy: ModulePolicy, name: string): boolean {
  const input = `${optionLines(policy.options)}Name=${name}\n${versionArchLines(policy.version, policy.architecture)}`;
  const failure = "Error communicating package module while removing package.";
  return changeRequest(s, "remove", input, failure);
}

/** After a change: the caches read again, and the package must be there (present) or gone (absent). */
export function validateChange(
  s: ModuleSession,
  options: readonly string[],
  data: { readonly name?: string; readonly version?: string; readonly arch?: string },
  wanted: "present" | "absent",
): boolean {
  if (!refreshCache(s, options, "installed")) {
    s.log.info("Can not update installed packages cache after package installation");
    return false;
  }
  if (!refreshCache(s, options, "local-updates")) {
    s.log.info("Can not update available updates cache after package installation");
    return false;
  }
  const there = isInCache(s, data.name ?? "", data.version, data.arch, false);
  return there === (wanted === "present");
}
