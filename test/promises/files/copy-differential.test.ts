/**
 * copy_from, link_from, depth_search, file_select, delete, rename, changes
 * and transformer scenarios through tend, compared with what cf-agent 3.21
 * did with them (test/fixtures/files-copy/cf-agent.json, recorded by
 * scripts/record-copy.ts): the same tree byte for byte (modes, links,
 * hard links, backups), after a first and a second run, and the same
 * info, notice, warning and error lines and reports.
 */
import assert from "node:assert/strict";
import { mkdtempSync, opendirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { type ScenarioResult, runScenario, runTend } from "./copy-harness.js";
import { copyScenarios } from "./copy-scenarios.js";

const fixture = new URL("../../../../test/fixtures/files-copy/cf-agent.json", import.meta.url);
const recorded = new Map(
  (JSON.parse(readFileSync(fixture, "utf8")) as ScenarioResult[]).map((r) => [r.name, r]),
);

/**
 * cf-agent walks directories in the order the file system lists them, and so
 * does tend; the recording was made on an ext4 file system whose hash order
 * lists the probe's names as below. Elsewhere (another ext4 hash seed, tmpfs,
 * btrfs...) copies, searches and patterns log in another order: then lines are
 * compared as sets, sorted, and the test says so.
 */
const RECORDED_LISTING = ["b", "i", "j", "k", "h", "f", "c", "l", "g", "e", "a", "d"];

function listsAsRecorded(): boolean {
  const probe = mkdtempSync(join(tmpdir(), "tend-copy-probe-"));
  try {
    for (const name of [...RECORDED_LISTING].sort()) writeFileSync(join(probe, name), "");
    const listing: string[] = [];
    const dir = opendirSync(probe);
    for (let entry = dir.readSync(); entry; entry = dir.readSync()) listing.push(entry.name);
    dir.closeSync();
    return listing.join() === RECORDED_LISTING.join();
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

const sameOrder = listsAsRecorded();
const inOrder = (lines: readonly string[] | undefined) => (sameOrder ? lines : lines && [...lines].sort());

for (const scenario of copyScenarios) {
  const expected = recorded.get(scenario.name);
  test(`files scenario ${scenario.name}`, { skip: expected ? false : "not recorded" }, (t) => {
    if (!sameOrder)
      t.diagnostic("this file system lists directories in another order: lines compared sorted");
    const actual = runScenario(scenario, runTend);
    actual.runs.forEach((run, i) => {
      const want = expected?.runs[i];
      assert.deepEqual(run.files, want?.files, `files after run ${i + 1}`);
      assert.deepEqual(inOrder(run.reports), inOrder(want?.reports), `reports of run ${i + 1}`);
      assert.deepEqual(inOrder(run.log), inOrder(want?.log), `log of run ${i + 1}`);
    });
  });
}
