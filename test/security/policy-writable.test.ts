/**
 * Policy that users other than its owner may write is never run: the
 * agent refuses it as cf-agent does (exit 1), before its policy check
 * evaluates anything in it (cf-agent's cf-promises check runs the
 * file's commands first), and `tend check` warns (cf-promises says
 * nothing).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { scratchDirectory } from "../scratch.js";
import { cfAgentSkipReason, runCfAgent, runTendAgent, writePolicy } from "./attack.js";

const HELLO = 'bundle agent main { reports: "hello"; }\n';

function refusal(path: string): RegExp {
  return new RegExp(
    `error: File ${path.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} \\(owner \\d+\\) is writable by others \\(security exception\\)`,
  );
}

for (const mode of [0o664, 0o666, 0o646]) {
  const shown = mode.toString(8);
  test(`a policy file of mode ${shown} is refused by the agent (exit 1), as cf-agent refuses it`, () => {
    const dir = scratchDirectory("tend-writable-");
    const policy = writePolicy(join(dir, "p.cf"), HELLO, mode);
    const run = runTendAgent(policy, join(dir, "wd"));
    assert.equal(run.status, 1, run.output);
    assert.match(run.output, refusal(policy));
    assert.doesNotMatch(run.output, /R: hello/);
    assert.doesNotMatch(run.output, /failsafe/);
  });
}

test("an input file writable by others is refused too", () => {
  const dir = scratchDirectory("tend-writable-");
  writePolicy(join(dir, "lib.cf"), "bundle agent lib {}\n", 0o666);
  const policy = writePolicy(join(dir, "p.cf"), `body common control { inputs => { "lib.cf" }; }\n${HELLO}`);
  const run = runTendAgent(policy, join(dir, "wd"));
  assert.equal(run.status, 1, run.output);
  assert.match(run.output, refusal(join(dir, "lib.cf")));
});

test("the agent's policy check runs nothing from a world-writable file (cf-agent's cf-promises does)", () => {
  const dir = scratchDirectory("tend-writable-");
  const marker = join(dir, "ran");
  const policy = writePolicy(
    join(dir, "p.cf"),
    `bundle common x { vars: "r" string => execresult("/usr/bin/touch ${marker}", "noshell"); }\n${HELLO}`,
    0o666,
  );
  const run = runTendAgent(policy, join(dir, "wd"));
  assert.equal(run.status, 1, run.output);
  assert.equal(existsSync(marker), false, "the command of a refused policy ran");
});

test("cf-agent 3.21 refuses the same file (the reference)", { skip: cfAgentSkipReason() }, () => {
  const dir = scratchDirectory("tend-writable-");
  const policy = writePolicy(join(dir, "p.cf"), HELLO, 0o664);
  const run = runCfAgent(policy, join(dir, "wd"));
  assert.equal(run.status, 1, run.output);
  assert.match(run.output, refusal(policy));
});

test("tend check warns about a policy writable by others and still exits 0, as cf-promises", () => {
  const dir = scratchDirectory("tend-writable-");
  const policy = writePolicy(join(dir, "p.cf"), HELLO, 0o666);
  const run = spawnSync(process.execPath, ["bin/tend.js", "check", policy], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  assert.match(
    run.stderr,
    /warning: File .* is writable by others \(security exception\) \[policy-writable-by-others\]/,
  );
});

test("a policy of mode 644 runs", () => {
  const dir = scratchDirectory("tend-writable-");
  const policy = writePolicy(join(dir, "p.cf"), HELLO, 0o644);
  const run = runTendAgent(policy, join(dir, "wd"));
  assert.equal(run.status, 0, run.output);
  assert.match(run.output, /R: hello/);
});
