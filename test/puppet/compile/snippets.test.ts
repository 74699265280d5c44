/**
 * Conformance: tend compiles the manifests of Puppet 7.23's specs
 * (test/fixtures/puppet-lang/inputs/spec-snippets) to the catalogs Puppet
 * compiled for them (test/fixtures/puppet-compile/snippets): identical after
 * normalisation, with the same notices, or both failing. The pass rate must
 * not fall below the ratchet (test/fixtures/puppet-compile/ratchet.json).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { compareCatalogs, formatDifference } from "../../../src/puppet/catalog-compare.js";
import {
  type CompileSpec,
  compileAll,
  fixturesDir,
  judge,
  loadFacts,
  loadRecordedDir,
  localTrusted,
  type Recorded,
  ratchet,
  relationshipPositionDiffers,
  repoRoot,
  snippetInputsDir,
  summarise,
  timeDependent,
} from "./harness.js";

function specFor(r: Recorded, facts: Record<string, unknown>): CompileSpec {
  return {
    id: r.id,
    nodeName: "testnode",
    facts,
    trusted: localTrusted("testnode"),
    serverFacts: { environment: "production" },
    environment: "production",
    code: readFileSync(join(snippetInputsDir, `${r.id}.pp`), "utf8"),
    manifests: [],
    modulePath: [],
  };
}

/** The issue counts the snippets of spec/integration/parser and spec/unit/functions. */
function inIssueSet(r: Recorded): boolean {
  return /^(integration\/parser|unit\/functions)\//.test(r.source ?? "");
}

test("tend compiles Puppet's spec snippets as Puppet 7.23 does (rate ≥ the ratchet)", async (t) => {
  const recorded = loadRecordedDir(join(fixturesDir, "snippets"));
  assert.ok(recorded.length >= 539, `${recorded.length} recorded snippets`);
  const facts = loadFacts("testnode");
  const outcomes = await compileAll(recorded.map((r) => specFor(r, facts)));
  const timed = timeDependent();
  const verdicts = recorded.map((r) => {
    const outcome = outcomes.get(r.id) ?? { kind: "crash" as const, message: "no outcome" };
    return judge(r, outcome, undefined, timed.has(r.id));
  });
  const issueVerdicts = verdicts.filter((_, i) => inIssueSet(recorded[i] as Recorded));
  const issue = summarise(
    "spec snippets (the issue's: spec/integration/parser, spec/unit/functions)",
    issueVerdicts,
  );
  const all = summarise("all recorded snippets", verdicts, 0);
  for (const line of [...issue.lines, all.lines[0] ?? ""]) t.diagnostic(line);
  const floor = ratchet("snippets");
  assert.ok(
    issue.rate >= floor,
    `pass rate ${(issue.rate * 100).toFixed(1)}% fell below the ratchet ${(floor * 100).toFixed(1)}%\n${issue.lines.join("\n")}`,
  );
  // A relationship to no resource: at the attribute's line, as Puppet places it (0022).
  const misplaced = recorded.flatMap((r) => {
    const outcome = outcomes.get(r.id);
    if (r.error === undefined || outcome?.kind !== "error") return [];
    const problem = relationshipPositionDiffers(r.error, outcome.message);
    return problem === undefined ? [] : [`${r.id}: ${problem}`];
  });
  assert.deepEqual(misplaced, []);
  // Failing as Puppet fails, with Puppet's message: their number only grows.
  const sameMessage = issueVerdicts.filter((v) => v.sameMessage).length;
  const messageFloor = ratchet("snippetMessages");
  assert.ok(
    sameMessage >= messageFloor,
    `${sameMessage} failing snippets with Puppet's message, below the ratchet ${messageFloor}`,
  );
});

function hasPuppet(): boolean {
  return spawnSync("puppet", ["--version"], { encoding: "utf8" }).status === 0;
}

test("live: Puppet 7.23 still compiles a sample of the snippets as recorded, and tend is judged against it", async (t) => {
  if (!hasPuppet()) {
    t.skip("puppet is not installed (apt-get install -y puppet): the recorded catalogs are used instead");
    return;
  }
  const recorded = loadRecordedDir(join(fixturesDir, "snippets"));
  // Every 20th snippet: a sample over all spec files, in one Ruby process.
  const sample = recorded.filter((_, i) => i % 20 === 0);
  const out = mkdtempSync(join(tmpdir(), "tend-live-snippets-"));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  const run = spawnSync(
    "nice",
    [
      "-n",
      "10",
      "ruby",
      join(repoRoot, "scripts/record-puppet-snippets.rb"),
      "--out",
      out,
      ...sample.map((r) => r.id),
    ],
    { encoding: "utf8", timeout: 120_000 },
  );
  assert.equal(run.status, 0, run.stderr);
  const live = loadRecordedDir(out);
  assert.equal(live.length, sample.length);
  for (const l of live) {
    const r = recorded.find((x) => x.id === l.id) as Recorded;
    assert.equal(l.error, r.error, `${l.id}: the error Puppet gives now`);
    if (r.catalog && l.catalog) {
      const cmp = compareCatalogs(r.catalog, l.catalog, { tagOrder: true });
      assert.ok(
        cmp.equal,
        `${l.id}: ${cmp.differences.map((d) => formatDifference(d, ["recorded", "live"])).join("; ")}`,
      );
    }
    if (!timeDependent().has(l.id)) assert.deepEqual(l.messages, r.messages, `${l.id}: messages`);
  }
  const facts = loadFacts("testnode");
  const outcomes = await compileAll(live.map((r) => specFor(r, facts)));
  const timed = timeDependent();
  const verdicts = live.map((r) =>
    judge(r, outcomes.get(r.id) ?? { kind: "crash", message: "no outcome" }, undefined, timed.has(r.id)),
  );
  for (const line of summarise("live sample", verdicts, 1).lines) t.diagnostic(line);
});
