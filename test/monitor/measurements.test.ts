/**
 * `measurements` promises kept by tend monitord on files and a pipe the
 * test controls: scalar numbers averaged from sample to sample, a weekly
 * measurement in its own observable slot, counters, a static list, a log,
 * and tend agent reading them as mon.* variables.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runTend } from "../cli/run-tend.js";

function policy(dir: string): string {
  const data = join(dir, "data.txt");
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
      match_value => extract("err.*", "err ([0-9]+)");
    "${data}"
      handle => "names", stream_type => "file", data_type => "slist", history_type => "static",
      match_value => extract("name=.*", "name=(.*)");
    "${data}"
      handle => "first_name", stream_type => "file", data_type => "string", history_type => "log",
      match_value => extract("name=.*", "name=(.*)");
    "/bin/echo value 17"
      handle => "echoed", stream_type => "pipe", data_type => "int", history_type => "static",
      match_value => extract("value.*", "value ([0-9]+)");
}
body match_value extract(line, regex) { select_line_matching => "$(line)"; extraction_regex => "$(regex)"; }
body match_value lines(line) { select_line_matching => "$(line)"; }
bundle agent main {
  reports:
    "temp=$(mon.value_temp_now) av=$(mon.av_temp_now) weekly=$(mon.value_temp_weekly) errors=$(mon.value_errors) echoed=$(mon.value_echoed)";
    "name $(mon.names)";
}
`;
}

test("measurements promises: values, averages, weekly slots, lists and logs", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "tend-monitord-measure-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "inputs"));
  writeFileSync(join(dir, "inputs/promises.cf"), policy(dir));
  writeFileSync(join(dir, "data.txt"), "temp=42\nname=alpha\nname=beta\nerr 1\nerr 2\n");
  assert.equal(runTend(["monitord", "--once", "-w", dir]).code, 0);
  writeFileSync(join(dir, "data.txt"), "temp=43\nname=gamma\nerr 5\n");
  const second = runTend(["monitord", "--once", "-w", dir]);
  assert.equal(second.code, 0, second.stdout + second.stderr);

  const env = readFileSync(join(dir, "state/env_data"), "utf8").split("\n");
  // 0.7 on the new value, 0.3 on the old average (42.70, as measured on cf-monitord 3.21).
  assert.ok(env.includes("value_temp_now=43"), env.join("\n"));
  assert.ok(env.includes("av_temp_now=42.70"));
  assert.ok(env.includes("value_errors=1"));
  assert.ok(env.includes("value_echoed=17"));
  assert.ok(env.includes("value_temp_weekly=43.00"), "a weekly measurement is an observable");
  assert.ok(env.includes("@names={'gamma'}"));
  assert.ok(
    env.indexOf("value_temp_weekly=43.00") < env.indexOf("value_temp_now=43"),
    "weekly slots come with the observables, scalar measurements after them",
  );
  const log = readFileSync(join(dir, "state/first_name_measure.log"), "utf8").trim().split("\n");
  assert.equal(log.length, 2);
  assert.match(log[0] as string, /^\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4},\d+,alpha$/);
  assert.match(log[1] as string, /,gamma$/);

  const agent = runTend(["agent", "-K", "-w", dir]);
  assert.equal(agent.code, 0, agent.stdout + agent.stderr);
  assert.match(agent.stdout, /R: temp=43 av=42\.70 weekly=43\.00 errors=1 echoed=17/);
  assert.match(agent.stdout, /R: name gamma/);
});

test("an invalid measurement is refused with 3.21's message and the others kept", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "tend-monitord-measure-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "inputs"));
  writeFileSync(
    join(dir, "inputs/promises.cf"),
    `body common control { bundlesequence => { "main" }; }
bundle monitor watch {
  measurements:
    "relative/path" handle => "bad", stream_type => "file", data_type => "int";
}
bundle agent main { reports: "ok"; }
`,
  );
  const run = runTend(["monitord", "--once", "-w", dir]);
  assert.equal(run.code, 0);
  assert.match(run.stdout, /The promiser 'relative\/path' of a measurement was not an absolute path/);
});
