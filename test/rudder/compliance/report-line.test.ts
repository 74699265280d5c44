/**
 * Reading run output for Rudder reports: the relay's own run logs (each
 * `.log` read as Rudder's relayd reads it gives its `.json`), the output of
 * an agent without time stamps, and lines that are not reports.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parseRunOutput, parseRunTime } from "../../../src/rudder/compliance/report-line.js";

const RUNLOGS = fileURLToPath(
  new URL("../../../../test/fixtures/rudder/compliance/runlogs/", import.meta.url),
);

interface RelayReport {
  start_datetime: string;
  rule_id: string;
  directive_id: string;
  component: string;
  key_value: string;
  event_type: string;
  msg: string;
  policy: string;
  node_id: string;
  execution_datetime: string;
  report_id: string;
}

for (const name of readdirSync(RUNLOGS).filter((n) => n.endsWith(".json"))) {
  test(`relayd run log ${name}: same reports and config id`, () => {
    const reference = JSON.parse(readFileSync(RUNLOGS + name, "utf8")) as {
      config_id: string | null;
      reports: RelayReport[];
    };
    const run = parseRunOutput(readFileSync(RUNLOGS + name.replace(/\.json$/, ".log"), "utf8"));
    assert.equal(run.configId, reference.config_id ?? undefined);
    const got = run.reports.map((r) => ({
      start: parseRunTime(r.runTime),
      rule_id: r.ruleId,
      directive_id: r.directiveId,
      component: r.component,
      key_value: r.keyValue,
      event_type: r.eventType,
      msg: r.message,
      policy: r.technique,
      node_id: r.nodeId,
      execution: Date.parse((r.executionTime ?? "").replace(/_/g, ":")),
      report_id: r.reportId,
    }));
    const want = reference.reports.map((r) => ({
      start: Date.parse(r.start_datetime),
      rule_id: r.rule_id,
      directive_id: r.directive_id,
      component: r.component,
      key_value: r.key_value,
      event_type: r.event_type,
      msg: r.msg,
      policy: r.policy,
      node_id: r.node_id,
      execution: Date.parse(r.execution_datetime),
      report_id: r.report_id,
    }));
    assert.deepEqual(got, want);
  });
}

test("agent output without time stamps: reports, multi-line messages, noise", () => {
  const output = [
    "    info: Executing 'no timeout' ... '/bin/true'",
    "R: @@Common@@control@@rudder@@run@@0@@start@@cfg-1@@2026-11-26 15:58:24+00:00##node1@#Start execution",
    "R: @@tech@@result_repaired@@r1@@d1@@id-1@@File present@@/tmp/x@@2026-11-26 15:58:24+00:00##node1@#Presence of file",
    "/tmp/x was repaired",
    "R: just a message",
    "   error: something failed",
    "R: @@tech@@result_success@@r1@@d1@@@@Cmd@@@@2026-11-26 15:58:24+00:00##node1@#ok",
    "R: @@broken@@line",
    "R: @@Common@@control@@rudder@@run@@0@@end@@cfg-1@@2026-11-26 15:58:24+00:00##node1@#End execution",
    "",
  ].join("\n");
  const run = parseRunOutput(output);
  assert.equal(run.configId, "cfg-1");
  assert.equal(run.nodeId, "node1");
  assert.equal(run.runTime, Date.parse("2026-11-26T15:58:24Z"));
  assert.deepEqual(
    run.reports.map((r) => [r.eventType, r.component, r.keyValue, r.reportId, r.message]),
    [
      ["control", "start", "cfg-1", "0", "Start execution"],
      ["result_repaired", "File present", "/tmp/x", "id-1", "Presence of file\n/tmp/x was repaired"],
      ["result_success", "Cmd", "None", "0", "ok"],
      ["control", "end", "cfg-1", "0", "End execution"],
    ],
  );
  assert.deepEqual(run.lines, [2, 3, 7, 9]);
  assert.equal(run.malformed.length, 1);
  assert.equal(run.malformed[0]?.line, 8);
  assert.deepEqual(
    run.diagnostics.map((d) => [d.line, d.code]),
    [[8, "malformed-report"]],
  );
});

test("a run without start or end markers says so", () => {
  const run = parseRunOutput(
    "R: @@tech@@result_success@@r1@@d1@@0@@C@@v@@2026-11-26 15:58:24+00:00##n@#ok\n",
  );
  assert.equal(run.configId, undefined);
  assert.deepEqual(
    run.diagnostics.map((d) => d.code),
    ["no-start", "no-end"],
  );
});
