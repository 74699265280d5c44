/**
 * Runs guest_environments scenarios (scenarios.ts) through tend (in this
 * process) or cf-agent (in a private mount namespace with its own work
 * directory), and keeps what both must agree on: the info and higher
 * lines, the verbose lines about environments, and the reports (through
 * which the scenarios show their outcome classes). Paths read `D`.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAgent } from "../../../src/agent/run.js";

export interface GuestScenario {
  readonly name: string;
  /** The guest_environments: section of bundle agent main. */
  readonly promises: string;
  /** The outcome class prefixes the scenario reports (each `x` of `classes => o("x")`). */
  readonly show: readonly string[];
}

export interface GuestResult {
  readonly name: string;
  readonly lines: readonly string[];
}

/** The verbose lines of 3.21's verify_environments.c. */
const VERBOSE =
  /^(Selecting environment|Found \d+ (running|dormant)|Found a (running|suspended)|Found an existing|This host|This is not the promised|No spec file|Created a virtual|Deleted virtual|Virtual domain|No such virtual|Detected \d|Discovered a running network|Network '|Couldn't find a network|Info: env_disk|Quoted spec)/;

const BODIES = `
body environment_resources r(c, m) { env_cpus => "$(c)"; env_memory => "$(m)"; env_disk => "10"; }
body environment_resources spec_and_cpus { env_spec => "<domain/>"; env_cpus => "1"; }
body environment_resources spec(x) { env_spec => "$(x)"; }
body environment_interface iface { env_name => "eth0"; env_addresses => { "10.0.0.1" }; }
body classes o(p) { promise_kept => { "$(p)_kept" }; promise_repaired => { "$(p)_repaired" }; repair_failed => { "$(p)_failed" }; scope => "namespace"; }
`;

function policyText(scenario: GuestScenario): string {
  const reports = scenario.show
    .flatMap((p) => ["kept", "repaired", "failed"].map((o) => `  "${p} ${o}" if => "${p}_${o}";`))
    .join("\n");
  return `body common control { bundlesequence => { "main", "end" }; }
bundle agent main {
guest_environments:
${scenario.promises}
}
bundle agent end {
reports:
${reports}
}
${BODIES}`;
}

function keep(level: string, message: string, dir: string): string | undefined {
  // The host's own name (3.21's VFQNAME) differs from machine to machine.
  const text = message
    .split(dir)
    .join("D")
    .replace(/^This host ''[^']*'/, "This host ''H'");
  if (["error", "warning", "notice", "info"].includes(level)) return `${level}: ${text}`;
  return level === "verbose" && VERBOSE.test(text) ? `verbose: ${text}` : undefined;
}

/**
 * libvirt lists running domains in its hash table's order, which changes
 * from run to run: each block of "Found a running virtual domain" pairs is
 * put in the order of the domains' ids.
 */
export function sortDomainLists(lines: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    const pairs: [string, string][] = [];
    while (/with id \d+$/.test(lines[i] ?? "") && (lines[i + 1] ?? "").includes("virtual domain called")) {
      pairs.push([lines[i] as string, lines[i + 1] as string]);
      i += 2;
    }
    if (pairs.length === 0) {
      out.push(lines[i] as string);
      i++;
      continue;
    }
    const id = (line: string) => Number(/(\d+)$/.exec(line)?.[1]);
    pairs.sort((a, b) => id(a[0]) - id(b[0]));
    for (const pair of pairs) out.push(...pair);
  }
  return out;
}

function withScenario<T>(scenario: GuestScenario, body: (dir: string, policy: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), "tend-guest-scenario-"));
  try {
    const policy = join(dir, "policy.cf");
    writeFileSync(policy, policyText(scenario));
    return body(dir, policy);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function runTend(scenario: GuestScenario): GuestResult {
  return withScenario(scenario, (dir, policy) => {
    const lines: string[] = [];
    runAgent(
      { file: policy, ignoreLocks: true, logLevel: "verbose", workdir: join(dir, "wd") },
      {
        log: (r) => {
          const line = keep(r.level, r.message, dir);
          if (line !== undefined) lines.push(line);
        },
        report: (text) => lines.push(`R: ${text}`),
      },
    );
    return { name: scenario.name, lines: sortDomainLists(lines) };
  });
}

export function runCfAgent(scenario: GuestScenario, cfAgent: string): GuestResult {
  return withScenario(scenario, (dir, policy) => {
    const wrapper = join(dir, "cfa.sh");
    writeFileSync(
      wrapper,
      `#!/bin/sh
W=$0.wd
mkdir -p "$W/inputs" "$W/state" "$W/outputs" "$W/modules" && mkdir -p -m 700 "$W/ppkeys"
exec unshare -m sh -c 'mount --bind "$0" /var/lib/cfengine3 && exec "$@"' "$W" ${cfAgent} "$@"
`,
    );
    chmodSync(wrapper, 0o755);
    const run = spawnSync(wrapper, ["-Kv", "-f", policy], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines: string[] = [];
    for (const raw of run.stdout.split("\n")) {
      const report = /^R: (.*)$/.exec(raw);
      const entry = /^\s*(error|warning|notice|info|verbose): (.*)$/.exec(raw);
      if (report) lines.push(`R: ${report[1]}`);
      else if (entry) {
        const line = keep(entry[1] as string, entry[2] as string, dir);
        if (line !== undefined) lines.push(line);
      }
    }
    return { name: scenario.name, lines: sortDomainLists(lines) };
  });
}
