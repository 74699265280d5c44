/**
 * `tend monitord --once` in a scratch work directory: env_data in 3.21's
 * line format, written atomically, the statistics stored; tend agent reads
 * it back as mon.* variables and classes.
 */
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runTend } from "../cli/run-tend.js";

function workdir(t: { after: (f: () => void) => void }, policy: string): string {
  const dir = mkdtempSync(join(tmpdir(), "tend-monitord-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "inputs"), { recursive: true });
  writeFileSync(join(dir, "inputs/promises.cf"), policy);
  return dir;
}

const POLICY = `body common control { bundlesequence => { "main" }; }
body monitor control { forgetrate => "0.7"; }
bundle agent main {
  reports:
    "users=$(mon.value_users) av=$(mon.av_users) dev=$(mon.dev_users)";
    "ports=$(mon.listening_ports)";
    users_high::
      "class users_high";
}
`;

test("tend monitord --once writes env_data in 3.21's format and tend agent reads it", (t) => {
  const dir = workdir(t, POLICY);
  const run = runTend(["monitord", "--once", "-w", dir]);
  assert.equal(run.code, 0, run.stderr + run.stdout);
  const text = readFileSync(join(dir, "state/env_data"), "utf8");
  const lines = text.split("\n").filter((l) => l !== "");
  for (const line of lines)
    assert.match(
      line,
      /^(@[a-z0-9_]+=\{('[^']*'(,'[^']*')*)?\}|[a-z0-9_]+(\[[^\]]+\])?=\S.*|[a-z0-9_]+)$/,
      line,
    );
  const value = (name: string) => lines.find((l) => l.startsWith(`${name}=`))?.slice(name.length + 1);
  const users = Number(value("value_users"));
  assert.ok(users >= 1, "at least root runs processes");
  // A first sample on a new database: 70% of the value expected, and high.
  assert.equal(value("av_users"), (0.7 * users).toFixed(2));
  assert.ok(lines.includes("users_high"), "users_high after the first sample");
  assert.equal(lines.filter((l) => l.startsWith("value_")).length, 100);
  assert.ok(lines.some((l) => l.startsWith("@listening_ports=")));
  assert.ok(lines.includes("entropy_postgresql_in_low"));
  assert.equal(
    readdirSync(join(dir, "state")).filter((f) => f.startsWith(".")).length,
    0,
    "no temporary file left behind",
  );
  assert.ok(existsSync(join(dir, "state/tend-monitor/age.json")));

  const agent = runTend(["agent", "-K", "-w", dir]);
  assert.equal(agent.code, 0, agent.stderr + agent.stdout);
  assert.match(agent.stdout, new RegExp(`R: users=${users.toFixed(2)} av=${(0.7 * users).toFixed(2)} dev=`));
  assert.match(agent.stdout, /R: class users_high/);
});

test("a second sample learns from the first", (t) => {
  const dir = workdir(t, POLICY);
  assert.equal(runTend(["monitord", "--once", "-w", dir]).code, 0);
  const inform = runTend(["monitord", "--once", "-I", "-w", dir]);
  assert.equal(inform.code, 0);
  // As cf-monitord -I prints it.
  assert.match(inform.stdout, /^cf-monitord {5}info: Updated averages at '\w{3}:Hr\d\d:Min\d\d_\d\d'\n$/);
  const age = JSON.parse(readFileSync(join(dir, "state/tend-monitor/age.json"), "utf8"));
  assert.equal(age.age, 2);
});

test("a broken policy stops tend monitord with the diagnostic and exit 1", (t) => {
  const dir = workdir(t, 'bundle agent main {\n  reports:\n    "x"\n}\n');
  const run = runTend(["monitord", "--once", "-w", dir]);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /promises\.cf:\d+:\d+/);
  assert.doesNotMatch(run.stderr + run.stdout, /\n\s+at /, "no stack trace");
  assert.ok(!existsSync(join(dir, "state/env_data")));
});
