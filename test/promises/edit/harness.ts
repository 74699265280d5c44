/**
 * Runs edit scenarios (test/promises/edit/scenarios.ts) in temporary
 * directories, through tend (in-process) or cf-agent (a command), twice
 * each, and takes what both must agree on: every file left in the
 * directory (name, mode, bytes), the info/warning/error lines and the
 * reports of each run. Paths are shown relative to the directory (`D`),
 * time-stamped backup names with `STAMP`.
 */
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import {
  type Capture,
  type RunResult,
  type ScenarioResult,
  runCfAgentCapturing,
  runTendCapturing,
  runTwice,
} from "../scenario-runs.js";
import type { Scenario } from "./scenarios.js";
import { scratchDirectory } from "../../scratch.js";

export type { RunResult, ScenarioResult } from "../scenario-runs.js";

/** Bodies every scenario may use. */
const PRELUDE = String.raw`
body location start { before_after => "before"; }
body location after(x) { select_line_matching => "$(x)"; before_after => "after"; }
body location before(x) { select_line_matching => "$(x)"; before_after => "before"; }
body location after_first(x) { select_line_matching => "$(x)"; before_after => "after"; first_last => "first"; }
body location before_first(x) { select_line_matching => "$(x)"; before_after => "before"; first_last => "first"; }
body select_region region(s, e) { select_start => "$(s)"; select_end => "$(e)"; }
body select_region region_incl(s, e) { select_start => "$(s)"; select_end => "$(e)"; include_start_delimiter => "true"; include_end_delimiter => "true"; }
body select_region region_eof(s, e) { select_start => "$(s)"; select_end => "$(e)"; select_end_match_eof => "true"; }
body select_region region_start(s) { select_start => "$(s)"; }
body replace_with value(x) { replace_value => "$(x)"; }
body replace_with first(x) { replace_value => "$(x)"; occurrences => "first"; }
body edit_defaults empty { empty_file_before_editing => "true"; }
body edit_defaults nobackup { edit_backup => "false"; }
body action warn_only { action_policy => "warn"; }
body classes outcome(p) { promise_kept => { "$(p)_kept" }; promise_repaired => { "$(p)_repaired" }; repair_failed => { "$(p)_failed" }; }
body perms m(x) { mode => "$(x)"; rxdirs => "false"; }
`;

/** The policy of a scenario for the directory `dir`. */
export function scenarioPolicy(scenario: Scenario, dir: string): string {
  return `body common control { bundlesequence => { "main" }; }
bundle agent main {
vars:
  "d" string => "${dir}";
${scenario.main}
}
${scenario.extra ?? ""}
${PRELUDE}`;
}

/** A fresh directory with the scenario's files; returns the root holding it and the policy. */
export function prepare(scenario: Scenario): { root: string; dir: string; policy: string } {
  const root = scratchDirectory("tend-edit-scenario-");
  const dir = join(root, "d");
  mkdirSync(dir);
  for (const [name, content] of Object.entries(scenario.files ?? {})) {
    const path = join(dir, name);
    if (content.startsWith("->")) symlinkSync(content.slice(2), path);
    else writeFileSync(path, content);
  }
  for (const [name, mode] of Object.entries(scenario.modes ?? {})) chmodSync(join(dir, name), mode);
  const policy = join(root, "policy.cf");
  writeFileSync(policy, scenarioPolicy(scenario, dir));
  return { root, dir, policy };
}

const STAMP = /_\d+_[A-Za-z0-9_]+(\.cf-before-edit)/;

/** The directory's files as both agents must leave them. */
export function snapshot(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const shown = name.replace(STAMP, "_STAMP$1");
    const stats = lstatSync(path);
    if (stats.isSymbolicLink()) out.push(`${shown} -> ${readlinkSync(path)}`);
    else if (stats.isDirectory()) out.push(`${shown}/`);
    else {
      const mode = (stats.mode & 0o7777).toString(8);
      out.push(`${shown} ${mode} ${JSON.stringify(readFileSync(path, "latin1"))}`);
    }
  }
  return out.sort();
}

/** Paths in a message relative to the scenario: `D` its directory, `R` the root holding it and the policy. */
function relative(text: string, dir: string): string {
  const root = dir.slice(0, dir.lastIndexOf("/"));
  return text.split(dir).join("D").split(root).join("R").replace(STAMP, "_STAMP$1");
}

const CAPTURE: Capture = { levels: new Set(["error", "warning", "info"]), relative, snapshot };

/** One run of tend, in this process. */
export function runTend(policy: string, root: string, dir: string): RunResult {
  return runTendCapturing(policy, root, dir, CAPTURE);
}

/** One run of cf-agent through `command` (a wrapper taking cf-agent's options, work directory from $CFA_WD). */
export function runCfAgent(command: string, policy: string, root: string, dir: string): RunResult {
  return runCfAgentCapturing(command, policy, root, dir, CAPTURE);
}

/** Both runs of a scenario with one agent; the directory is removed afterwards. */
export function runScenario(
  scenario: Scenario,
  run: (policy: string, root: string, dir: string) => RunResult,
): ScenarioResult {
  return runTwice(scenario.name, prepare(scenario), run);
}
