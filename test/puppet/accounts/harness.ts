/**
 * The sandboxed Puppet harness of the account, cron and host scenarios
 * (scenarios.ts). Each scenario runs in a users sandbox (a mount namespace
 * with copies of /etc, /home and /var/spool/cron bound over the real
 * ones), whose account files are first cut down to the system's own
 * (uids and gids below 1000) and whose /etc/hosts is fixed, so that the
 * state compared is the same on any machine. Recording (record.ts) runs
 * Puppet 7.23 there; the test (differential.test.ts) runs `tend puppet
 * apply --catalog` there on the recorded catalog and compares the per-resource statuses and events,
 * the exit code and the final state (account lines, hosts, crontabs,
 * homes).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Sandbox } from "../../promises/users/sandbox.js";
import { snapshotTree, type ResourceOutcome, type TreeEntry } from "../harness.js";
import type { AccountsScenario } from "./scenarios.js";

export const fixturesDir = fileURLToPath(
  new URL("../../../../test/fixtures/puppet-accounts/", import.meta.url),
);

export interface AccountsState {
  readonly passwd: readonly string[];
  readonly group: readonly string[];
  readonly shadow: readonly string[];
  readonly gshadow: readonly string[];
  readonly hosts: string;
  readonly crontabs: Readonly<Record<string, string>>;
  readonly home: readonly TreeEntry[];
}

export interface AccountsRun {
  readonly exitCode: number;
  readonly resources: Readonly<
    Record<string, Pick<ResourceOutcome, "changed" | "failed" | "skipped" | "events">>
  >;
  readonly state: AccountsState;
}

export interface AccountsExpected {
  readonly puppetVersion: string;
  readonly runs: readonly AccountsRun[];
}

const BASE_HOSTS = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n";

const lines = (text: string) => text.split("\n").filter((l) => l !== "");

/** The system's own entries only: ids below 1000, and nogroup/nobody. */
function systemOnly(text: string, idField: number): string {
  const kept = text.split("\n").filter((line) => {
    const id = Number(line.split(":")[idField]);
    return line !== "" && (!(id >= 1000) || id === 65534);
  });
  return `${kept.join("\n")}\n`;
}

/** The account lines of the sandbox before the scenario's setup: the state compared leaves them out. */
const bases = new WeakMap<Sandbox, ReadonlySet<string>>();

function accountLines(sandbox: Sandbox): string[] {
  const etc = join(sandbox.dir, "etc");
  return ["passwd", "group", "shadow", "gshadow"].flatMap((name) =>
    lines(readFileSync(join(etc, name), "utf8")).map((line) => `${name}:${normalizeShadow(name, line)}`),
  );
}

/** The date of the last password change is the day the run happened. */
function normalizeShadow(name: string, line: string): string {
  return name === "shadow" ? line.replace(/^([^:]*:[^:]*:)\d+:/, "$1D:") : line;
}

/** A sandbox with the fixed base state, the scenario's setup run in it. */
export function scenarioSandbox(scenario: AccountsScenario): Sandbox {
  const sandbox = new Sandbox();
  const etc = join(sandbox.dir, "etc");
  const passwd = systemOnly(readFileSync(join(etc, "passwd"), "utf8"), 2);
  const names = new Set(passwd.split("\n").map((l) => l.split(":")[0]));
  writeFileSync(join(etc, "passwd"), passwd);
  const shadow = readFileSync(join(etc, "shadow"), "utf8").split("\n");
  writeFileSync(join(etc, "shadow"), `${shadow.filter((l) => names.has(l.split(":")[0])).join("\n")}\n`);
  const group = systemOnly(readFileSync(join(etc, "group"), "utf8"), 2);
  const groups = new Set(group.split("\n").map((l) => l.split(":")[0]));
  writeFileSync(join(etc, "group"), group);
  const gshadow = readFileSync(join(etc, "gshadow"), "utf8").split("\n");
  writeFileSync(join(etc, "gshadow"), `${gshadow.filter((l) => groups.has(l.split(":")[0])).join("\n")}\n`);
  writeFileSync(join(etc, "hosts"), BASE_HOSTS);
  mkdirSync(join(sandbox.dir, "spool", "crontabs"), { recursive: true });
  sandbox.shell("chgrp crontab /var/spool/cron/crontabs && chmod 1730 /var/spool/cron/crontabs");
  bases.set(sandbox, new Set(accountLines(sandbox)));
  if (scenario.setup) sandbox.shell(scenario.setup);
  return sandbox;
}

/** Why sandboxed Puppet scenarios cannot run here, or undefined. */
export function accountsUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return "needs root (mount namespaces and the shadow tools)";
  for (const tool of ["unshare", "crontab", "useradd", "groupadd"]) {
    if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0) return `${tool} is absent`;
  }
  return undefined;
}

/** The state the types manage, with dates that vary by day and time left out. */
export function readState(sandbox: Sandbox): AccountsState {
  const etc = join(sandbox.dir, "etc");
  const read = (name: string) => readFileSync(join(etc, name), "utf8");
  const spool = join(sandbox.dir, "spool", "crontabs");
  const crontabs: Record<string, string> = {};
  for (const user of existsSync(spool) ? readdirSync(spool).sort() : []) {
    crontabs[user] = normalizeDates(readFileSync(join(spool, user), "utf8"));
  }
  // Only lines the scenario made or changed: the machine's own accounts differ between machines.
  const base = bases.get(sandbox) ?? new Set<string>();
  const made = (name: string) =>
    lines(read(name))
      .map((line) => normalizeShadow(name, line))
      .filter((line) => !base.has(`${name}:${line}`));
  return {
    passwd: made("passwd"),
    group: made("group"),
    shadow: made("shadow"),
    gshadow: made("gshadow"),
    hosts: normalizeDates(read("hosts")),
    crontabs,
    home: snapshotTree(join(sandbox.dir, "home")),
  };
}

function normalizeDates(text: string): string {
  return text
    .replace(/autogenerated at [^\n]*? \+0000/g, "autogenerated at DATE")
    .replace(/\(- installed on [^)]*\)/g, "(- installed on DATE)");
}

export function readExpected(name: string): AccountsExpected {
  return JSON.parse(readFileSync(join(fixturesDir, name, "expected.json"), "utf8")) as AccountsExpected;
}

export function catalogFile(name: string): string {
  return join(fixturesDir, name, "catalog.json");
}
