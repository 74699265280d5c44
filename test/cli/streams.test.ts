/**
 * Where the drop-in commands write: as cf-agent and cf-promises 3.21, log
 * lines on stdout with the reports (in order), policy errors against their
 * source on stderr; `--log-to-stderr` moves the log lines to stderr, and
 * `--json` keeps stdout one JSON document.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { scratchDirectory } from "../scratch.js";
import { runTend } from "./run-tend.js";

const POLICY = `bundle agent main
{
  vars:
      "x" string => readfile("/nonexistent/tend-streams", "10");
  reports:
      "hello";
}
`;

function setUp(): { policy: string; env: NodeJS.ProcessEnv } {
  const dir = scratchDirectory("tend-streams-");
  const policy = join(dir, "p.cf");
  writeFileSync(policy, POLICY, { mode: 0o600 });
  return { policy, env: { CFENGINE_TEST_OVERRIDE_WORKDIR: join(dir, "wd") } };
}

const LOG = /^ {3}error: .*Could not examine file '\/nonexistent\/tend-streams'/m;

test("agent: log and report lines share stdout, in order, as cf-agent writes them", () => {
  const { policy, env } = setUp();
  const run = runTend(["agent", "-K", "-f", policy], { env });
  assert.equal(run.code, 0, run.stdout);
  assert.match(run.stdout, LOG);
  assert.match(run.stdout, /^R: hello$/m);
  assert.equal(run.stderr, "");
});

test("agent --log-to-stderr: reports alone on stdout", () => {
  const { policy, env } = setUp();
  const run = runTend(["agent", "-K", "--log-to-stderr", "-f", policy], { env });
  assert.equal(run.stdout, "R: hello\n");
  assert.match(run.stderr, LOG);
});

test("agent --json: stdout is one JSON document, the log lines on stderr", () => {
  const { policy, env } = setUp();
  const run = runTend(["agent", "-K", "--json", "-f", policy], { env });
  assert.equal((JSON.parse(run.stdout) as { exitCode: number }).exitCode, 0);
  assert.match(run.stderr, LOG);
});

test("check: function errors are log lines on stdout; --json and --log-to-stderr move them", () => {
  const { policy, env } = setUp();
  const plain = runTend(["check", policy], { env });
  assert.equal(plain.code, 0);
  assert.match(plain.stdout, LOG);
  assert.equal(plain.stderr, "");
  const json = runTend(["check", "--json", policy], { env });
  assert.doesNotThrow(() => JSON.parse(json.stdout));
  assert.match(json.stderr, LOG);
  const logs = runTend(["check", "--log-to-stderr", policy], { env });
  assert.equal(logs.stdout, "");
  assert.match(logs.stderr, LOG);
});

test("agent: an unparsable policy's errors go to stderr, its log lines to stdout", () => {
  const { policy, env } = setUp();
  writeFileSync(policy, 'bundle agent main {\n  vars: "x" string => "y"\n}\n');
  const run = runTend(["agent", "-K", "-f", policy], { env });
  assert.match(run.stderr, /p\.cf:\d+:\d+: error: /);
  assert.match(run.stdout, /^ {3}error: There are syntax errors in policy files$/m);
});

/**
 * 00_basics/def.json/augments_order.cf greps `cf-promises --show-vars`
 * through execresult, which also reads stderr: cf-promises 3.21 logs an
 * input it cannot resolve as one error line on stdout, and nothing on
 * stderr (recorded from cf-promises 3.21 on this policy).
 */
test("check: an unresolved input is an error log line on stdout, the policy still valid", () => {
  const { policy, env } = setUp();
  writeFileSync(policy, 'body common control\n{\n    inputs => { "@(def.inputs)" };\n}\n');
  const run = runTend(["check", "--show-vars", policy], { env });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stderr, "");
  const lines = run.stdout.split("\n");
  assert.equal(lines[0], "   error: Unresolved variable '@(def.inputs)' in input list, cannot parse");
  assert.match(lines[1] ?? "", /^Variable name +Variable value/);
  assert.equal(lines.filter((line) => line.includes("Unresolved variable")).length, 1);
});
