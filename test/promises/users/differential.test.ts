/**
 * users scenarios (scenarios.ts) through tend and cf-agent 3.21, each in
 * its own sandbox (a private mount namespace over copies of /etc, /home,
 * /var/log and /var/mail): the same passwd/shadow/group/gshadow entries
 * and home directories afterwards, the same error, warning and info lines
 * and tool output in each of two runs, the same reports (outcome classes).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { runScenario } from "./harness.js";
import { sandboxUnavailable } from "./sandbox.js";
import { usersScenarios } from "./scenarios.js";

function skipReason(): string | false {
  const sandbox = sandboxUnavailable();
  if (sandbox) return sandbox;
  if (spawnSync("cf-agent", ["--version"]).status !== 0) return "cf-agent is not installed";
  return false;
}

const skip = skipReason();

for (const scenario of usersScenarios) {
  test(`users scenario ${scenario.name}`, { skip }, async () => {
    // Both agents at once, each in its own sandbox.
    const [expected, actual] = await Promise.all([
      runScenario(scenario, "cf-agent"),
      runScenario(scenario, "tend"),
    ]);
    assert.deepEqual(actual.state, expected.state, "accounts afterwards");
    actual.runs.forEach((run, i) => {
      const want = expected.runs[i];
      assert.deepEqual(run.reports, want?.reports, `reports of run ${i + 1}`);
      assert.deepEqual(run.log, want?.log, `log of run ${i + 1}`);
      assert.deepEqual(run.verbose, want?.verbose, `verbose users lines of run ${i + 1}`);
      assert.deepEqual(run.tools, want?.tools, `tool output of run ${i + 1}`);
    });
  });
}
