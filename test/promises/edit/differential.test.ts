/**
 * Edit scenarios through tend, compared with what cf-agent 3.21 did with
 * them (test/fixtures/edit/cf-agent.json, recorded by
 * scripts/record-edit.ts): the same files byte for byte, with the same
 * modes and backups, after a first and a second run, and the same info,
 * warning and error lines and reports.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { type ScenarioResult, runScenario, runTend } from "./harness.js";
import { scenarios } from "./scenarios.js";

const fixture = new URL("../../../../test/fixtures/edit/cf-agent.json", import.meta.url);
const recorded = new Map(
  (JSON.parse(readFileSync(fixture, "utf8")) as ScenarioResult[]).map((r) => [r.name, r]),
);

for (const scenario of scenarios) {
  const expected = recorded.get(scenario.name);
  test(`edit scenario ${scenario.name}`, { skip: expected ? false : "not recorded" }, () => {
    const actual = runScenario(scenario, runTend);
    actual.runs.forEach((run, i) => {
      const want = expected?.runs[i];
      assert.deepEqual(run.files, want?.files, `files after run ${i + 1}`);
      assert.deepEqual(run.reports, want?.reports, `reports of run ${i + 1}`);
      assert.deepEqual(run.log, want?.log, `log of run ${i + 1}`);
    });
  });
}
