/**
 * The patches of a package_method (`package_policy => "patch"`), as 3.21
 * lists them after the installed packages: each line of
 * `package_patch_list_command` that matches `package_patch_installed_regex`
 * is an installed patch, any other an available one; name, version and
 * architecture come from the `package_patch_*_regex` attributes.
 */
import { commandArg0 } from "../../eval/functions/exec.js";
import type { PromiseEnvironment } from "../contract.js";
import { isExecutable } from "../commands/executable.js";
import type { MethodAttributes } from "./method-body.js";
import { fullTextMatch, pickPackage, runMethodCommand } from "./method-commands.js";
import { type InstalledList, type PackageItem, prependItem } from "./method-inventory.js";

/** A patch line's (name, version, arch), added unless unmatched or already in `installed`. */
function prependPatch(
  env: PromiseEnvironment,
  a: MethodAttributes,
  target: PackageItem[],
  line: string,
  installed: readonly PackageItem[],
  defaultArch: string,
): boolean {
  const t = a.text;
  const regexes = [
    t.package_patch_name_regex,
    t.package_patch_version_regex,
    t.package_patch_arch_regex,
  ] as const;
  const item = pickPackage(line, regexes, defaultArch);
  if (!item) return false;
  const { name, version, arch } = item;
  if (
    name &&
    version &&
    arch &&
    installed.some((p) => p.name === name && p.version === version && p.arch === arch)
  ) {
    env.log.verbose(
      `Patch for (${name},${version},${arch}) [name,version,arch] found, but it appears to be installed already`,
    );
    return false;
  }
  return prependItem(target, { name, version, arch }, env);
}

/** Reads `package_patch_list_command`: installed patches match `package_patch_installed_regex`. */
export function readPatches(
  env: PromiseEnvironment,
  a: MethodAttributes,
  list: InstalledList,
  defaultArch: string,
) {
  const command = a.text.package_patch_list_command;
  if (command === undefined) return true;
  env.log.verbose(`Reading patches from '${commandArg0(command)}'`);
  if (!a.useShell && !isExecutable(commandArg0(command), env)) {
    env.log.error(`The proposed patch list command '${command}' was not executable`);
    return false;
  }
  const installedRegex = a.text.package_patch_installed_regex;
  for (const line of runMethodCommand(command, a.useShell).lines) {
    const installed = installedRegex !== undefined && fullTextMatch(installedRegex, line);
    const target = installed ? list.patches : list.availablePatches;
    prependPatch(env, a, target, line, list.patches, defaultArch);
  }
  return true;
}
