/**
 * ExecutionBatchTest.scala's "performance for mergeCompareByRule" group
 * (rudder-core, branch 8.3), as data: the same generated configurations
 * (buildDataForMergeCompareByRule: rules × directives × components, every
 * component with one success report) and the results Rudder asserts. Its
 * second case times 10 rounds over 100 nodes against a 50 s bound; tests
 * here do not time (the speed is bench/'s), so that case checks the
 * results of the same 100-node round instead.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  type AgentReport,
  type MergeInfo,
  type NodeExpectedReports,
  type OverriddenPolicy,
  mergeCompareByRule,
  ruleStatusCompliance,
} from "../../../src/rudder/compliance/index.js";

type Data = [MergeInfo, AgentReport[], NodeExpectedReports, NodeExpectedReports, OverriddenPolicy[]];

/** ExecutionBatchTest.buildDataForMergeCompareByRule. */
function buildData(nodeId: string, nbRules: number, nbDirectives: number, nbReportsPerDir: number): Data {
  const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
  const rules = range(nbRules).map((r) => {
    const ruleId = `rule_id_${r}${nodeId}`;
    return {
      ruleId,
      directives: range(nbDirectives).map((d) => {
        const directiveId = `directive_id_${d}${nodeId}@@${ruleId}`;
        return {
          directiveId,
          policyTypes: ["rudder.base"],
          components: range(nbReportsPerDir).map((c) => {
            const name = `component${directiveId}${c}`;
            return {
              kind: "value" as const,
              name,
              values: [{ kind: "match" as const, value: name, unexpanded: name }],
            };
          }),
        };
      }),
    };
  });
  const runTime = "2026-11-27 00:00:00+00:00";
  const reports: AgentReport[] = rules.flatMap((r) =>
    r.directives.flatMap((d) =>
      d.components.map((c) => ({
        technique: "test",
        eventType: "result_success",
        ruleId: r.ruleId,
        directiveId: d.directiveId,
        nodeId,
        reportId: "report_id",
        component: c.name,
        keyValue: c.name,
        runTime,
        message: "empty text",
      })),
    ),
  );
  const expected: NodeExpectedReports = {
    nodeId,
    configId: `version_${nodeId}`,
    // ExecutionBatchTest's `mode`: full compliance, enforce, runs every 5 minutes.
    modes: {
      globalPolicyMode: "enforce",
      overridable: true,
      nodePolicyMode: "enforce",
      complianceMode: "full-compliance",
      heartbeatPeriod: 30,
      runInterval: 5,
    },
    rules,
    overrides: [],
  };
  return [
    { nodeId, runTime: Date.parse("2026-11-27T00:00:00Z"), configId: expected.configId },
    reports,
    expected,
    expected,
    [],
  ];
}

const successes = (data: Data) =>
  mergeCompareByRule(...data)
    .map((s) => ruleStatusCompliance(s).success)
    .reduce((a, b) => a + b, 0);

test("ExecutionBatchTest performance for mergeCompareByRule: init correctly", () => {
  const data = buildData("test", 12, 12, 4);
  const result = mergeCompareByRule(...data);
  assert.equal(result.length, 12);
  assert.equal(successes(data), 576);
});

test("ExecutionBatchTest performance for mergeCompareByRule: the 100-node round it times gives every rule its successes", () => {
  const nodes = Array.from({ length: 100 }, (_, i) => `nodeId_${i + 1}`);
  for (const node of nodes) {
    const data = buildData(node, 15, 12, 5);
    const result = mergeCompareByRule(...data);
    assert.equal(result.length, 15, node);
    for (const s of result) {
      const level = ruleStatusCompliance(s);
      assert.equal(level.success, 12 * 5, `${node} ${s.ruleId}`);
      assert.equal(level.missing + level.unexpected + level.error, 0, `${node} ${s.ruleId}`);
    }
  }
});
