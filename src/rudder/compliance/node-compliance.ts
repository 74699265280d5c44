/**
 * A node's compliance from its run analysis and the run's reports, as
 * Rudder's `ExecutionBatch.getNodeStatusReports` gives it: per compliance
 * tag, rule, directive, component and value, with overridden directives
 * shown, an agent abort or mixed policy modes reported.
 */
import { type ComplianceLevel, sumLevels } from "./compliance-level.js";
import { BASE_TAG, type OverriddenPolicy } from "./expected.js";
import { isResultEvent } from "./report-type.js";
import type { AgentReport } from "./result-report.js";
import {
  mergeCompareByRule,
  mergeRuleStatuses,
  type RuleNodeStatus,
  rulesWithStatus,
  unexpectedReports,
} from "./rule-compliance.js";
import type { RunAnalysis } from "./run-info.js";
import { type DirectiveStatus, directiveCompliance, groupBy } from "./status.js";

/** Something wrong with the run as a whole (Rudder's `PolicyModeError`). */
export type RunProblem =
  | { readonly kind: "agent-abort"; readonly cause: string; readonly message: string }
  | { readonly kind: "mixed-mode"; readonly directiveId: string; readonly message: string };

export interface NodeStatus {
  readonly nodeId: string;
  readonly analysis: RunAnalysis;
  readonly problems: readonly RunProblem[];
  readonly overrides: readonly OverriddenPolicy[];
  /** Rule statuses per compliance tag, merged. */
  readonly byTag: ReadonlyMap<string, readonly RuleNodeStatus[]>;
}

function overridesOf(analysis: RunAnalysis): readonly OverriddenPolicy[] {
  if ("expected" in analysis) return analysis.expected.overrides;
  return [];
}

/** The rule statuses the analysis calls for. */
function ruleStatuses(
  nodeId: string,
  analysis: RunAnalysis,
  reports: readonly AgentReport[],
  overrides: readonly OverriddenPolicy[],
): RuleNodeStatus[] {
  switch (analysis.kind) {
    case "ReportsDisabledInInterval":
      return rulesWithStatus(
        { nodeId, configId: analysis.expected.configId },
        analysis.expected,
        "Disabled",
        overrides,
      );
    case "NoReportInInterval":
      return rulesWithStatus(
        { nodeId, configId: analysis.expected.configId },
        analysis.expected,
        "NoAnswer",
        overrides,
      );
    case "ComputeCompliance": {
      const info = { nodeId, runTime: analysis.runTime, configId: analysis.expected.configId };
      return mergeCompareByRule(info, reports, analysis.expected, analysis.expected, overrides);
    }
    case "Pending": {
      const info = { nodeId, configId: analysis.expected.configId };
      if (!analysis.lastRun) return rulesWithStatus(info, analysis.expected, "Pending", overrides);
      const withRun = { ...info, runTime: analysis.lastRun.time };
      return mergeCompareByRule(withRun, reports, analysis.lastRun.config, analysis.expected, overrides);
    }
    case "UnexpectedVersion":
    case "UnexpectedNoVersion":
    case "UnexpectedUnknownVersion": {
      const runConfigId = analysis.kind === "UnexpectedVersion" ? analysis.runConfig.configId : undefined;
      const expectedInfo = { nodeId, runTime: analysis.runTime, configId: analysis.expected.configId };
      const missing = rulesWithStatus(expectedInfo, analysis.expected, "Missing", overrides);
      const runInfo = {
        nodeId,
        runTime: analysis.runTime,
        ...(runConfigId ? { configId: runConfigId } : {}),
      };
      return [...missing, ...unexpectedReports(runInfo, reports, overrides)];
    }
    case "NoExpectedReport":
      return unexpectedReports({ nodeId, runTime: analysis.runTime }, reports, overrides);
    case "NoRunNoExpectedReport":
      return [];
  }
}

/** Adds the overridden directives to their rules, and rules whose directives all were. */
function withOverridden(
  nodeId: string,
  statuses: readonly RuleNodeStatus[],
  overrides: readonly OverriddenPolicy[],
): RuleNodeStatus[] {
  let left = [...overrides];
  const out: RuleNodeStatus[] = [];
  const stub = (o: OverriddenPolicy): DirectiveStatus => ({
    directiveId: o.policy.directiveId,
    policyTypes: [BASE_TAG],
    overriddenBy: o.overriddenBy.ruleId,
    components: [],
  });
  for (const status of statuses) {
    const mine = left.filter((o) => o.policy.ruleId === status.ruleId);
    left = left.filter((o) => o.policy.ruleId !== status.ruleId);
    const directives = new Map(status.directives);
    for (const o of mine) directives.set(o.policy.directiveId, stub(o));
    out.push({ ...status, directives });
  }
  for (const o of left)
    out.push({
      nodeId,
      ruleId: o.policy.ruleId,
      complianceTag: BASE_TAG,
      directives: new Map([[o.policy.directiveId, stub(o)]]),
    });
  return out;
}

function runProblems(
  nodeId: string,
  reports: readonly AgentReport[],
  statuses: readonly RuleNodeStatus[],
): RunProblem[] {
  const aborts: RunProblem[] = reports
    .filter((r) => r.nodeId === nodeId && r.eventType.startsWith("log_"))
    .filter((r) => r.component.toLowerCase() === "abort run")
    .map((r) => ({ kind: "agent-abort", cause: r.keyValue, message: r.message }));
  const mixed: RunProblem[] = statuses.flatMap((s) =>
    [...s.directives.values()]
      .filter((d) => directiveCompliance(d).badPolicyMode > 0)
      .map((d) => ({
        kind: "mixed-mode",
        directiveId: d.directiveId,
        message: `directive '${d.directiveId}' sends reports for another policy mode than its own`,
      })),
  );
  return [...aborts, ...mixed];
}

/**
 * The node's compliance: `reports` are all the reports of its last run
 * (control and log lines too: only result reports of this node count).
 */
export function nodeStatus(
  nodeId: string,
  analysis: RunAnalysis,
  reports: readonly AgentReport[],
): NodeStatus {
  const results = reports.filter((r) => r.nodeId === nodeId && isResultEvent(r.eventType));
  const overrides = overridesOf(analysis);
  const statuses = ruleStatuses(nodeId, analysis, results, overrides);
  const problems = runProblems(nodeId, reports, statuses);
  const all = withOverridden(nodeId, statuses, overrides);
  const byTag = new Map(
    [...groupBy(all, (s) => s.complianceTag)].map(([tag, list]) => [tag, mergeRuleStatuses(list)]),
  );
  return { nodeId, analysis, problems, overrides, byTag };
}

export function ruleStatusCompliance(status: RuleNodeStatus): ComplianceLevel {
  return sumLevels([...status.directives.values()].map(directiveCompliance));
}

/** The node's compliance: every tag's directives, merged across rules, summed. */
export function nodeCompliance(status: NodeStatus, tag?: string): ComplianceLevel {
  const tags = tag === undefined ? [...status.byTag.keys()] : [tag];
  return sumLevels(tags.map((t) => sumLevels((status.byTag.get(t) ?? []).map(ruleStatusCompliance))));
}
