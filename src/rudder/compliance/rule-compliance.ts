/**
 * Compliance of a node's rules from the reports of one run, as Rudder's
 * `ExecutionBatch` computes it: each expected component of each directive
 * against the directive's reports (`getComplianceForRule`), reports of
 * directives nobody expected made unexpected, every expected value given
 * one status when there is no run to compare with (`buildRuleNodeStatusReport`),
 * and a run's compliance carried onto a newer configuration (`mergeCompareByRule`).
 */
import {
  BASE_TAG,
  type ComponentExpected,
  type DirectiveExpected,
  directivePolicyMode,
  type NodeExpectedReports,
  type NodeModes,
  type OverriddenPolicy,
  type RuleExpected,
} from "./expected.js";
import { checkComponent } from "./match.js";
import { missingReportType, type ReportType } from "./report-type.js";
import type { AgentReport } from "./result-report.js";
import {
  type ComponentStatus,
  type DirectiveStatus,
  groupBy,
  mergeComponents,
  mergeDirectives,
  messageStatus,
} from "./status.js";

/** One rule's compliance on one node, for one compliance tag. */
export interface RuleNodeStatus {
  readonly nodeId: string;
  readonly ruleId: string;
  readonly complianceTag: string;
  /** The run the statuses come from (its start time, ms), if any. */
  readonly runTime?: number;
  readonly configId?: string;
  readonly directives: ReadonlyMap<string, DirectiveStatus>;
}

/** Who and what a set of statuses is about (Rudder's `MergeInfo`). */
export interface MergeInfo {
  readonly nodeId: string;
  readonly runTime?: number;
  readonly configId?: string;
}

/** The rule that overrides a directive of a rule on the node, if one does. */
export function overriddenBy(
  ruleId: string,
  directiveId: string,
  overrides: readonly OverriddenPolicy[],
): string | undefined {
  const found = overrides.find((o) => o.policy.ruleId === ruleId && o.policy.directiveId === directiveId);
  return found?.overriddenBy.ruleId;
}

function directiveStatus(
  directiveId: string,
  policyTypes: readonly string[],
  overrider: string | undefined,
  components: readonly ComponentStatus[],
): DirectiveStatus {
  return {
    directiveId,
    policyTypes,
    components,
    ...(overrider !== undefined ? { overriddenBy: overrider } : {}),
  };
}

/** One status per compliance tag the directives carry. */
export function ruleStatusFromDirectives(
  info: MergeInfo,
  ruleId: string,
  directives: Iterable<DirectiveStatus>,
): RuleNodeStatus[] {
  const list = [...directives];
  const tags = [...new Set(list.flatMap((d) => d.policyTypes))];
  return tags.map((tag) => ({
    nodeId: info.nodeId,
    ruleId,
    complianceTag: tag,
    ...(info.runTime !== undefined ? { runTime: info.runTime } : {}),
    ...(info.configId !== undefined ? { configId: info.configId } : {}),
    directives: new Map(list.filter((d) => d.policyTypes.includes(tag)).map((d) => [d.directiveId, d])),
  }));
}

/** A component where every value has the same status (Rudder's `componentExpectedReportToStatusReport`). */
export function componentWithStatus(type: ReportType, c: ComponentExpected): ComponentStatus {
  if (c.kind === "block")
    return {
      kind: "block",
      name: c.name,
      logic: c.logic,
      components: c.components.map((s) => componentWithStatus(type, s)),
    };
  return {
    kind: "value",
    name: c.name,
    expectedName: c.name,
    values: c.values.map((v) => ({
      value: v.value,
      expectedValue: v.kind === "match" ? v.unexpanded : v.value,
      reportId: v.kind === "id" ? v.id : "0",
      messages: [messageStatus(type)],
    })),
  };
}

/** Every expected value of the node's rules with one status (pending, no answer...). */
export function rulesWithStatus(
  info: MergeInfo,
  expected: NodeExpectedReports,
  type: ReportType,
  overrides: readonly OverriddenPolicy[],
): RuleNodeStatus[] {
  return expected.rules.flatMap((rule) =>
    ruleStatusFromDirectives(
      info,
      rule.ruleId,
      rule.directives.map((d) =>
        directiveStatus(
          d.directiveId,
          d.policyTypes,
          overriddenBy(rule.ruleId, d.directiveId, overrides),
          d.components.map((c) => componentWithStatus(type, c)),
        ),
      ),
    ),
  );
}

/** A block split into one path per value, so each value is checked on its own. */
function effectivePaths(component: ComponentExpected): ComponentExpected[] {
  if (component.kind === "value") return [component];
  return component.components.flatMap(effectivePaths).map((path) => ({ ...component, components: [path] }));
}

/** The reports a directive nobody expected sent, each value unexpected. */
function unexpectedDirectives(
  reports: readonly AgentReport[],
  overrides: readonly OverriddenPolicy[],
): DirectiveStatus[] {
  return reports.map((r) =>
    directiveStatus(r.directiveId, [BASE_TAG], overriddenBy(r.ruleId, r.directiveId, overrides), [
      {
        kind: "value",
        name: r.component,
        expectedName: r.component,
        values: [
          {
            value: r.keyValue,
            expectedValue: r.keyValue,
            reportId: r.reportId,
            messages: [messageStatus("Unexpected", r.message)],
          },
        ],
      },
    ]),
  );
}

function checkDirective(
  directive: DirectiveExpected,
  reports: readonly AgentReport[],
  modes: NodeModes,
): ComponentStatus[] {
  const mode = directivePolicyMode(modes, directive);
  const missing = missingReportType(modes.complianceMode, mode);
  // Rudder keys expected components by their paths: identical ones count once.
  const seen = new Set<string>();
  const out: ComponentStatus[] = [];
  for (const component of directive.components) {
    const paths = effectivePaths(component);
    const key = JSON.stringify(paths);
    if (seen.has(key)) continue;
    seen.add(key);
    const statuses = paths.flatMap((p) => checkComponent(p, reports, missing, mode));
    out.push(...mergeComponents(statuses));
  }
  return out;
}

/** One rule's compliance from the run's reports for that rule (Rudder's `getComplianceForRule`). */
export function ruleCompliance(
  info: MergeInfo,
  reports: readonly AgentReport[],
  modes: NodeModes,
  rule: RuleExpected,
  overrides: readonly OverriddenPolicy[],
): RuleNodeStatus[] {
  const byDirective = groupBy(reports, (r) => r.directiveId);
  const expectedIds = new Set(rule.directives.map((d) => d.directiveId));
  const strays = reports.filter((r) => !expectedIds.has(r.directiveId));
  const expected = mergeDirectives(
    rule.directives.map((d) =>
      directiveStatus(
        d.directiveId,
        d.policyTypes,
        overriddenBy(rule.ruleId, d.directiveId, overrides),
        checkDirective(d, byDirective.get(d.directiveId) ?? [], modes),
      ),
    ),
  );
  const directives =
    strays.length > 0
      ? mergeDirectives([...expected.values(), ...unexpectedDirectives(strays, overrides)])
      : expected;
  return ruleStatusFromDirectives(info, rule.ruleId, directives.values());
}

const keyOf = (r: RuleNodeStatus): string => JSON.stringify([r.ruleId, r.complianceTag]);

/** Compliance of every rule of a configuration from a run's result reports. */
export function runCompliance(
  info: MergeInfo,
  reports: readonly AgentReport[],
  config: NodeExpectedReports,
  overrides: readonly OverriddenPolicy[],
): Map<string, RuleNodeStatus> {
  const byRule = groupBy(reports, (r) => r.ruleId);
  const out = new Map<string, RuleNodeStatus>();
  for (const rule of config.rules)
    for (const status of ruleCompliance(info, byRule.get(rule.ruleId) ?? [], config.modes, rule, overrides))
      out.set(keyOf(status), status);
  return out;
}

/**
 * The run's compliance for the rules the current configuration still has,
 * its directives that are gone dropped, the rules it did not have pending
 * (Rudder's `mergeCompareByRule`).
 */
export function mergeCompareByRule(
  info: MergeInfo,
  reports: readonly AgentReport[],
  runConfig: NodeExpectedReports,
  current: NodeExpectedReports,
  overrides: readonly OverriddenPolicy[],
): RuleNodeStatus[] {
  const fromRun = runCompliance(info, reports, runConfig, overrides);
  const computed: RuleNodeStatus[] = [];
  const fresh: RuleNodeStatus[] = [];
  for (const status of rulesWithStatus(info, current, "Pending", overrides)) {
    const run = fromRun.get(keyOf(status));
    if (!run) {
      fresh.push(status);
      continue;
    }
    const directives = new Map(status.directives);
    for (const [id, d] of run.directives) if (status.directives.has(id)) directives.set(id, d);
    computed.push({ ...run, directives });
  }
  return [...computed, ...fresh];
}

/** Every report made unexpected, by rule and directive (Rudder's `buildUnexpectedReports`). */
export function unexpectedReports(
  info: MergeInfo,
  reports: readonly AgentReport[],
  overrides: readonly OverriddenPolicy[],
): RuleNodeStatus[] {
  return [...groupBy(reports, (r) => r.ruleId)].map(([ruleId, forRule]) => ({
    nodeId: info.nodeId,
    ruleId,
    complianceTag: BASE_TAG,
    ...(info.runTime !== undefined ? { runTime: info.runTime } : {}),
    ...(info.configId !== undefined ? { configId: info.configId } : {}),
    directives: new Map(
      [...groupBy(forRule, (r) => r.directiveId)].map(([directiveId, forDirective]) => [
        directiveId,
        directiveStatus(
          directiveId,
          [BASE_TAG],
          overriddenBy(ruleId, directiveId, overrides),
          [...groupBy(forDirective, (r) => r.component)].map(([component, rs]) => ({
            kind: "value",
            name: component,
            expectedName: component,
            values: [...groupBy(rs, (r) => r.reportId)].flatMap(([id, byId]) =>
              [...groupBy(byId, (r) => r.keyValue)].map(([keyValue, same]) => ({
                value: keyValue,
                expectedValue: keyValue,
                reportId: id,
                messages: same.map((r) => messageStatus("Unexpected", r.message)),
              })),
            ),
          })),
        ),
      ]),
    ),
  }));
}

/** Merges rule statuses of the same node, rule, tag, run and configuration. */
export function mergeRuleStatuses(statuses: Iterable<RuleNodeStatus>): RuleNodeStatus[] {
  const groups = groupBy(statuses, (s) =>
    JSON.stringify([s.nodeId, s.ruleId, s.complianceTag, s.runTime ?? null, s.configId ?? null]),
  );
  return [...groups.values()].map((group) => ({
    ...(group[0] as RuleNodeStatus),
    directives: mergeDirectives(group.flatMap((s) => [...s.directives.values()])),
  }));
}
