/**
 * copy_from, link_from, depth_search, file_select, delete, rename, changes
 * and transformer scenarios through tend, compared with what cf-agent 3.21
 * did with them (test/fixtures/files-copy/cf-agent.json, recorded by
 * scripts/record-copy.ts): the same tree byte for byte (modes, links,
 * hard links, backups), after a first and a second run, and the same
 * info, notice, warning and error lines and reports.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { type ScenarioResult, runScenario, runTend } from "./copy-harness.js";
import { copyScenarios } from "./copy-scenarios.js";

const fixture = new URL("../../../../test/fixtures/files-copy/cf-agent.json", import.meta.url);
const recorded = new Map(
  (JSON.parse(readFileSync(fixture, "utf8")) as ScenarioResult[]).map((r) => [r.name, r]),
);

for (const scenario of copyScenarios) {
  const expected = recorded.get(scenario.name);
  test(`files scenario ${scenario.name}`, { skip: expected ? false : "not recorded" }, () => {
    const actual = runScenario(scenario, runTend);
    actual.runs.forEach((run, i) => {
      const want = expected?.runs[i];
      assert.deepEqual(run.files, want?.files, `files after run ${i + 1}`);
      assert.deepEqual(run.reports, want?.reports, `reports of run ${i + 1}`);
      assert.deepEqual(run.log, want?.log, `log of run ${i + 1}`);
    });
  });
}
