/**
 * Must-show 1 of issue 15, cross-reading: env_data written by tend
 * monitord and by cf-monitord 3.21 on the same host, each read by cf-agent
 * 3.21 and by tend agent. Each CFEngine tool runs in a private mount
 * namespace with a scratch work directory bound over /var/lib/cfengine3.
 *
 * - cf-agent gets the same mon.* variable names from tend's env_data as
 *   from cf-monitord's (listening port numbers aside, which change between
 *   the two samples on a shared host), the same entropy classes, and the
 *   same classes for every observable both daemons measured alike;
 * - tend agent reads cf-monitord's env_data into exactly the variables and
 *   classes cf-agent gets from it.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runTend } from "../cli/run-tend.js";

const COMPILED_WORKDIR = "/var/lib/cfengine3";
const BIN = "/usr/bin";

function whyNot(): string | undefined {
  if (process.getuid?.() !== 0) return "needs root (a private mount namespace per scratch host)";
  for (const tool of ["cf-agent", "cf-monitord"])
    if (!existsSync(join(BIN, tool))) return `${tool} 3.21 is not installed (apt-get install cfengine3)`;
  if (!existsSync(COMPILED_WORKDIR)) return `${COMPILED_WORKDIR} is absent`;
  if (spawnSync("unshare", ["--version"], { stdio: "ignore" }).status !== 0) return "unshare is absent";
  return undefined;
}

const POLICY = `body common control { bundlesequence => { "main" }; }
bundle agent main {
  vars:
    "mon_vars" slist => variablesmatching("default:mon\\..*");
    "mon_classes" slist => classesmatching(".*", "source=environment");
  reports:
    "VAR $(mon_vars)";
    "CLASS $(mon_classes)";
}
`;

function scratchHost(root: string, name: string): string {
  const dir = join(root, name);
  for (const sub of ["inputs", "state", "ppkeys"]) mkdirSync(join(dir, sub), { recursive: true });
  for (const sub of ["", "state", "ppkeys"]) chmodSync(join(dir, sub), 0o700);
  writeFileSync(join(dir, "inputs/promises.cf"), POLICY);
  return dir;
}

function inNamespace(dir: string, tool: string, args: readonly string[]): string[] {
  return [
    "unshare",
    "-m",
    "sh",
    "-c",
    `mount --bind "$0" ${COMPILED_WORKDIR} && exec "$@"`,
    dir,
    join(BIN, tool),
    ...args,
  ];
}

/** cf-agent's view of a work directory's env_data: sorted VAR and CLASS lines. */
function cfAgentReads(dir: string): string[] {
  const argv = inNamespace(dir, "cf-agent", ["-K", "-f", join(dir, "inputs/promises.cf")]);
  const run = spawnSync(argv[0] as string, argv.slice(1), { encoding: "utf8", timeout: 60_000 });
  assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
  return reportLines(run.stdout);
}

function tendAgentReads(dir: string): string[] {
  const run = runTend(["agent", "-K", "-w", dir]);
  assert.equal(run.code, 0, `${run.stdout}${run.stderr}`);
  return reportLines(run.stdout);
}

function reportLines(out: string): string[] {
  return out
    .split("\n")
    .filter((l) => /^R: (VAR|CLASS) /.test(l))
    .map((l) => l.slice(3))
    .sort();
}

/** Runs cf-monitord on a scratch host until its first env_data is written, then kills it. */
async function cfMonitordFirstSample(dir: string): Promise<void> {
  const argv = inNamespace(dir, "cf-monitord", ["-F", "-K"]);
  const child = spawn(argv[0] as string, argv.slice(1), { stdio: "ignore" });
  try {
    for (let i = 0; i < 600 && !existsSync(join(dir, "state/env_data")); i++)
      await new Promise((r) => setTimeout(r, 100));
  } finally {
    child.kill("SIGKILL");
    await new Promise((r) => (child.exitCode === null ? child.once("exit", r) : r(undefined)));
  }
  assert.ok(existsSync(join(dir, "state/env_data")), "cf-monitord wrote no env_data within a minute");
}

function values(dir: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of readFileSync(join(dir, "state/env_data"), "utf8").split("\n")) {
    const m = /^value_([^=]+)=(.*)$/.exec(line);
    if (m) map.set(m[1] as string, m[2] as string);
  }
  return map;
}

const portless = (line: string) => line.replace(/_port_addr\[\d+\]/, "_port_addr[N]");

test("cf-agent reads tend monitord's env_data into the names and classes it gets from cf-monitord's", async (t) => {
  const why = whyNot();
  if (why) return t.skip(why);
  const root = mkdtempSync(join(tmpdir(), "tend-monitord-cross-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const reference = scratchHost(root, "cf");
  const tend = scratchHost(root, "tend");
  await cfMonitordFirstSample(reference);
  const run = runTend(["monitord", "--once", "-w", tend]);
  assert.equal(run.code, 0, run.stdout + run.stderr);

  const fromReference = cfAgentReads(reference);
  const fromTend = cfAgentReads(tend);
  const vars = (lines: string[]) =>
    [...new Set(lines.filter((l) => l.startsWith("VAR ")).map(portless))].sort();
  assert.deepEqual(vars(fromTend), vars(fromReference));
  assert.ok(vars(fromTend).length > 250, `${vars(fromTend).length} mon.* variables`);

  // Classes: the entropy classes alike; the observable classes alike for
  // every observable whose first value was the same in both samples.
  const refValues = values(reference);
  const tendValues = values(tend);
  const differing = [...refValues.keys()].filter((k) => refValues.get(k) !== tendValues.get(k));
  const comparable = (line: string) =>
    line.startsWith("CLASS ") &&
    !differing.some((name) => new RegExp(`^CLASS ${name}_(high|low|normal)`).test(line));
  t.diagnostic(`observables measured differently in the two samples: ${differing.join(", ")}`);
  assert.deepEqual(fromTend.filter(comparable), fromReference.filter(comparable));
  assert.ok(fromTend.some((l) => l.startsWith("CLASS entropy_")));
});

test("tend agent reads cf-monitord's env_data into the variables and classes cf-agent gets", async (t) => {
  const why = whyNot();
  if (why) return t.skip(why);
  const root = mkdtempSync(join(tmpdir(), "tend-monitord-cross-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const reference = scratchHost(root, "cf");
  await cfMonitordFirstSample(reference);
  const copy = scratchHost(root, "tend");
  cpSync(join(reference, "state/env_data"), join(copy, "state/env_data"), { preserveTimestamps: true });
  const byCfAgent = cfAgentReads(reference);
  const byTend = tendAgentReads(copy);
  assert.deepEqual(byTend, byCfAgent);
  assert.ok(byTend.some((l) => l === "VAR default:mon.value_users"));
  assert.ok(byTend.some((l) => l === "VAR default:mon.listening_ports"));
  assert.ok(byTend.some((l) => l.startsWith("CLASS users_")));
});
