/**
 * `policy => "present"` with a package module, as 3.21 does it: ask the
 * module what the promiser is (`get-package-data`: a file to install or a
 * package from a repository), look for it in the installed cache, and
 * install it (`file-install` / `repo-install`) when missing — or, with
 * `version => "latest"`, when the updates cache offers a version that is
 * not installed. Every change is checked against a fresh cache.
 */
import { type Outcome, combineOutcomes } from "../outcome.js";
import type { InventoryEntry } from "../../providers/packages/inventory.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import {
  type ModuleSession,
  isInCache,
  updateCacheIfDue,
  updatesOf,
} from "../../providers/packages/module-cache.js";
import {
  type ModulePolicy,
  installPackages,
  validateChange,
} from "../../providers/packages/module-changes.js";
import { askModule } from "../../providers/packages/module-process.js";
import {
  type PackageData,
  optionLines,
  readPackageData,
  versionArchLines,
} from "../../providers/packages/module-protocol.js";
import { recordOperation, refuseChange } from "./simulate-record.js";

function packageData(env: PromiseEnvironment, module: ModuleSession, policy: ModulePolicy, file: string) {
  const request =
    optionLines(policy.options) + `File=${file}\n` + versionArchLines(policy.version, policy.architecture);
  const lines = askModule(module.module, "get-package-data", request, env.log, module.cwd);
  if (lines === undefined) {
    env.log.info(
      "Some error occurred while communicating with package module while collecting package data.",
    );
    return undefined;
  }
  if (lines.length === 0) return undefined;
  const data = readPackageData(lines, env.log);
  if (data && (data.name === undefined || data.type === undefined)) {
    env.log.info("Unknown package name or type.");
    return undefined;
  }
  return data;
}

/** For a file package: what the module says must agree with the policy. */
function fileMatchesPolicy(env: PromiseEnvironment, policy: ModulePolicy, data: PackageData): boolean {
  if (policy.version === "latest") {
    env.log.warning("Unsupported 'latest' version for package promise of type file.");
    return false;
  }
  if (data.arch !== undefined && policy.architecture !== undefined && data.arch !== policy.architecture) {
    env.log.warning(
      `Package arch and one specified in policy doesn't match: ${data.arch} -> ${policy.architecture}`,
    );
    return false;
  }
  if (data.version !== undefined && policy.version !== undefined && data.version !== policy.version) {
    env.log.warning(
      `Package version and one specified in policy doesn't match: ${data.version} -> ${policy.version}`,
    );
    return false;
  }
  return true;
}

interface Target {
  readonly promise: ActivePromise;
  readonly env: PromiseEnvironment;
  readonly module: ModuleSession;
  readonly policy: ModulePolicy;
}

/** The fresh caches must show the package installed. */
function validated(t: Target, data: Parameters<typeof validateChange>[2]): Outcome {
  return validateChange(t.module, t.policy.options, data, "present") ? "repaired" : "failed";
}

function installFile(t: Target, data: PackageData, installed: boolean): Outcome {
  const { promise, env } = t;
  if (installed) {
    env.log.verbose("Package exists in cache. Skipping installation.");
    recordOperation(env, "present", promise.promiser);
    return "kept";
  }
  const refused = refuseChange(promise, env, `install file type package: ${promise.promiser}`);
  if (refused) return refused;
  if (env.changesChroot) {
    recordOperation(env, "install", promise.promiser);
    return "repaired";
  }
  const request = `File=${promise.promiser}\n`;
  if (!installPackages(t.module, t.policy.options, "file-install", request)) return "failed";
  return validated(t, data);
}

function installFromRepo(t: Target, data: PackageData, installed: boolean): Outcome {
  const { promise, env } = t;
  const name = data.name ?? promise.promiser;
  if (!installed) {
    if (!updateCacheIfDue(t.module, "updates")) env.log.info("Can not update packages cache.");
    const version = data.version === "latest" ? undefined : data.version;
    const refused = refuseChange(promise, env, `install repo type package: ${name}`);
    if (refused) return refused;
    if (env.changesChroot) {
      recordOperation(env, "install", name, data.version, data.arch);
      // As 3.21, the simulated installation is still checked (and found missing).
      return validated(t, data);
    }
    const request = `Name=${name}\n${versionArchLines(version, data.arch)}`;
    if (!installPackages(t.module, t.policy.options, "repo-install", request)) return "failed";
    return validated(t, data);
  }
  if (data.version !== "latest") {
    recordOperation(env, "present", name, data.version, data.arch);
    env.log.verbose(`Package '${name}' already installed`);
    return "kept";
  }
  const updates = updatesOf(t.module, name);
  if (!updates) {
    recordOperation(env, "present", name, data.version, data.arch);
    env.log.verbose(`Package '${name}' is already in the latest version. Skipping installation.`);
    return "kept";
  }
  return installLatest(t, name, data.arch, updates);
}

/** Installs, in one request, each offered update (of the promised architecture) not installed yet. */
function installLatest(
  t: Target,
  name: string,
  arch: string | undefined,
  updates: InventoryEntry[],
): Outcome {
  const { promise, env } = t;
  let outcome: Outcome = "kept";
  const wanted: InventoryEntry[] = [];
  for (const update of updates) {
    if (arch !== undefined && arch !== update.arch) continue;
    if (isInCache(t.module, name, update.version, update.arch, true)) {
      recordOperation(env, "present", name, update.version, update.arch);
      env.log.verbose("Package version from updates matches one installed. Skipping package installation.");
      continue;
    }
    const refused = refuseChange(promise, env, `install repo type package: ${name}`);
    if (refused) outcome = combineOutcomes(outcome, refused);
    // Simulated, the installation is only recorded (and 3.21 counts nothing for it).
    else if (env.changesChroot) recordOperation(env, "install", name, update.version, update.arch);
    else wanted.push(update);
  }
  if (wanted.length === 0) return outcome;
  const request = wanted.map((u) => `Name=${name}\nVersion=${u.version}\nArchitecture=${u.arch}\n`).join("");
  outcome = installPackages(t.module, t.policy.options, "repo-install", request) ? "repaired" : "failed";
  for (const update of wanted) {
    const data = { type: "repo", name, version: update.version, arch: update.arch } as const;
    outcome = combineOutcomes(outcome, validated(t, data));
  }
  return outcome;
}

/** Makes the promised package present; the outcome before the promise's closing message. */
export function makePresent(
  promise: ActivePromise,
  env: PromiseEnvironment,
  module: ModuleSession,
  policy: ModulePolicy,
): Outcome {
  const data = packageData(env, module, policy, promise.promiser);
  if (!data) {
    env.log.info(`Can not obtain package data for promise: ${promise.promiser}`);
    return "failed";
  }
  if (data.type === "file" && !fileMatchesPolicy(env, policy, data)) {
    env.log.error("Package data and policy doesn't match");
    return "failed";
  }
  if (data.type === "repo") {
    if (data.arch !== undefined)
      env.log.verbose("Unexpected package architecture received from package module. Ignoring.");
    if (data.version !== undefined)
      env.log.verbose("Unexpected package version received from package module. Ignoring.");
    data.arch = undefined;
    data.version = undefined;
  }
  data.arch ??= policy.architecture;
  data.version ??= policy.version;
  const installed = isInCache(module, data.name ?? "", data.version, data.arch, true);
  const target = { promise, env, module, policy };
  return data.type === "file"
    ? installFile(target, data, installed)
    : installFromRepo(target, data, installed);
}
