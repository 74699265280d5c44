/**
 * What a package_method promise asks of one (name, version, arch), as
 * 3.21 decides it: whether a package of that name is installed, whether
 * one of that version is, and from that the operation to schedule (add,
 * delete, update — or delete then add —, reinstall, verify, patch).
 * Package names are given to the manager by `package_name_convention` (or
 * `package_delete_convention` for deletions), with `$(name)`,
 * `$(version)` and `$(arch)` filled in; with `package_file_repositories`
 * additions and updates take the largest version found there.
 */
import { type Outcome, combineOutcomes } from "../outcome.js";
import { asText } from "../values.js";
import {
  type Decision,
  fillIn,
  largestInRepositories,
  olderInstalled,
  packageMatch,
  record,
} from "./method-match.js";
import { type Operation, prefixLocalRepository, schedule } from "./method-schedule.js";

const ACTION_WORDS: Readonly<Record<Operation, string>> = {
  add: "installing",
  delete: "uninstalling",
  update: "updating",
  verify: "verifying",
  patch: "patching",
};

/** Schedules an operation, or with `action_policy => "warn"` only says it is needed. */
function scheduleOp(d: Decision, command: string, operation: Operation, id: string): Outcome {
  if (asText(d.promise.bodyValue("action", "action_policy")) === "warn") {
    const message = `Need to repair promise '${d.promise.promiser}' by '${ACTION_WORDS[operation]}' package '${id}'`;
    return record(d, "warning", "warn", message);
  }
  schedule(d.env, command, operation, {
    name: id,
    version: "any",
    arch: "any",
    promise: d.promise,
    attributes: d.a,
  });
  return "repaired";
}

function undefinedCommand(d: Decision, which: string): Outcome {
  return record(d, "error", "failed", `Package ${which} command undefined`);
}

/** What the manager calls the package: the name convention filled in, or the name. */
function packageId(d: Decision, name: string, version: string, arch: string): string {
  const { package_delete_convention: deleteConvention, package_name_convention: nameConvention } = d.a.text;
  if (deleteConvention !== undefined && d.a.policy === "delete")
    return fillIn(deleteConvention, { name, version, arch });
  if (nameConvention !== undefined) return fillIn(nameConvention, { name, version, arch });
  return name;
}

export interface Target {
  readonly name: string;
  readonly version: string;
  readonly arch: string;
  readonly installed: boolean;
  readonly matched: boolean;
  readonly noVersion: boolean;
}

/** With file repositories: the file of the largest fitting version, or undefined (logged) when none. */
function fromRepositories(d: Decision, t: Target): { file: string; version: string } | undefined {
  d.env.log.verbose("Package method specifies a file repository");
  const best = largestInRepositories(d, t.name, t.version, t.arch);
  if (!best.found) {
    d.env.log.verbose("No package in file repositories satisfy version constraint");
    return undefined;
  }
  d.env.log.verbose(`Using latest version in file repositories; '${best.file}'`);
  return best;
}

function scheduleAdd(d: Decision, t: Target, id: string): Outcome {
  if (t.installed)
    return record(
      d,
      "verbose",
      "kept",
      `Package '${d.promise.promiser}' already installed, so we never add it again`,
    );
  let target = id;
  if (d.a.fileRepositories.length > 0) {
    const best = fromRepositories(d, t);
    if (!best) return "kept";
    target = best.file;
  } else d.env.log.verbose("Package method does NOT specify a file repository");
  d.env.log.verbose("Schedule package for addition");
  const command = d.a.text.package_add_command;
  if (command === undefined) return undefinedCommand(d, "add");
  return scheduleOp(d, command, "add", target);
}

function scheduleDelete(d: Decision, t: Target, id: string, inRange: boolean): Outcome {
  if (!((t.matched && inRange) || (t.installed && t.noVersion)))
    return record(d, "verbose", "kept", "Package deletion is as promised -- no match");
  d.env.log.verbose("Schedule package for deletion");
  const command = d.a.text.package_delete_command;
  if (command === undefined) return undefinedCommand(d, "delete");
  let target = id;
  if (d.a.fileRepositories.length > 0) {
    d.env.log.verbose("Package method specifies a file repository");
    if (target.startsWith("$(firstrepo)")) {
      const rest = target.slice("$(firstrepo)".length);
      const path = prefixLocalRepository(d.a.fileRepositories, rest);
      if (path !== undefined) {
        target = path;
        d.env.log.verbose(`Expanded the package repository to '${target}'`);
      } else d.env.log.error(`Package '${rest}' can't be found in any of the listed repositories`);
    }
  } else d.env.log.verbose("Package method does NOT specify a file repository");
  return scheduleOp(d, command, "delete", target);
}

function scheduleReinstall(d: Decision, t: Target, id: string, inRange: boolean): Outcome {
  const { package_delete_command: del, package_add_command: add } = d.a.text;
  if (del === undefined) return undefinedCommand(d, "delete");
  if (t.noVersion)
    return record(
      d,
      "error",
      "failed",
      "Package reinstallation cannot be promised -- insufficient version info or no match",
    );
  d.env.log.verbose("Schedule package for reinstallation");
  if (add === undefined) return undefinedCommand(d, "add");
  let outcome: Outcome = "kept";
  if (t.matched && inRange) outcome = combineOutcomes(outcome, scheduleOp(d, del, "delete", id));
  return combineOutcomes(outcome, scheduleOp(d, add, "add", id));
}

function scheduleUpdate(d: Decision, t: Target, id: string, inRange: boolean): Outcome {
  let target = id;
  let largest = t.version;
  if (d.a.fileRepositories.length > 0) {
    const best = fromRepositories(d, t);
    if (!best) return "kept";
    target = best.file;
    largest = best.version;
  } else d.env.log.verbose("Package method does NOT specify a file repository");
  let installedVersion = "";
  let installedArch = "";
  if (t.installed) {
    d.env.log.verbose("Checking if latest available version is newer than installed...");
    const found = olderInstalled(d, t.name, largest, t.arch);
    installedVersion = found.version;
    installedArch = found.arch;
    if (!found.older)
      return record(
        d,
        "verbose",
        "kept",
        `Installed packaged '${d.promise.promiser}' is up to date, not updating`,
      );
    d.env.log.verbose(
      `Installed package (${t.name},${found.version},${found.arch}) [name,version,arch] is older than latest available (${t.name},${largest},${t.arch}) [name,version,arch] - updating`,
    );
  }
  if (!(t.installed || (t.matched && inRange && !t.noVersion))) {
    const message = `Package '${d.promise.promiser}' cannot be updated -- no match or not installed`;
    return record(d, "error", "failed", message);
  }
  const { package_update_command: update, package_add_command: add, package_delete_command: del } = d.a.text;
  if (update !== undefined) {
    d.env.log.verbose("Schedule package for update");
    return scheduleOp(d, update, "update", target);
  }
  d.env.log.verbose("Package update command undefined - failing over to delete then add");
  const convention = d.a.text.package_delete_convention;
  const deleteId =
    convention === undefined
      ? target
      : fillIn(convention, { name: t.name, version: installedVersion || "*", arch: installedArch || "*" });
  d.env.log.verbose(`Scheduling package with id '${deleteId}' for deletion`);
  if (add === undefined) return undefinedCommand(d, "add");
  if (del === undefined) return undefinedCommand(d, "delete");
  return combineOutcomes(scheduleOp(d, del, "delete", deleteId), scheduleOp(d, add, "add", target));
}

function schedulePatch(d: Decision, t: Target, id: string): Outcome {
  if (!t.matched || t.installed) {
    const message = `Package patch state of '${d.promise.promiser}' is as promised -- already installed`;
    return record(d, "verbose", "kept", message);
  }
  d.env.log.verbose("Schedule package for patching");
  const command = d.a.text.package_patch_command;
  if (command === undefined) {
    d.env.log.error("Attempted to create a package manager with no name");
    return "failed";
  }
  return scheduleOp(d, command, "patch", id);
}

function scheduleVerify(d: Decision, t: Target, id: string, inRange: boolean): Outcome {
  if (!((t.matched && inRange) || (t.installed && t.noVersion)))
    return record(d, "info", "failed", `Package '${d.promise.promiser}' cannot be verified -- no match`);
  d.env.log.verbose("Schedule package for verification");
  return scheduleOp(d, d.a.text.package_verify_command ?? "", "verify", id);
}

/** 3.21's SchedulePackageOp for everything but patches. */
export function schedulePackageOp(d: Decision, t: Target): Outcome {
  d.env.log.verbose(
    `Checking if package (${t.name},${t.version},${t.arch}) [name,version,arch] is at the desired state (installed=${Number(t.installed)},matched=${Number(t.matched)})`,
  );
  const id = packageId(d, t.name, t.version, t.arch);
  d.env.log.verbose(`Package promises to refer to itself as '${id}' to the manager`);
  if (id.includes("*"))
    d.env.log.verbose(
      "Package name contains '*' -- perhaps a missing attribute (name/version/arch) should be specified",
    );
  const select = d.a.select;
  const inRange = select === undefined || select === "==" || select === ">=" || select === "<=";
  if (inRange) d.env.log.verbose("Package version seems to match criteria");
  let policy = d.a.policy;
  if (policy === "addupdate") policy = t.installed ? "update" : "add";
  switch (policy) {
    case "add":
      return scheduleAdd(d, t, id);
    case "delete":
      return scheduleDelete(d, t, id, inRange);
    case "reinstall":
      return scheduleReinstall(d, t, id, inRange);
    case "update":
      return scheduleUpdate(d, t, id, inRange);
    case "verify":
      return scheduleVerify(d, t, id, inRange);
    default:
      return schedulePatch(d, t, id);
  }
}

/** Whether 3.21 schedules anything for this state of the package. */
function willSchedule(d: Decision, matched: boolean, installed: boolean): boolean {
  const promiser = d.promise.promiser;
  if (d.a.policy === "delete") {
    if (matched && installed) {
      d.env.log.verbose(`WillSchedulePackageOperation: Package ${promiser} to be deleted is installed.`);
      return true;
    }
    record(d, "verbose", "kept", `Package ${promiser} to be deleted does not exist anywhere`);
    return false;
  }
  if (d.a.policy === "reinstall") {
    if (matched && installed) {
      d.env.log.verbose(
        `WillSchedulePackageOperation: Package ${promiser} to be reinstalled is already installed.`,
      );
      return true;
    }
    record(d, "verbose", "kept", `Package '${promiser}' already installed and matches criteria`);
    return false;
  }
  if (!matched || !installed) return true;
  record(d, "verbose", "kept", `Package '${promiser}' already installed and matches criteria`);
  return false;
}

/** 3.21's CheckPackageState: is a package of the name installed, of the version, then schedule. */
export function checkPackageState(
  d: Decision,
  name: string,
  version: string,
  arch: string,
  noVersion: boolean,
): Outcome {
  const installed = packageMatch(d, name, "*", arch, "[installed]");
  d.env.log.verbose(
    `CheckPackageState: Installed package match for (${name},*,${arch}) [name,version,arch] was decisive: ${installed === "match" ? "MATCH" : "ERROR-OR-NOMATCH"}`,
  );
  if (installed === "error")
    return record(d, "error", "failed", "Failure trying to compare installed package versions");
  const matches = packageMatch(d, name, version, arch, "[available]");
  d.env.log.verbose(
    `CheckPackageState: Available package match for (${name},${version},${arch}) [name,version,arch] was decisive: ${matches === "match" ? "MATCH" : "ERROR-OR-NOMATCH"}`,
  );
  if (matches === "error")
    return record(d, "error", "failed", "Failure trying to compare available package versions");
  if (!willSchedule(d, matches === "match", installed === "match")) return "kept";
  d.env.log.verbose(
    `CheckPackageState: matched package (${name},${version},${arch}) [name,version,arch]; scheduling operation`,
  );
  const target = {
    name,
    version,
    arch,
    installed: installed === "match",
    matched: matches === "match",
    noVersion,
  };
  return schedulePackageOp(d, target);
}
