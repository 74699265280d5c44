/**
 * Must-show 2 of issue 15 (first sample): the same measurements promises
 * on files and a pipe the test controls, kept by cf-monitord 3.21 (in a
 * private mount namespace, one sample) and by tend monitord. The
 * measurement lines of env_data are the same, in the same order; the log
 * lines carry the same value; cf-agent reads both work directories into
 * the same report (3.21 keeps string and list values in its nova_static
 * database, tend in env_data: the agents see the same mon.<handle>).
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

function policy(data: string): string {
  return `body common control { bundlesequence => { "main" }; }
bundle monitor watch {
  measurements:
    "${data}"
      handle => "temp_now", stream_type => "file", data_type => "int", history_type => "scalar",
      units => "C", match_value => extract("temp=.*", "temp=([0-9]+)");
    "${data}"
      handle => "temp_weekly", stream_type => "file", data_type => "real", history_type => "weekly",
      match_value => extract("temp=.*", "temp=([0-9.]+)");
    "${data}"
      handle => "errors", stream_type => "file", data_type => "counter", history_type => "scalar",
      match_value => lines("err.*");
    "${data}"
      handle => "error_codes", stream_type => "file", data_type => "counter", history_type => "static",
      match_value => extract("err.*", "err ([0-9]+)");
    "${data}"
      handle => "names", stream_type => "file", data_type => "slist", history_type => "static",
      match_value => extract("name=.*", "name=(.*)");
    "${data}"
      handle => "first_name", stream_type => "file", data_type => "string", history_type => "static",
      match_value => extract("name=.*", "name=(.*)");
    "${data}"
      handle => "logged", stream_type => "file", data_type => "string", history_type => "log",
      match_value => extract("name=.*", "name=(.*)");
    "/bin/echo value 17"
      handle => "echoed", stream_type => "pipe", data_type => "int", history_type => "static",
      match_value => extract("value.*", "value ([0-9]+)");
}
body match_value extract(line, regex) { select_line_matching => "$(line)"; extraction_regex => "$(regex)"; }
body match_value lines(line) { select_line_matching => "$(line)"; }
bundle agent main {
  reports:
    "temp=$(mon.value_temp_now) av=$(mon.av_temp_now) weekly=$(mon.value_temp_weekly) errors=$(mon.value_errors) codes=$(mon.value_error_codes) echoed=$(mon.value_echoed)";
    "name $(mon.names)";
    "first $(mon.first_name)";
}
`;
}

function host(root: string, name: string, data: string): string {
  const dir = join(root, name);
  for (const sub of ["inputs", "state", "ppkeys"]) mkdirSync(join(dir, sub), { recursive: true });
  for (const sub of ["", "state", "ppkeys"]) chmodSync(join(dir, sub), 0o700);
  writeFileSync(join(dir, "inputs/promises.cf"), policy(data));
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

function cfAgentReport(dir: string): string {
  const argv = inNamespace(dir, "cf-agent", ["-K", "-f", join(dir, "inputs/promises.cf")]);
  const run = spawnSync(argv[0] as string, argv.slice(1), { encoding: "utf8", timeout: 60_000 });
  assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
  return run.stdout;
}

const HANDLES = /^(value|av|dev)_(temp_now|temp_weekly|errors|error_codes|echoed)=|^temp_weekly_/;

test("measurements kept by tend monitord as cf-monitord 3.21 keeps them (first sample)", async (t) => {
  const why = whyNot();
  if (why) return t.skip(why);
  const root = mkdtempSync(join(tmpdir(), "tend-monitord-measure-ref-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const data = join(root, "data.txt");
  writeFileSync(data, "temp=42\nname=alpha\nname=beta\nerr 3\nerr 4\nerr x\n");
  const reference = host(root, "cf", data);
  const tend = host(root, "tend", data);
  await cfMonitordFirstSample(reference);
  const run = runTend(["monitord", "--once", "-w", tend]);
  assert.equal(run.code, 0, run.stdout + run.stderr);

  const measured = (dir: string) =>
    readFileSync(join(dir, "state/env_data"), "utf8")
      .split("\n")
      .filter((l) => HANDLES.test(l));
  assert.deepEqual(measured(tend), measured(reference));
  assert.ok(measured(tend).includes("value_errors=0"), "a counter without extraction_regex counts nothing");

  const logged = (dir: string) =>
    readFileSync(join(dir, "state/logged_measure.log"), "utf8")
      .trim()
      .split("\n")
      .map((l) => l.replace(/^[^,]*,\d+,/, ""));
  assert.deepEqual(logged(tend), logged(reference));

  const fromReference = cfAgentReport(reference);
  assert.equal(cfAgentReport(tend), fromReference);
  assert.match(fromReference, /R: name alpha\nR: name beta/);
});
