/**
 * `package_policy => "patch"`, as 3.21's VerifyPromisedPatch: the
 * patches `package_patch_list_command` lists as installed are matched by
 * the promised name (as a regex) or by (name, version, arch); what it
 * finds is handed to the scheduler, and the promise itself stays kept.
 */
import type { Outcome } from "../outcome.js";
import { extractFirstReference, fullTextMatch } from "./method-commands.js";
import { schedulePackageOp } from "./method-decide.js";
import { installedLists } from "./method-inventory.js";
import { type Decision, comparePackage, record } from "./method-match.js";
import type { VersionVerdict } from "./method-versions.js";

/** Whether an installed patch is the name (a regex here) or (name, version, arch). */
function patchMatch(d: Decision, name: string, version: string, arch: string, mode: string): VersionVerdict {
  const manager = d.a.text.package_list_command ?? "";
  const list = installedLists(d.env).find((l) => l.command === manager);
  d.env.log.verbose(
    `PatchMatch: looking for ${mode} to [==] with given (${name},${version},${arch}) [name,version,arch] in package manager ${manager}`,
  );
  for (const item of list?.patches ?? []) {
    if (fullTextMatch(name, item.name)) {
      d.env.log.verbose(`PatchMatch: regular expression match succeeded for ${name} against ${item.name}`);
      return "match";
    }
    const verdict = comparePackage(d, name, version, arch, item, mode);
    if (verdict === "no-match") continue;
    const shown = verdict === "match" ? "MATCH" : "ERROR";
    d.env.log.verbose(`PatchMatch: patch comparison for ${item.name} was decisive: ${shown}`);
    return verdict;
  }
  d.env.log.verbose(
    `PatchMatch did not match the constraints of promise (${name},${version},${arch}) [name,version,arch]`,
  );
  return "no-match";
}

/** 3.21's VerifyPromisedPatch: counts matching installed patches, then schedules; kept as far as the promise goes. */
export function verifyPromisedPatch(d: Decision): Outcome {
  const { promise, a } = d;
  let name = promise.promiser;
  let version = a.version ?? "*";
  let arch = "*";
  let installed = 0;
  let matches = 0;
  const count = (n: string, v: string, ar: string, suffix = ""): boolean => {
    const one = patchMatch(d, n, "*", "*", `[installed${suffix}]`);
    const all = patchMatch(d, n, v, ar, `[available${suffix}]`);
    if (one === "error" || all === "error") return false;
    installed += Number(one === "match");
    matches += Number(all === "match");
    return true;
  };
  const failed = () => record(d, "error", "failed", "Failure trying to compare package versions");
  if (a.version === undefined && a.text.package_version_regex !== undefined) {
    version = extractFirstReference(a.text.package_version_regex, promise.promiser);
    name = extractFirstReference(a.text.package_name_regex, promise.promiser);
    arch = extractFirstReference(a.text.package_arch_regex, promise.promiser);
    if (!count(name, version, arch)) return failed();
  } else {
    for (const each of [...a.architectures, undefined]) {
      arch = each ?? "*";
      if (!count(name, version, arch, "1")) return failed();
      if (each === undefined) break;
    }
  }
  d.env.log.verbose(`${installed} patch(es) matching the name '${name}' already installed`);
  d.env.log.verbose(`${matches} patch(es) match the promise body's criteria fully`);
  const noVersion = a.version === undefined && a.text.package_version_regex === undefined;
  schedulePackageOp(d, { name, version, arch, installed: installed > 0, matched: matches > 0, noVersion });
  return "kept";
}
