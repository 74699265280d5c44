/**
 * The policy check before a run, as cf-agent 3.21 tags a validated policy
 * (checked against cf-agent: the marker goes to masterfiles for the default
 * policy, to the state directory for one named on the command line; the
 * release ID only on a policy hub).
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runAgent } from "../../src/agent/run.js";

function workdir(): string {
  const dir = mkdtempSync(join(tmpdir(), "tend-policy-check-"));
  mkdirSync(join(dir, "inputs"));
  writeFileSync(join(dir, "inputs", "promises.cf"), 'bundle agent main { reports: "hi"; }\n');
  return dir;
}

function run(dir: string, file = join(dir, "inputs", "promises.cf")): string[] {
  const lines: string[] = [];
  runAgent(
    { file, workdir: dir, ignoreLocks: true, logLevel: "verbose" },
    { log: (r) => lines.push(r.message), report: () => {} },
  );
  return lines;
}

test("the default policy is tagged in masterfiles once validated, and not checked again until it changes", () => {
  const dir = workdir();
  assert.ok(run(dir).includes("Input file is changed since last validation, validating it"));
  const marker = JSON.parse(readFileSync(join(dir, "masterfiles", "cf_promises_validated"), "utf8"));
  assert.ok(Math.abs(marker.timestamp - Date.now() / 1000) < 60);
  assert.equal(existsSync(join(dir, "masterfiles", "cf_promises_release_id")), false);
  assert.ok(run(dir).includes("Policy is already validated"));
});

test("a policy hub also gets the release ID; a policy given elsewhere is tagged in the state directory", () => {
  const dir = workdir();
  mkdirSync(join(dir, "state"), { recursive: true });
  writeFileSync(join(dir, "state", "am_policy_hub"), "");
  mkdirSync(join(dir, "masterfiles"));
  run(dir);
  const release = JSON.parse(readFileSync(join(dir, "masterfiles", "cf_promises_release_id"), "utf8"));
  assert.match(release.releaseId, /^[0-9a-f]{40}$/);
  const other = join(dir, "other.cf");
  writeFileSync(other, 'bundle agent main { reports: "x"; }\n');
  assert.ok(run(dir, other).includes("Input file is outside default repository, validating it"));
  assert.ok(existsSync(join(dir, "state", "cf_promises_validated")));
});

test("a check does not evaluate the policy again: a command run by a function runs once (cf-agent runs it three times)", () => {
  const dir = workdir();
  const log = join(dir, "ran.log");
  const policy = join(dir, "side-effects.cf");
  writeFileSync(
    policy,
    `bundle agent main { vars: "x" string => execresult("/bin/sh -c 'echo ran >> ${log}'", "noshell"); }\n`,
  );
  run(dir, policy);
  assert.equal(readFileSync(log, "utf8"), "ran\n");
});
