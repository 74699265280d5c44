/**
 * Runs packages scenarios (scenarios.ts) in temporary directories through
 * tend (in this process) or cf-agent (a command), twice each, and takes
 * what both must agree on: the fake system left (installed packages, and
 * the requests the fake package module or manager saw), the
 * info/notice/warning/error lines and the reports. The fixtures are a
 * package module and a package manager written in sh
 * (fixtures/fake-module.sh, fixtures/fake-pm.sh): they only touch the
 * scenario's directory. Paths in messages read `D` for the scenario's
 * directory and `R` for the root holding it.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type Capture,
  type RunResult,
  type ScenarioResult,
  runCfAgentCapturing,
  runTendCapturing,
  runTwice,
} from "../scenario-runs.js";
import { scratchDirectory } from "../../scratch.js";

export type { RunResult, ScenarioResult } from "../scenario-runs.js";

export interface PackagesScenario {
  readonly name: string;
  /** Lines of the fake system's files: `installed`, `updates` (module), `available` (manager). */
  readonly system?: Readonly<Record<string, string>>;
  /** The body of `bundle agent main`: `$(d)` is the system directory, `$(r)` the root with the fixtures. */
  readonly main: string;
  /** More bundles and bodies. */
  readonly extra?: string;
  /** Lines of body common control. */
  readonly control?: string;
}

const FIXTURES = fileURLToPath(new URL("../../../../test/promises/packages/fixtures/", import.meta.url));

/** Bodies every scenario may use. */
const PRELUDE = `
body package_module fake
{
  query_installed_ifelapsed => "60";
  query_updates_ifelapsed => "60";
  default_options => { "$(main.d)" };
  module_path => "$(main.r)/fake-module.sh";
}
body package_method pm
{
  package_changes => "individual";
  package_list_command => "$(main.r)/fake-pm.sh $(main.d) list";
  package_list_name_regex => "^([^-]+)-";
  package_list_version_regex => "^[^-]+-([^-]+)-";
  package_list_arch_regex => "^[^-]+-[^-]+-(\\S+)$";
  package_installed_regex => ".*";
  package_add_command => "$(main.r)/fake-pm.sh $(main.d) add";
  package_delete_command => "$(main.r)/fake-pm.sh $(main.d) delete";
  package_update_command => "$(main.r)/fake-pm.sh $(main.d) update";
  package_verify_command => "$(main.r)/fake-pm.sh $(main.d) verify";
  package_noverify_returncode => "2";
}
body package_method pm_bulk
{
  inherit_from => pm;
  package_changes => "bulk";
}
body package_method pm_noshell
{
  inherit_from => pm;
  package_commands_useshell => "false";
}
body package_method pm_convention
{
  inherit_from => pm;
  package_name_convention => "$(name)-$(version)-$(arch)";
  package_delete_convention => "$(name)";
}
body package_method pm_patch
{
  inherit_from => pm;
  package_patch_list_command => "$(main.r)/fake-pm.sh $(main.d) patches";
  package_patch_name_regex => "^([^-]+)-";
  package_patch_version_regex => "^[^-]+-([^-]+)-";
  package_patch_arch_regex => "^[^-]+-[^-]+-(\\S+) ";
  package_patch_installed_regex => ".* installed";
  package_patch_command => "$(main.r)/fake-pm.sh $(main.d) patch";
}
body package_method pm_multiline
{
  inherit_from => pm;
  package_list_command => "/bin/cat $(main.d)/multi";
  package_multiline_start => "Package:.*";
  package_list_name_regex => "Package: (\\S+)";
  package_list_version_regex => "Version: (\\S+)";
  package_list_arch_regex => "Arch: (\\S+)";
}
body package_method pm_numeric
{
  inherit_from => pm;
  package_version_less_command => "/usr/bin/test $(v1) -lt $(v2)";
}
body action warn_only { action_policy => "warn"; }
body action immediate { ifelapsed => "0"; }
body classes outcome(p) { promise_kept => { "$(p)_kept" }; promise_repaired => { "$(p)_repaired" }; repair_failed => { "$(p)_failed" }; }
`;

export function scenarioPolicy(scenario: PackagesScenario, root: string, dir: string): string {
  return `body common control { bundlesequence => { "main" }; ${scenario.control ?? ""} }
bundle agent main {
vars:
  "d" string => "${dir}";
  "r" string => "${root}";
${scenario.main}
}
${scenario.extra ?? ""}
${PRELUDE}`;
}

/** A fresh system directory and the fixtures; returns the root, the directory and the policy. */
export function prepare(scenario: PackagesScenario): { root: string; dir: string; policy: string } {
  const root = scratchDirectory("tend-packages-scenario-");
  const dir = join(root, "d");
  mkdirSync(dir);
  for (const fixture of ["fake-module.sh", "fake-pm.sh"])
    copyFileSync(join(FIXTURES, fixture), join(root, fixture));
  for (const [name, text] of Object.entries(scenario.system ?? {})) writeFileSync(join(dir, name), text);
  const policy = join(root, "policy.cf");
  writeFileSync(policy, scenarioPolicy(scenario, root, dir));
  return { root, dir, policy };
}

/** The fake system's files, each with its lines (the directory's own path reads `D`). */
export function snapshot(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .map((name) => `${name}: ${JSON.stringify(readFileSync(join(dir, name), "utf8").split(dir).join("D"))}`);
}

function relative(text: string, dir: string): string {
  const root = dir.slice(0, dir.lastIndexOf("/"));
  return text.split(dir).join("D").split(root).join("R");
}

const CAPTURE: Capture = { levels: new Set(["error", "warning", "notice", "info"]), relative, snapshot };

export function runTend(policy: string, root: string, dir: string): RunResult {
  return runTendCapturing(policy, root, dir, CAPTURE);
}

export function runCfAgent(command: string, policy: string, root: string, dir: string): RunResult {
  return runCfAgentCapturing(command, policy, root, dir, CAPTURE);
}

export function runScenario(
  scenario: PackagesScenario,
  run: (policy: string, root: string, dir: string) => RunResult,
): ScenarioResult {
  return runTwice(scenario.name, prepare(scenario), run);
}
