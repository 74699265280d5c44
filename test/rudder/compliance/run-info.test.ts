/**
 * What a node's last run is judged against (ExecutionBatch.computeNodesRunInfo):
 * the two cases of ExecutionBatchTest.scala's "An old run for a different
 * config id should lead to N/A, not UnexpectedVersion" (line 338), then one
 * case per branch of the decision, written for tend.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  analyseRun,
  complianceOfRun,
  type NodeExpectedReports,
  type NodeModes,
  nodeComplianceJson,
} from "../../../src/rudder/compliance/index.js";

const MIN = 60_000;
const modes: NodeModes = {
  globalPolicyMode: "audit",
  overridable: true,
  nodePolicyMode: "enforce",
  complianceMode: "full-compliance",
  heartbeatPeriod: 30,
  runInterval: 5,
};

function config(
  configId: string,
  begin: number,
  end?: number,
  m: Partial<NodeModes> = {},
): NodeExpectedReports {
  return {
    nodeId: "one",
    configId,
    beginDate: new Date(begin).toISOString(),
    ...(end !== undefined ? { endDate: new Date(end).toISOString() } : {}),
    modes: { ...modes, ...m },
    rules: [
      {
        ruleId: "rule",
        directives: [
          {
            directiveId: "policy",
            policyTypes: ["rudder.base"],
            components: [
              {
                kind: "value",
                name: "component",
                values: [{ kind: "match", value: "value", unexpanded: "value" }],
              },
            ],
          },
        ],
      },
    ],
    overrides: [],
  };
}

const NOW = Date.parse("2026-11-27T00:00:00Z");
const OLD_RUN = Date.parse("2023-01-01T15:15:00+00:00");
const oldConfig = config("configId-old-run", OLD_RUN, OLD_RUN + 10 * 60 * MIN);
const generated = config("version_one", OLD_RUN - 11 * 24 * 60 * MIN + 3 * 60 * MIN);

test("ExecutionBatchTest: old run, its config unknown: NoReportInInterval, not UnexpectedVersion", () => {
  const r = analyseRun({ time: OLD_RUN, configId: oldConfig.configId }, generated, NOW);
  assert.equal(r.kind, "NoReportInInterval");
  assert.ok("expected" in r && r.expected === generated);
});

test("ExecutionBatchTest: old run, its expected reports still known: NoReportInInterval", () => {
  const r = analyseRun({ time: OLD_RUN, configId: oldConfig.configId, config: oldConfig }, generated, NOW);
  assert.equal(r.kind, "NoReportInInterval");
  assert.ok("expected" in r && r.expected === generated);
});

const T = NOW - 60 * MIN;
const current = config("current", T);

/** [name, run, current config, now, expected kind] */
const CASES: ReadonlyArray<
  readonly [string, Parameters<typeof analyseRun>[0], NodeExpectedReports | undefined, number, string]
> = [
  ["no run, no config", undefined, undefined, NOW, "NoRunNoExpectedReport"],
  ["no run, new config within interval + 5 min", undefined, current, T + 9 * MIN, "Pending"],
  ["no run, config older than interval + 5 min", undefined, current, T + 11 * MIN, "NoReportInInterval"],
  [
    "no run, reports disabled",
    undefined,
    config("c", T, undefined, { complianceMode: "reports-disabled" }),
    NOW,
    "ReportsDisabledInInterval",
  ],
  ["a run but no expected reports", { time: T }, undefined, NOW, "NoExpectedReport"],
  [
    "run of the current config, on time",
    { time: T + MIN, configId: "current", config: current },
    current,
    T + 2 * MIN,
    "ComputeCompliance",
  ],
  [
    "run of the current config, too old",
    { time: T + MIN, configId: "current", config: current },
    current,
    T + 20 * MIN,
    "NoReportInInterval",
  ],
  [
    "changes-only: the run stays valid interval × heartbeat + 5 min",
    { time: T + MIN, configId: "c", config: config("c", T, undefined, { complianceMode: "changes-only" }) },
    config("c", T, undefined, { complianceMode: "changes-only" }),
    T + 100 * MIN,
    "ComputeCompliance",
  ],
  [
    "run of the previous config, still open, new one pending",
    { time: T + MIN, configId: "prev", config: config("prev", T - 60 * MIN) },
    current,
    T + 2 * MIN,
    "Pending",
  ],
  [
    "run of a closed config, within its grace time",
    { time: T + MIN, configId: "prev", config: config("prev", T - 60 * MIN, T) },
    current,
    T + 2 * MIN,
    "Pending",
  ],
  [
    "run of a config closed long before the run",
    { time: T + 30 * MIN, configId: "prev", config: config("prev", T - 60 * MIN, T) },
    current,
    T + 31 * MIN,
    "UnexpectedVersion",
  ],
  [
    "run with an unknown config id",
    { time: T + MIN, configId: "other" },
    current,
    T + 2 * MIN,
    "UnexpectedUnknownVersion",
  ],
  ["run without config id, config old", { time: T + 30 * MIN }, current, T + 31 * MIN, "UnexpectedNoVersion"],
  ["run without config id, config new", { time: T + MIN }, current, T + 2 * MIN, "Pending"],
];

for (const [name, run, cfg, now, kind] of CASES) {
  test(`run analysis: ${name}: ${kind}`, () => {
    assert.equal(analyseRun(run, cfg, now).kind, kind);
  });
}

test("changes-only: values without a report count as success (enforce) or compliant (audit)", () => {
  const base = config("cfg", T, undefined, { complianceMode: "changes-only", globalPolicyMode: "enforce" });
  const enforced = base.rules[0]?.directives[0];
  assert.ok(enforced);
  const expected: NodeExpectedReports = {
    ...base,
    rules: [
      {
        ruleId: "rule",
        directives: [enforced, { ...enforced, directiveId: "audited", policyMode: "audit" }],
      },
    ],
  };
  const output = [
    "R: @@Common@@control@@rudder@@run@@0@@start@@cfg@@2026-11-26 23:01:00+00:00##one@#Start execution",
    "R: @@Common@@control@@rudder@@run@@0@@end@@cfg@@2026-11-26 23:01:00+00:00##one@#End execution",
  ].join("\n");
  const json = nodeComplianceJson(complianceOfRun(expected, output).status);
  assert.equal(json.runAnalysis.kind, "ComputeCompliance");
  assert.deepEqual(json.complianceDetails, { successAlreadyOK: 1, auditCompliant: 1 });
});
