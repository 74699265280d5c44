/** The node report's validation: every problem named with its path. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { countOutcomes, validateNodeReport } from "../../src/reporting/report.js";
import { fakeNodeId, generateReport } from "../hub/generate.js";

test("a generated report is valid", () => {
  assert.deepEqual(validateNodeReport(generateReport({ nodeId: fakeNodeId(1) })), []);
  assert.deepEqual(
    JSON.parse(
      JSON.stringify(
        validateNodeReport(JSON.parse(JSON.stringify(generateReport({ nodeId: fakeNodeId(1) })))),
      ),
    ),
    [],
  );
});

test("problems are named by their path", () => {
  const report = generateReport({ nodeId: fakeNodeId(1), promises: 2 }) as unknown as Record<string, unknown>;
  const run = report.run as Record<string, unknown>;
  const promises = run.promises as Record<string, unknown>[];
  (promises[1] as Record<string, unknown>).line = -1;
  (promises[0] as Record<string, unknown>).outcome = "great";
  const bad = {
    ...report,
    runId: "x",
    node: { id: "MD5=zz", name: "n", addresses: [] },
    extra: 1,
    started: "yesterday",
  };
  assert.deepEqual(validateNodeReport(bad), [
    "extra: unknown property",
    "runId: expected a UUID in lower case (8-4-4-4-12 hex digits)",
    "node.id: expected a key digest (MD5=<32 hex digits>)",
    "started: expected an ISO 8601 time (2026-01-31T12:00:00Z)",
    "run.promises[0].outcome: expected one of kept, repaired, warn, failed, denied, timeout, interrupted",
    "run.promises[1].line: expected an integer >= 0",
  ]);
  assert.deepEqual(validateNodeReport([]), ["expected a JSON object (a node report)"]);
  assert.deepEqual(validateNodeReport({ version: 2 }), ["version: expected 1"]);
});

test("outcomes are counted as cf-agent counts them", () => {
  assert.deepEqual(
    countOutcomes([{ outcome: "kept" }, { outcome: "repaired" }, { outcome: "warn" }, { outcome: "failed" }]),
    {
      kept: 1,
      repaired: 1,
      notKept: 2,
    },
  );
});
