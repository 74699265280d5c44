/**
 * Differential scenarios for Puppet's `package` and `service`, which act on
 * the system: each runs in a DebSandbox (test/providers/packages/
 * deb-sandbox.ts). A scenario is a directory of test/fixtures/puppet-
 * sandboxed/ holding `manifest.pp` (`@ROOT@` is a scratch directory inside
 * the sandbox, where the fake init scripts keep their state) and
 * `scenario.json` (the .deb files to build, packages installed and services
 * started before, the runs). Recording (scripts/record-puppet-sandboxed.ts)
 * runs Puppet 7.23 in the sandbox and stores its catalog and, per run, the
 * events of each Package and Service and the state left (expected.json);
 * the test applies the catalog's resources with tend's types in a fresh
 * sandbox (driver.ts) and compares.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";
import type { EventOutcome } from "../harness.js";
import { type DebSandbox, type DebSpec, INSIDE } from "../../providers/packages/deb-sandbox.js";

export const scenariosDir = fileURLToPath(
  new URL("../../../../test/fixtures/puppet-sandboxed/", import.meta.url),
);
export const NODE = "testnode";
/** The scenario's scratch root, inside the sandbox. */
export const ROOT = `${INSIDE}/root`;

export interface ScenarioSpec {
  readonly description?: string;
  readonly debs?: readonly DebSpec[];
  /** `name=version` installed with apt-get before the first run. */
  readonly installed?: readonly string[];
  /** Fake init scripts written to /etc/init.d (see fakeInitScript). */
  readonly services?: readonly string[];
  /** Services running before the first run. */
  readonly running?: readonly string[];
  /** Services enabled (update-rc.d defaults) before the first run. */
  readonly enabled?: readonly string[];
  readonly runs: readonly { readonly noop?: boolean }[];
}

export interface Scenario extends ScenarioSpec {
  readonly name: string;
  readonly dir: string;
}

export type { EventOutcome };

export interface ResourceOutcome {
  readonly changed: boolean;
  readonly failed: boolean;
  readonly events: readonly EventOutcome[];
}

export interface RunOutcome {
  readonly resources: Record<string, ResourceOutcome>;
  /** dpkg's status and version of each package the scenario built, and each service's state files. */
  readonly state: Record<string, string>;
}

export interface Expected {
  readonly puppetVersion: string;
  readonly runs: readonly RunOutcome[];
}

export function listScenarios(): Scenario[] {
  if (!existsSync(scenariosDir)) return [];
  return readdirSync(scenariosDir)
    .sort()
    .map((name) => {
      const dir = join(scenariosDir, name);
      const spec = JSON.parse(readFileSync(join(dir, "scenario.json"), "utf8")) as ScenarioSpec;
      return { ...spec, name, dir };
    });
}

/** An LSB init script whose start/stop/status keep `<root>/<name>.state` and log to `<root>/<name>.log`. */
export function fakeInitScript(name: string): string {
  return `#!/bin/sh
### BEGIN INIT INFO
# Provides:          ${name}
# Required-Start:
# Required-Stop:
# Default-Start:     2 3 4 5
# Default-Stop:      0 1 6
# Short-Description: tend test service ${name}
### END INIT INFO
S=${ROOT}/${name}.state
L=${ROOT}/${name}.log
case "$1" in
  start) echo running > "$S"; echo start >> "$L" ;;
  stop) rm -f "$S"; echo stop >> "$L" ;;
  restart) echo running > "$S"; echo restart >> "$L" ;;
  status) [ -f "$S" ] ;;
  *) echo "Usage: $0 {start|stop|restart|status}" >&2; exit 3 ;;
esac
`;
}

/** Builds the scenario's system in a fresh sandbox: init scripts, packages, running services. */
export function prepare(scenario: ScenarioSpec, sandbox: DebSandbox): void {
  mkdirSync(sandbox.path("root"), { recursive: true });
  for (const name of scenario.services ?? []) sandbox.writeInitScript(name, fakeInitScript(name));
  const steps: string[] = [];
  if (scenario.installed?.length)
    steps.push(`apt-get -q -y install ${scenario.installed.join(" ")} >/dev/null`);
  for (const name of scenario.running ?? []) steps.push(`/etc/init.d/${name} start`);
  for (const name of scenario.enabled ?? []) steps.push(`update-rc.d ${name} defaults`);
  if (steps.length > 0) sandbox.shell(steps.join("\n"));
}

/** What the run left: each built package's dpkg state, each service's state and log. */
export function snapshotState(scenario: ScenarioSpec, sandbox: DebSandbox): Record<string, string> {
  const state: Record<string, string> = {};
  for (const name of new Set((scenario.debs ?? []).map((d) => d.name)))
    state[`package ${name}`] = sandbox.packageState(name);
  for (const name of scenario.services ?? []) {
    const file = (suffix: string) => sandbox.path("root", `${name}.${suffix}`);
    state[`service ${name}`] = existsSync(file("state")) ? "running" : "stopped";
    state[`service ${name} log`] = existsSync(file("log")) ? readFileSync(file("log"), "utf8").trim() : "";
    const links = sandbox.shell(`ls /etc/rc2.d /etc/rc0.d 2>/dev/null | grep -c '[SK]..${name}$' || true`);
    state[`service ${name} links`] = links.trim();
  }
  return state;
}

interface ReportYaml {
  resource_statuses?: Record<string, Record<string, unknown> & { events?: Record<string, unknown>[] }>;
}

/** The Package and Service resources' outcomes in a Puppet report. */
export function readReport(file: string): Record<string, ResourceOutcome> {
  const report = (
    existsSync(file) ? parseYaml(readFileSync(file, "utf8"), { logLevel: "error" }) : {}
  ) as ReportYaml;
  const resources: Record<string, ResourceOutcome> = {};
  for (const [ref, status] of Object.entries(report.resource_statuses ?? {})) {
    if (!/^(Package|Service)\[/.test(ref)) continue;
    resources[ref] = {
      changed: status.changed === true,
      failed: status.failed === true,
      events: (status.events ?? []).map((e) => ({
        property: String(e.property),
        name: String(e.name),
        status: String(e.status),
        previous_value: e.previous_value ?? null,
        desired_value: e.desired_value ?? null,
        message: String(e.message),
      })),
    };
  }
  return resources;
}

/** Writes a scratch Puppet configuration under `scratch` (outside path) for `inside` (its inside path). */
export function writePuppetConf(scratch: string, inside: string): void {
  mkdirSync(join(scratch, "etc"), { recursive: true });
  const lines = [
    "[main]",
    `vardir = ${inside}/var`,
    `codedir = ${inside}/code`,
    `logdir = ${inside}/var/log`,
    `rundir = ${inside}/var/run`,
    `publicdir = ${inside}/var/public`,
    `ssldir = ${inside}/etc/ssl`,
    `vendormoduledir = ${inside}/vendor_modules`,
    "basemodulepath = $codedir/modules",
    `cadir = ${inside}/etc/ca`,
    "report = true",
    "reports = store",
    "",
  ];
  writeFileSync(join(scratch, "etc", "puppet.conf"), lines.join("\n"));
  const facts = JSON.stringify({ name: NODE, values: fixedFacts(), timestamp: "2024-01-01T00:00:00+00:00" });
  for (const sub of ["server_data/facts", "client_data/facts"]) {
    mkdirSync(join(scratch, "var", sub), { recursive: true });
    writeFileSync(join(scratch, "var", sub, `${NODE}.json`), facts);
  }
}

function fixedFacts(): Record<string, unknown> {
  return {
    clientcert: NODE,
    fqdn: NODE,
    hostname: NODE,
    domain: "",
    kernel: "Linux",
    osfamily: "Debian",
    operatingsystem: "Debian",
    operatingsystemmajrelease: "12",
    os: {
      name: "Debian",
      family: "Debian",
      architecture: "amd64",
      release: { full: "12.7", major: "12", minor: "7" },
      distro: { codename: "bookworm", id: "Debian", release: { full: "12.7", major: "12", minor: "7" } },
    },
    architecture: "amd64",
    identity: { user: "root", uid: 0, gid: 0, group: "root", privileged: true },
    path: "/usr/sbin:/usr/bin:/sbin:/bin",
  };
}
