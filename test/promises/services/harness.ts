/**
 * Runs services scenarios (scenarios.ts) in temporary directories through
 * tend and cf-agent, twice each, and takes what both must agree on: the
 * fake service's state left (fixtures/fake-init.sh keeps it in the
 * scenario's directory), the info/notice/warning/error lines and the
 * reports (through which scenarios show their outcome classes). Paths in
 * messages read `D` for the scenario's directory and `R` for its root. A last bundle reports the
 * outcome classes `classes => outcome("web")` (or "s") set.
 *
 * Scenarios marked `mpf` drive the MPF's own `standard_services` (lib/
 * services.cf as Debian installs it) against the fake script: each agent
 * then runs as a child process in a private mount namespace where a
 * directory of the scenario is bound over /etc/init.d (and a tmpfs over
 * /run/systemd, so `service` does not hand over to systemd). Nothing
 * outside the scenario's directory changes.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
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

export interface ServicesScenario {
  readonly name: string;
  /** Files of the fake system before the run (`a.state` => "running"...). */
  readonly system?: Readonly<Record<string, string>>;
  /** The body of `bundle agent main`: `$(d)` is the state directory, `$(r)` the root with the fake script. */
  readonly main: string;
  /** More bundles and bodies. */
  readonly extra?: string;
  /** Lines of body common control. */
  readonly control?: string;
  /** Uses the MPF's standard_services: /etc/init.d holds these services (fake scripts). */
  readonly mpf?: readonly string[];
  /** With `mpf`: the `systemd` class is defined and a fake systemctl stands for the real one. */
  readonly systemd?: boolean;
}

const FIXTURES = fileURLToPath(new URL("../../../../test/promises/services/fixtures/", import.meta.url));
const REPO = fileURLToPath(new URL("../../../../", import.meta.url));
/** The MPF as Debian installs it, outside /var/lib/cfengine3 (which cf-agent's work directory hides). */
export const MPF_LIB = "/usr/share/cfengine3/masterfiles/lib";
/** The systemctl the MPF's paths bundle names on Debian (/bin is /usr/bin). */
export const SYSTEMCTL = "/usr/bin/systemctl";

/** Bundles and bodies every scenario may use. */
const PRELUDE = `
bundle agent fake_service(service, state)
{
classes:
  "running" expression => returnszero("$(main.r)/fake-init.sh $(main.d) $(service) status", "noshell");
  "want_$(state)" expression => "any";
  "enabled" expression => fileexists("$(main.d)/$(service).enabled");
commands:
  (want_start|want_restart).!running::
    "$(main.r)/fake-init.sh $(main.d) $(service) start";
  want_stop.running::
    "$(main.r)/fake-init.sh $(main.d) $(service) stop";
  want_restart.running::
    "$(main.r)/fake-init.sh $(main.d) $(service) restart";
  want_reload::
    "$(main.r)/fake-init.sh $(main.d) $(service) reload";
  want_enable.!enabled::
    "$(main.r)/fake-init.sh $(main.d) $(service) enable";
  want_disable.enabled::
    "$(main.r)/fake-init.sh $(main.d) $(service) disable";
  !(want_start|want_stop|want_restart|want_reload|want_enable|want_disable)::
    "$(main.r)/fake-init.sh $(main.d) $(service) $(state)";
reports:
  "fake_service($(service), $(state)) called";
}
body classes outcome(p)
{
  promise_kept => { "$(p)_kept" };
  promise_repaired => { "$(p)_repaired" };
  repair_failed => { "$(p)_failed" };
  scope => "namespace";
}
body action svc_warn_only { action_policy => "warn"; }
bundle agent end
{
methods:
  "web" usebundle => show("web");
  "s" usebundle => show("s");
}
bundle agent show(p)
{
reports:
  "$(p): kept" if => "$(p)_kept";
  "$(p): repaired" if => "$(p)_repaired";
  "$(p): failed" if => "$(p)_failed";
}
`;

export function scenarioPolicy(scenario: ServicesScenario, root: string, dir: string): string {
  const inputs = scenario.mpf ? `inputs => { "${MPF_LIB}/stdlib.cf" };` : "";
  const sequence = scenario.systemd ? `"fake_systemd", "main", "end"` : `"main", "end"`;
  const systemd = scenario.systemd
    ? `bundle common fake_systemd { classes: "systemd" expression => "any"; }\n`
    : "";
  return `${systemd}body common control { bundlesequence => { ${sequence} }; ${inputs} ${scenario.control ?? ""} }
bundle agent main {
vars:
  "d" string => "${dir}";
  "r" string => "${root}";
${scenario.main}
}
${scenario.extra ?? ""}
${PRELUDE}`;
}

/** A fresh state directory, the fake script (and init.d for MPF scenarios); returns root, directory, policy. */
export function prepare(scenario: ServicesScenario): { root: string; dir: string; policy: string } {
  const root = scratchDirectory("tend-services-scenario-");
  const dir = join(root, "d");
  mkdirSync(dir);
  copyFileSync(join(FIXTURES, "fake-init.sh"), join(root, "fake-init.sh"));
  chmodSync(join(root, "fake-init.sh"), 0o755);
  for (const [name, text] of Object.entries(scenario.system ?? {})) writeFileSync(join(dir, name), text);
  if (scenario.mpf) {
    mkdirSync(join(root, "init.d"));
    for (const service of scenario.mpf) {
      const script = join(root, "init.d", service);
      writeFileSync(script, `#!/bin/sh\nexec ${root}/fake-init.sh ${dir} ${service} "$@"\n`);
      chmodSync(script, 0o755);
    }
  }
  if (scenario.systemd) {
    copyFileSync(join(FIXTURES, "fake-systemctl.sh"), join(root, "fake-systemctl.sh"));
    chmodSync(join(root, "fake-systemctl.sh"), 0o755);
    writeFileSync(join(root, "systemctl"), `#!/bin/sh\nexec ${root}/fake-systemctl.sh ${root} ${dir} "$@"\n`);
    chmodSync(join(root, "systemctl"), 0o755);
  }
  const policy = join(root, "policy.cf");
  writeFileSync(policy, scenarioPolicy(scenario, root, dir));
  return { root, dir, policy };
}

/** The fake system's files, each with its content (the directory's own path reads `D`). */
export function snapshot(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .map((name) => `${name}: ${JSON.stringify(readFileSync(join(dir, name), "utf8").split(dir).join("D"))}`);
}

function relative(text: string, dir: string): string {
  const root = dir.slice(0, dir.lastIndexOf("/"));
  // The prefix of a quoted output line is a window on the command, whose paths depend on TMPDIR.
  return text
    .split(dir)
    .join("D")
    .split(root)
    .join("R")
    .replace(/^Q: "\.\.\.[^"]*"/, 'Q: "..."');
}

const CAPTURE: Capture = { levels: new Set(["error", "warning", "notice", "info"]), relative, snapshot };

/**
 * A shell wrapper running `agent` (argv words) with the options it is
 * given, work directory from $CFA_WD, in a private mount namespace with
 * the scenario's init.d over /etc/init.d.
 */
function writeWrapper(root: string, name: string, agent: string): string {
  const path = join(root, name);
  writeFileSync(
    path,
    `#!/bin/sh
W=$CFA_WD
mkdir -p "$W/inputs" "$W/state" "$W/outputs" "$W/modules" && mkdir -p -m 700 "$W/ppkeys"
exec unshare -m sh -c '
  mount --bind "$0/init.d" /etc/init.d || exit 90
  if [ -f "$0/systemctl" ]; then mount --bind "$0/systemctl" ${SYSTEMCTL} || exit 93; fi
  if [ -d /run/systemd ]; then mount -t tmpfs none /run/systemd || exit 91; fi
  ${agent}' "${root}" "$@"
`,
  );
  chmodSync(path, 0o755);
  return path;
}

function cfAgentWrapper(root: string, cfAgent: string): string {
  return writeWrapper(
    root,
    "cfa.sh",
    `mount --bind "$CFA_WD" /var/lib/cfengine3 || exit 92; exec ${cfAgent} "$@"`,
  );
}

function tendWrapper(root: string): string {
  return writeWrapper(root, "tend.sh", `exec ${process.execPath} ${REPO}bin/tend.js agent -w "$CFA_WD" "$@"`);
}

export type Agent = "tend" | { readonly cfAgent: string };

function runOnce(
  scenario: ServicesScenario,
  agent: Agent,
  policy: string,
  root: string,
  dir: string,
): RunResult {
  if (!scenario.mpf) {
    if (agent === "tend") return runTendCapturing(policy, root, dir, CAPTURE);
    return runCfAgentCapturing(ensureCfaWrapper(root, agent.cfAgent, false), policy, root, dir, CAPTURE);
  }
  const command = agent === "tend" ? tendWrapper(root) : cfAgentWrapper(root, agent.cfAgent);
  return runCfAgentCapturing(command, policy, root, dir, CAPTURE);
}

/** cf-agent alone in its own work directory (no init.d binding). */
function ensureCfaWrapper(root: string, cfAgent: string, _mpf: boolean): string {
  const path = join(root, "cfa-plain.sh");
  if (existsSync(path)) return path;
  writeFileSync(
    path,
    `#!/bin/sh
W=$CFA_WD
mkdir -p "$W/inputs" "$W/state" "$W/outputs" "$W/modules" && mkdir -p -m 700 "$W/ppkeys"
exec unshare -m sh -c 'mount --bind "$0" /var/lib/cfengine3 && exec "$@"' "$W" ${cfAgent} "$@"
`,
  );
  chmodSync(path, 0o755);
  return path;
}

/** Both runs of a scenario with one agent; its root is removed afterwards. */
export function runScenario(scenario: ServicesScenario, agent: Agent): ScenarioResult {
  return runTwice(scenario.name, prepare(scenario), (policy, root, dir) =>
    runOnce(scenario, agent, policy, root, dir),
  );
}

/** Whether this process may make mount namespaces (root with unshare). */
export function canUnshare(): boolean {
  const probe = spawnSync("unshare", ["-m", "true"]);
  return probe.status === 0;
}
