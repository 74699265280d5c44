/**
 * services scenarios (scenarios.ts) through tend, compared with what
 * cf-agent 3.21 did with them (test/fixtures/services/cf-agent.json,
 * recorded by scripts/record-services.ts): the same fake service state
 * after a first and a second run, and the same info, notice, warning and
 * error lines and reports (which show the outcome classes).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { existsSync } from "node:fs";
import { SYSTEMCTL, type ScenarioResult, canUnshare, runScenario } from "./harness.js";
import { servicesScenarios } from "./scenarios.js";

const fixture = new URL("../../../../test/fixtures/services/cf-agent.json", import.meta.url);
const recorded = new Map(
  (JSON.parse(readFileSync(fixture, "utf8")) as ScenarioResult[]).map((r) => [r.name, r]),
);
const unshare = canUnshare();

for (const scenario of servicesScenarios) {
  const expected = recorded.get(scenario.name);
  const skip = !expected
    ? "not recorded"
    : scenario.mpf && !unshare
      ? "needs a private mount namespace (unshare -m as root) to bind the fake init.d"
      : scenario.systemd && !existsSync(SYSTEMCTL)
        ? `needs ${SYSTEMCTL} to bind the fake systemctl over`
        : false;
  test(`services scenario ${scenario.name}`, { skip }, () => {
    const actual = runScenario(scenario, "tend");
    actual.runs.forEach((run, i) => {
      const want = expected?.runs[i];
      assert.deepEqual(run.files, want?.files, `system after run ${i + 1}`);
      assert.deepEqual(run.reports, want?.reports, `reports of run ${i + 1}`);
      assert.deepEqual(run.log, want?.log, `log of run ${i + 1}`);
    });
  });
}
