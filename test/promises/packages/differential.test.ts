/**
 * packages scenarios (scenarios.ts) through tend, compared with what
 * cf-agent 3.21 did with them (test/fixtures/packages/cf-agent.json,
 * recorded by scripts/record-packages.ts): the same fake system after a
 * first and a second run, and the same info, notice, warning and error
 * lines and reports.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { type ScenarioResult, runScenario, runTend } from "./harness.js";
import { packagesScenarios } from "./scenarios.js";

const fixture = new URL("../../../../test/fixtures/packages/cf-agent.json", import.meta.url);
const recorded = new Map(
  (JSON.parse(readFileSync(fixture, "utf8")) as ScenarioResult[]).map((r) => [r.name, r]),
);

/**
 * A `Q:` line shows only the command's first characters, which hold the
 * start of the temporary directory's path: that part depends on TMPDIR.
 */
function withoutTruncatedPath(lines: readonly string[] | undefined): string[] | undefined {
  return lines?.map((line) => line.replace(/(Q:\S+ )\S* \.\.\.:/, "$1... ...:"));
}

for (const scenario of packagesScenarios) {
  const expected = recorded.get(scenario.name);
  test(`packages scenario ${scenario.name}`, { skip: expected ? false : "not recorded" }, () => {
    const actual = runScenario(scenario, runTend);
    actual.runs.forEach((run, i) => {
      const want = expected?.runs[i];
      assert.deepEqual(run.files, want?.files, `system after run ${i + 1}`);
      assert.deepEqual(run.reports, want?.reports, `reports of run ${i + 1}`);
      assert.deepEqual(withoutTruncatedPath(run.log), withoutTruncatedPath(want?.log), `log of run ${i + 1}`);
    });
  });
}
