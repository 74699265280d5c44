/**
 * Conformance of the Puppet front end's later features (user-defined Object
 * types and TypeSets, annotate, stdlib's pw_hash and parsehocon, rich-data
 * warnings) against Puppet 7.23's recordings in
 * test/fixtures/puppet-compile/features (inputs/*.pp, recorded/*.json; see
 * its README). Every case must give the same catalog and notices, or fail
 * with Puppet's message at Puppet's line and column; `KNOWN` lists the
 * cases that still differ and why.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  type CompileSpec,
  compileAll,
  errorCore,
  fixturesDir,
  judge,
  loadFacts,
  loadRecordedDir,
  localTrusted,
  relationshipPositionDiffers,
  type Recorded,
} from "./harness.js";

const dir = join(fixturesDir, "features");

/** Cases that still differ from Puppet, with the reason. */
const KNOWN: Record<string, string> = {};

/** Warnings whose text carries the recording machine's paths: compared by their start. */
function warningCore(m: string): string {
  return m.replace(/ at (\[.*|[^ ]*:\d+)$/s, "").trim();
}

function specFor(r: Recorded, facts: Record<string, unknown>): CompileSpec {
  return {
    id: r.id,
    nodeName: "testnode",
    facts,
    trusted: localTrusted("testnode"),
    serverFacts: { environment: "production" },
    environment: "production",
    code: readFileSync(join(dir, "inputs", `${r.id}.pp`), "utf8"),
    manifests: [],
    modulePath: [join(fixturesDir, "modules")],
    stdlib: true,
  };
}

test("every feature input has a recording", () => {
  const inputs = readdirSync(join(dir, "inputs"))
    .filter((f) => f.endsWith(".pp"))
    .map((f) => f.slice(0, -3))
    .sort();
  const recorded = loadRecordedDir(join(dir, "recorded"))
    .map((r) => r.id)
    .sort();
  assert.deepEqual(recorded, inputs);
});

test("Object types, TypeSets, annotate and stdlib features compile as Puppet 7.23 compiles them", async (t) => {
  const recorded = loadRecordedDir(join(dir, "recorded"));
  const facts = loadFacts("testnode");
  const outcomes = await compileAll(recorded.map((r) => specFor(r, facts)));
  const failures: string[] = [];
  let passed = 0;
  for (const r of recorded) {
    const outcome = outcomes.get(r.id) ?? { kind: "crash" as const, message: "no outcome" };
    const v = judge(r, outcome);
    let problem = v.pass ? undefined : `${v.category}: ${v.detail}`;
    if (v.pass && r.error !== undefined && outcome.kind === "error" && !v.sameMessage)
      problem = `message: Puppet ${JSON.stringify(errorCore(r.error))} | tend ${JSON.stringify(errorCore(outcome.message))}`;
    if (problem === undefined && r.error !== undefined && outcome.kind === "error") {
      const want = /\(line: (\d+), column: (\d+)\)/.exec(r.error);
      const got = outcome.line === undefined ? "none" : `${outcome.line}:${outcome.column}`;
      if (want !== null && `${want[1]}:${want[2]}` !== got)
        problem = `position: Puppet ${want[1]}:${want[2]} | tend ${got}`;
      if (want === null) problem = relationshipPositionDiffers(r.error, outcome.message);
    }
    if (v.pass && outcome.kind === "catalog") {
      const want = (r.messages ?? []).filter((m) => m.level === "warning").map((m) => warningCore(m.message));
      const got = outcome.messages.filter((m) => m.level === "warning").map((m) => warningCore(m.message));
      if (JSON.stringify(want) !== JSON.stringify(got))
        problem = `warnings: Puppet ${JSON.stringify(want)} | tend ${JSON.stringify(got)}`;
    }
    if (problem === undefined) passed++;
    if (problem !== undefined && KNOWN[r.id] === undefined) failures.push(`${r.id}: ${problem}`);
    if (problem === undefined && KNOWN[r.id] !== undefined)
      failures.push(`${r.id}: passes now, drop it from KNOWN`);
  }
  t.diagnostic(
    `${passed}/${recorded.length} feature cases as Puppet (${Object.keys(KNOWN).length} known to differ)`,
  );
  assert.deepEqual(failures, []);
});
