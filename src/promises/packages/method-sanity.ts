/**
 * 3.21's checks of a package_method promise before it acts: the listing
 * attributes it needs, and attributes that make no sense without others.
 * Returns the first problem's message (logged as the promise's failure).
 */
import { commandArg0 } from "../../eval/functions/exec.js";
import type { PromiseEnvironment } from "../contract.js";
import { isExecutable } from "../commands/executable.js";
import type { MethodAttributes, MethodText } from "./method-body.js";

const USE_GENERIC = "e.g. use the standard library generic package_method";
const EITHER =
  "You must either supply all regexs for (name,version,arch) or a separate version number and architecture";

/** Attributes that need another: [missing one, present one, what 3.21 calls it]. */
const DEPENDENCIES: readonly [MethodText, MethodText | "noverify_returncode", string][] = [
  ["package_delete_command", "package_delete_convention", "package_delete_convention"],
  ["package_list_command", "package_installed_regex", "package_installed_regex"],
  ["package_list_command", "package_list_arch_regex", "package_arch_regex"],
  ["package_list_command", "package_list_name_regex", "package_name_regex"],
  ["package_list_command", "package_list_version_regex", "package_version_regex"],
  ["package_patch_command", "package_patch_arch_regex", "package_patch_arch_regex"],
  ["package_patch_command", "package_patch_name_regex", "package_patch_name_regex"],
  ["package_patch_command", "package_patch_version_regex", "package_patch_version_regex"],
  ["package_patch_list_command", "package_patch_installed_regex", "package_patch_installed_regex"],
  ["package_verify_command", "package_noverify_regex", "package_noverify_regex"],
  ["package_verify_command", "noverify_returncode", "package_noverify_returncode"],
];

function regexProblem(a: MethodAttributes): string | undefined {
  const t = a.text;
  const name = t.package_name_regex !== undefined;
  const version = t.package_version_regex !== undefined;
  const arch = t.package_arch_regex !== undefined;
  if (!name && !version && !arch) return undefined;
  if (!name)
    return "You must supply name regex if you supplied version or arch regex for parsing promiser string";
  const versionGiven = a.version !== undefined;
  const archGiven = a.architectures.length > 0;
  if (version && arch) {
    if (versionGiven || archGiven) return EITHER;
  } else if (versionGiven && archGiven) return EITHER;
  if (version && versionGiven) return "You must either supply version regex or a separate version number";
  if (arch && archGiven) return "You must either supply arch regex or a separate architecture";
  return undefined;
}

function verifyProblem(a: MethodAttributes): string | undefined {
  const t = a.text;
  if (a.policy === "verify") {
    if (t.package_verify_command === undefined)
      return "!! Package verify policy is used, but no package_verify_command is defined";
    if (a.noverifyReturncode === undefined && t.package_noverify_regex === undefined)
      return "!! Package verify policy is used, but no definition of verification failiure is set (package_noverify_returncode or packages.package_noverify_regex)";
  }
  if (a.noverifyReturncode !== undefined && t.package_noverify_regex !== undefined)
    return "!! Both package_noverify_returncode and package_noverify_regex are defined, pick one of them";
  return undefined;
}

function dependencyProblem(a: MethodAttributes): string | undefined {
  for (const [needed, present, shown] of DEPENDENCIES) {
    const has =
      present === "noverify_returncode" ? a.noverifyReturncode !== undefined : a.text[present] !== undefined;
    if (a.text[needed] === undefined && has)
      return `!! Dependency conflict: ${needed} is not used, but ${shown} is defined.`;
  }
  return undefined;
}

export function methodSanityProblem(a: MethodAttributes, env: PromiseEnvironment): string | undefined {
  const t = a.text;
  if (t.package_list_name_regex === undefined)
    return `You must supply a method for determining the name of existing packages ${USE_GENERIC}`;
  if (t.package_list_version_regex === undefined)
    return `You must supply a method for determining the version of existing packages ${USE_GENERIC}`;
  const list = t.package_list_command;
  if (!a.useShell && list !== undefined && !isExecutable(commandArg0(list), env))
    return `The proposed package list command '${list}' was not executable`;
  if (list === undefined && a.fileRepositories.length === 0)
    return `You must supply a method for determining the list of existing packages (a command or repository list) ${USE_GENERIC}`;
  const regex = regexProblem(a);
  if (regex) return regex;
  if (t.package_installed_regex === undefined) return "!! Package installed regex undefined";
  return verifyProblem(a) ?? dependencyProblem(a);
}
