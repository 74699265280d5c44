/**
 * One call from a node's expected reports and a run's output to the node's
 * compliance, and that compliance as plain JSON data (Rudder's API names
 * for the counters): what `tend rudder compliance` prints and what the hub
 * stores.
 */
import { type ComplianceLevel, computePercent, levelToApi, sumLevels } from "./compliance-level.js";
import { formatReportingLogic, type NodeExpectedReports } from "./expected.js";
import { type NodeStatus, nodeStatus, type RunProblem, ruleStatusCompliance } from "./node-compliance.js";
import type { ReportType } from "./report-type.js";
import { type MalformedReport, type ParsedRun, parseRunOutput, type RunDiagnostic } from "./report-line.js";
import type { RuleNodeStatus } from "./rule-compliance.js";
import { analyseRun, type RunAnalysis } from "./run-info.js";
import {
  type ComponentStatus,
  componentCompliance,
  componentStatusType,
  type DirectiveStatus,
  directiveCompliance,
  mergeDirectives,
  valueCompliance,
  valueStatusType,
} from "./status.js";

export interface RunCompliance {
  readonly run: ParsedRun;
  readonly status: NodeStatus;
  /** Problems with the run as a whole, beyond the report lines. */
  readonly diagnostics: readonly RunDiagnostic[];
}

/**
 * The node's compliance for one run's output. `now` decides whether the
 * run is still valid; by default it is the run's own start time (the
 * compliance the run gives), or the current time when there is no run.
 */
export function complianceOfRun(
  expected: NodeExpectedReports,
  output: string,
  options: { now?: number } = {},
): RunCompliance {
  const run = parseRunOutput(output);
  const diagnostics: RunDiagnostic[] = [...run.diagnostics];
  const complete = run.start !== undefined && run.runTime !== undefined;
  const now = options.now ?? run.runTime ?? Date.now();
  if (run.nodeId !== undefined && run.nodeId !== expected.nodeId)
    diagnostics.push({
      code: "several-nodes",
      message: `the run is node '${run.nodeId}''s, the policy is node '${expected.nodeId}''s`,
    });
  const lastRun =
    complete && run.runTime !== undefined
      ? {
          time: run.runTime,
          ...(run.configId !== undefined ? { configId: run.configId } : {}),
          ...(run.configId === expected.configId ? { config: expected } : {}),
        }
      : undefined;
  const analysis = analyseRun(lastRun, expected, now);
  return { run, status: nodeStatus(expected.nodeId, analysis, run.reports), diagnostics };
}

/** Counters, Rudder's API names, and the compliant percentage. */
export interface ComplianceJson {
  readonly compliance: number;
  readonly complianceDetails: Record<string, number>;
}

function levelJson(level: ComplianceLevel): ComplianceJson {
  return { compliance: computePercent(level).compliance, complianceDetails: levelToApi(level) };
}

export interface ValueJson {
  readonly value: string;
  readonly expectedValue: string;
  readonly reportId: string;
  readonly status: ReportType;
  readonly messages: ReadonlyArray<{ readonly type: ReportType; readonly message?: string }>;
}

export type ComponentJson = ComplianceJson & {
  readonly name: string;
  readonly status: ReportType;
} & (
    | { readonly kind: "value"; readonly values: readonly ValueJson[] }
    | {
        readonly kind: "block";
        readonly reportingLogic: string;
        readonly components: readonly ComponentJson[];
      }
  );

export interface DirectiveJson extends ComplianceJson {
  readonly directiveId: string;
  readonly policyTypes: readonly string[];
  readonly overriddenBy?: string;
  readonly components: readonly ComponentJson[];
}

export interface RuleJson extends ComplianceJson {
  readonly ruleId: string;
  readonly directives: readonly DirectiveJson[];
}

export interface NodeComplianceJson extends ComplianceJson {
  readonly nodeId: string;
  readonly runAnalysis: {
    readonly kind: RunAnalysis["kind"];
    readonly expectedConfigId?: string;
    readonly lastRunConfigId?: string;
    readonly lastRunDateTime?: string;
  };
  readonly problems: readonly RunProblem[];
  readonly rules: readonly RuleJson[];
}

export function componentJson(c: ComponentStatus): ComponentJson {
  const base = { name: c.name, status: componentStatusType(c), ...levelJson(componentCompliance(c)) };
  if (c.kind === "block")
    return {
      ...base,
      kind: "block",
      reportingLogic: formatReportingLogic(c.logic),
      components: c.components.map(componentJson),
    };
  return {
    ...base,
    kind: "value",
    values: c.values.map((v) => ({
      value: v.value,
      expectedValue: v.expectedValue,
      reportId: v.reportId,
      status: valueStatusType(v),
      messages: v.messages.map((m) => ({ ...m })),
      ...levelJson(valueCompliance(v)),
    })),
  };
}

export function directiveJson(d: DirectiveStatus): DirectiveJson {
  return {
    directiveId: d.directiveId,
    policyTypes: d.policyTypes,
    ...(d.overriddenBy !== undefined ? { overriddenBy: d.overriddenBy } : {}),
    ...levelJson(directiveCompliance(d)),
    components: d.components.map(componentJson),
  };
}

/** Rules of every tag, merged by rule id, in first-seen order. */
function rulesOf(status: NodeStatus): RuleJson[] {
  const byRule = new Map<string, RuleNodeStatus[]>();
  for (const list of status.byTag.values())
    for (const r of list) byRule.set(r.ruleId, [...(byRule.get(r.ruleId) ?? []), r]);
  return [...byRule].map(([ruleId, list]) => {
    const directives = mergeDirectives(list.flatMap((r) => [...r.directives.values()]));
    return {
      ruleId,
      ...levelJson(sumLevels(list.map(ruleStatusCompliance))),
      directives: [...directives.values()].map(directiveJson),
    };
  });
}

function analysisJson(a: RunAnalysis): NodeComplianceJson["runAnalysis"] {
  const iso = (t: number): string => new Date(t).toISOString();
  return {
    kind: a.kind,
    ...("expected" in a ? { expectedConfigId: a.expected.configId } : {}),
    ...("runConfigId" in a ? { lastRunConfigId: a.runConfigId } : {}),
    ...("runConfig" in a ? { lastRunConfigId: a.runConfig.configId } : {}),
    ...(a.kind === "ComputeCompliance" ? { lastRunConfigId: a.expected.configId } : {}),
    ...("runTime" in a ? { lastRunDateTime: iso(a.runTime) } : {}),
    ...(a.kind === "Pending" && a.lastRun
      ? { lastRunDateTime: iso(a.lastRun.time), lastRunConfigId: a.lastRun.config.configId }
      : {}),
  };
}

/** The node's compliance as JSON data. */
export function nodeComplianceJson(status: NodeStatus): NodeComplianceJson {
  const rules = rulesOf(status);
  const all = [...status.byTag.values()].flat();
  return {
    nodeId: status.nodeId,
    runAnalysis: analysisJson(status.analysis),
    ...levelJson(sumLevels(all.map(ruleStatusCompliance))),
    problems: status.problems,
    rules,
  };
}

/** What one run gave: the node's compliance plus the lines that did not read and the run's problems. */
export interface RunComplianceJson extends NodeComplianceJson {
  /** Lines that looked like reports but were not: kept, never counted (Rudder's relay drops them). */
  readonly malformedReports: readonly MalformedReport[];
  readonly diagnostics: readonly RunDiagnostic[];
}

export function runComplianceJson(result: RunCompliance): RunComplianceJson {
  return {
    ...nodeComplianceJson(result.status),
    malformedReports: result.run.malformed,
    diagnostics: result.diagnostics,
  };
}
