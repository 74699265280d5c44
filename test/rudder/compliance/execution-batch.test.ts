/**
 * Cases of Rudder's ExecutionBatchTest.scala (rudder-core, branch 8.3),
 * ported as data: each fixture under
 * test/fixtures/rudder/compliance/execution-batch/ is one `should` group
 * (its expected components and reports), each of its cases one `in` case
 * with the results Rudder asserts. See the README there.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import {
  type ComplianceLevel,
  type ComponentStatus,
  checkComponent,
  complianceLevel,
  componentCompliance,
  componentValues,
  type Counter,
  type DirectiveStatus,
  computePercent,
  decodeComponent,
  decodeRule,
  directiveCompliance,
  formatLevel,
  mergeDirectives,
  type NodeExpectedReports,
  nodeCompliance,
  type OverriddenPolicy,
  type RunAnalysis,
  sumLevels,
  valueCompliance,
  valueStatusType,
  type AgentReport,
  type NodeModes,
  nodeStatus,
  type PolicyMode,
  type ReportType,
  ruleCompliance,
  ruleStatusCompliance,
  sameLevel,
  totalOf,
} from "../../../src/rudder/compliance/index.js";

const DIR = fileURLToPath(
  new URL("../../../../test/fixtures/rudder/compliance/execution-batch/", import.meta.url),
);

type ReportTuple = [
  string,
  string,
  string,
  string,
  string,
  { rule?: string; directive?: string; node?: string }?,
];

interface Case {
  readonly name: string;
  readonly reports: string;
  readonly at?: string[];
  readonly size?: number;
  readonly compliance?: Partial<Record<Counter, number>>;
  readonly percent?: number;
  readonly valueCount?: number;
  readonly values?: Record<string, ReportType[]>;
  readonly allValues?: Record<string, ReportType[]>;
  readonly directive?: string;
  readonly rule?: string;
  readonly noAnswer?: ReportType;
  readonly policyMode?: PolicyMode;
  /** Total number of reports counted. */
  readonly total?: number;
  /** Messages (`Severity:"text"`, as Rudder prints them) of the values with each expected value. */
  readonly byExpected?: Record<string, string[]>;
  /** "rule": check the rule's compliance rather than the directive's. */
  readonly scope?: "rule";
  readonly nodeCount?: number;
  readonly tagCount?: number;
  readonly tag?: string;
  readonly component?: string;
  readonly value?: string;
  readonly absent?: boolean;
  readonly overriddenBy?: string;
  readonly successPercent?: number;
  readonly directiveIds?: string[];
  /** Percentages of the first value of each name. */
  readonly valuePercent?: Record<string, Partial<Record<Counter, number>>>;
  /** Several checks of values, each at its own place. */
  readonly checks?: Case[];
  /** Number of messages of the first value of each name. */
  readonly messageCount?: Record<string, number>;
  /** All values, in any order: [value, expected value, report id, [[type, message]...]]. */
  readonly valueList?: Array<[string, string, string, Array<[ReportType, string | null]>]>;
  /** The statuses of the values with this report id and value, among the top-level components. */
  readonly byReportId?: { id: string; value: string; statuses: ReportType[] };
  /** "patterns" cases: expected values with the status of each of their messages. */
  readonly patterns?: Array<[string, PatternKind[]]>;
  /** "patterns" cases: the reports, as (value, kind). */
  readonly reportValues?: Array<[string, PatternKind]>;
}

type PatternKind = "Success" | "Repaired" | "Error" | "Missing" | "Unexpected";

const KIND_TYPE: Record<PatternKind, ReportType> = {
  Success: "EnforceSuccess",
  Repaired: "EnforceRepaired",
  Error: "EnforceError",
  Missing: "Missing",
  Unexpected: "Unexpected",
};

const KIND_EVENT: Record<PatternKind, string> = {
  Success: "result_success",
  Repaired: "result_repaired",
  Error: "result_error",
  Missing: "result_error",
  Unexpected: "result_error",
};

/** The `test(id, patterns, reports)` helper of the spec: every value's messages have its kinds. */
function runPatternCase(c: Case): void {
  const patterns = c.patterns ?? [];
  const values = patterns.map(([v]) => ({ kind: "match" as const, value: v, unexpanded: v }));
  const reports = (c.reportValues ?? []).map(([v, k]) =>
    toReport([KIND_EVENT[k], "report_id12", "component", v, "message"]),
  );
  const [result] = checkComponent(
    { kind: "value", name: "component", values },
    reports,
    "Missing",
    "enforce",
  );
  assert.ok(result);
  const counts: Partial<Record<Counter, number>> = {};
  const counter: Record<PatternKind, Counter> = {
    Success: "success",
    Repaired: "repaired",
    Error: "error",
    Missing: "missing",
    Unexpected: "unexpected",
  };
  for (const [, kinds] of patterns) for (const k of kinds) counts[counter[k]] = (counts[counter[k]] ?? 0) + 1;
  checkLevel(componentCompliance(result), { name: c.name, reports: "", compliance: counts });
  for (const [value, kinds] of patterns) {
    const first = componentValues(result).find((v) => v.value === value);
    assert.ok(first, `no value '${value}'`);
    for (const m of first.messages)
      assert.ok(
        kinds.some((k) => KIND_TYPE[k] === m.type),
        `'${value}': ${m.type}`,
      );
  }
}

interface Fixture {
  readonly source: string;
  readonly call: "component" | "rule" | "nodes" | "patterns";
  /** "nodes": the nodes expecting the rule. */
  readonly nodes?: string[];
  /** "nodes": what the nodes' expected reports say is overridden. */
  readonly overrides?: OverriddenPolicy[];
  readonly expected: unknown;
  readonly noAnswer?: ReportType;
  readonly policyMode?: PolicyMode;
  readonly modes?: Partial<NodeModes>;
  readonly reports: Record<string, ReportTuple[]>;
  readonly cases: readonly Case[];
}

/** The modes of ExecutionBatchTest's `mode`: full compliance, enforce everywhere. */
const TEST_MODES: NodeModes = {
  globalPolicyMode: "enforce",
  overridable: true,
  nodePolicyMode: "enforce",
  complianceMode: "full-compliance",
  heartbeatPeriod: 30,
  runInterval: 5,
};

function toReport(t: ReportTuple): AgentReport {
  const [eventType, reportId, component, keyValue, message, extra] = t;
  return {
    technique: "test",
    eventType,
    ruleId: extra?.rule ?? "cr",
    directiveId: extra?.directive ?? "policy",
    nodeId: extra?.node ?? "nodeId",
    reportId,
    component,
    keyValue,
    message,
    runTime: "2026-11-27 00:00:00+00:00",
  };
}

/** The component a case looks at: by name at the top, then down sub-blocks. */
function locate(components: readonly ComponentStatus[], at: readonly string[] | undefined): ComponentStatus {
  let current = at?.[0] === undefined ? components[0] : components.find((c) => c.name === at[0]);
  for (const name of at?.slice(1) ?? []) {
    if (current?.kind !== "block") assert.fail(`no block on the way to ${name}`);
    current = current.components.find((c) => c.name === name);
  }
  if (!current) assert.fail(`no component at ${JSON.stringify(at)}`);
  return current;
}

const sorted = (types: readonly ReportType[]): ReportType[] => [...types].sort();

const SEVERITY: Partial<Record<ReportType, string>> = {
  EnforceSuccess: "Success",
  EnforceRepaired: "Repaired",
  EnforceError: "Error",
  EnforceNotApplicable: "NotApplicable",
};

function checkValues(component: ComponentStatus, c: Case): void {
  for (const [value, percents] of Object.entries(c.valuePercent ?? {})) {
    const first = componentValues(component).find((v) => v.value === value);
    assert.ok(first, `no value '${value}'`);
    const pc = computePercent(valueCompliance(first));
    for (const [counter, want] of Object.entries(percents)) assert.equal(pc[counter as Counter], want);
  }
  if (c.total !== undefined) assert.equal(totalOf(componentCompliance(component)), c.total, "total");
  for (const [expected, messages] of Object.entries(c.byExpected ?? {})) {
    const got = componentValues(component)
      .filter((v) => v.expectedValue === expected)
      .flatMap((v) => v.messages.map((m) => `${SEVERITY[m.type] ?? m.type}:"${m.message ?? ""}"`));
    assert.deepEqual(got.sort(), [...messages].sort(), `messages expecting '${expected}'`);
  }
  for (const [value, count] of Object.entries(c.messageCount ?? {})) {
    const first = componentValues(component).find((v) => v.value === value);
    assert.equal(first?.messages.length, count, `messages of '${value}'`);
  }
  if (c.valueList) {
    const key = (v: unknown): string => JSON.stringify(v);
    const got = componentValues(component).map((v) =>
      key([v.value, v.expectedValue, v.reportId, v.messages.map((m) => [m.type, m.message ?? null])]),
    );
    assert.deepEqual(got.sort(), c.valueList.map(key).sort());
  }
  if (c.valueCount !== undefined)
    assert.equal(componentValues(component).length, c.valueCount, "value count");
  for (const [value, types] of Object.entries(c.values ?? {})) {
    const first = componentValues(component).find((v) => v.value === value);
    assert.ok(first, `no value '${value}'`);
    assert.deepEqual(sorted(first.messages.map((m) => m.type)), sorted(types), `messages of '${value}'`);
  }
  for (const [value, types] of Object.entries(c.allValues ?? {})) {
    const all = componentValues(component).filter((v) => v.value === value);
    assert.deepEqual(
      sorted(all.flatMap((v) => v.messages.map((m) => m.type))),
      sorted(types),
      `all messages of '${value}'`,
    );
  }
}

function checkLevel(level: ComplianceLevel, c: Case): void {
  if (c.compliance) {
    const want = complianceLevel(c.compliance);
    assert.ok(sameLevel(level, want), `compliance ${formatLevel(level)}, expected ${formatLevel(want)}`);
  }
  if (c.percent !== undefined) assert.equal(computePercent(level).compliance, c.percent);
}

function runComponentCase(f: Fixture, c: Case): void {
  const { component, problems } = decodeComponent(f.expected);
  assert.deepEqual(problems, []);
  if (!component) return;
  const reports = (f.reports[c.reports] ?? []).map(toReport);
  const result = checkComponent(
    component,
    reports,
    c.noAnswer ?? f.noAnswer ?? "Missing",
    c.policyMode ?? f.policyMode ?? "enforce",
  );
  if (c.size !== undefined) assert.equal(result.length, c.size, "results");
  const target = locate(result, c.at);
  checkLevel(
    c.at && c.at.length > 0 ? componentCompliance(target) : componentCompliance(result[0] as ComponentStatus),
    c,
  );
  checkValues(target, c);
}

function runRuleCase(f: Fixture, c: Case): void {
  const { rule, problems } = decodeRule(f.expected);
  assert.deepEqual(problems, []);
  if (!rule) return;
  const reports = (f.reports[c.reports] ?? []).map(toReport);
  const statuses = ruleCompliance({ nodeId: "nodeId" }, reports, { ...TEST_MODES, ...f.modes }, rule, []);
  if (c.scope === "rule") {
    if (c.size !== undefined) assert.equal(statuses.length, c.size, "rule results");
    checkLevel(ruleStatusCompliance(statuses[0] as (typeof statuses)[number]), c);
    return;
  }
  const directives = statuses.flatMap((s) => {
    const d = s.directives.get(c.directive ?? "policy");
    return d ? [d] : [];
  });
  if (c.size !== undefined) assert.equal(directives.length, c.size, "directive results");
  const directive = directives[0];
  if (!directive) return;
  checkLevel(directiveCompliance(directive), c);
  checkDirectiveValues(directive, c);
}

/** The value checks of a case (and of its sub-checks) on a directive's components. */
function checkDirectiveValues(directive: DirectiveStatus, c: Case): void {
  for (const check of [c, ...(c.checks ?? [])]) {
    const wanted =
      check.at ??
      check.values ??
      check.allValues ??
      check.valueCount ??
      check.valueList ??
      check.messageCount;
    if (wanted !== undefined) checkValues(locate(directive.components, check.at), check);
  }
  if (c.byReportId) {
    const { id, value, statuses } = c.byReportId;
    const found = directive.components
      .flatMap((comp) => componentValues(comp))
      .filter((v) => v.reportId === id && v.value === value);
    assert.deepEqual(found.map(valueStatusType), statuses);
  }
}

/** The modes of the spec's `buildExpected`: global audit (overridable), node enforce, full compliance. */
const NODE_MODES: NodeModes = { ...TEST_MODES, globalPolicyMode: "audit" };

/**
 * The spec's `getNodeStatusReportsByRule`: each node of the fixture
 * expects the rule, its run is compared (ComputeCompliance) with all the
 * reports; cases look at the statuses of every node together.
 */
function runNodesCase(f: Fixture, c: Case): void {
  const { rule, problems } = decodeRule(f.expected);
  assert.deepEqual(problems, []);
  if (!rule) return;
  const reports = (f.reports[c.reports] ?? []).map(toReport);
  const now = Date.parse("2026-11-27T00:00:00Z");
  const statuses = (f.nodes ?? []).map((nodeId) => {
    const expected: NodeExpectedReports = {
      nodeId,
      configId: `version_${nodeId}`,
      modes: NODE_MODES,
      rules: [rule],
      overrides: f.overrides ?? [],
    };
    const analysis: RunAnalysis = { kind: "ComputeCompliance", runTime: now, expected, expiration: now };
    return nodeStatus(nodeId, analysis, reports);
  });
  if (c.nodeCount !== undefined) assert.equal(statuses.length, c.nodeCount, "nodes");
  const first = statuses[0];
  assert.ok(first);
  if (c.tagCount !== undefined) assert.equal(first.byTag.size, c.tagCount, "tags");
  const rules = statuses.flatMap((st) =>
    c.tag === undefined ? [...st.byTag.values()].flat() : [...(st.byTag.get(c.tag) ?? [])],
  );
  const directives = mergeDirectives(rules.flatMap((r) => [...r.directives.values()]));
  if (c.directiveIds) assert.deepEqual([...directives.keys()], c.directiveIds);
  if (c.successPercent !== undefined)
    assert.equal(computePercent(nodeCompliance(first)).success, c.successPercent);
  if (c.directive === undefined) {
    checkLevel(sumLevels([...directives.values()].map(directiveCompliance)), c);
    return;
  }
  const directive = directives.get(c.directive);
  if (c.absent) {
    assert.equal(directive, undefined);
    return;
  }
  assert.ok(directive, `no directive ${c.directive}`);
  if (c.overriddenBy !== undefined) assert.equal(directive.overriddenBy, c.overriddenBy);
  if (c.component === undefined) {
    checkLevel(directiveCompliance(directive), c);
    return;
  }
  const component = directive.components.find((comp) => comp.name === c.component);
  assert.ok(component, `no component ${c.component}`);
  if (c.value === undefined) {
    checkLevel(componentCompliance(component), c);
    return;
  }
  const value = componentValues(component).find((v) => v.value === c.value);
  assert.ok(value, `no value ${c.value}`);
  checkLevel(valueCompliance(value), c);
}

for (const file of readdirSync(DIR)
  .filter((n) => n.endsWith(".json"))
  .sort()) {
  const fixture = JSON.parse(readFileSync(DIR + file, "utf8")) as Fixture;
  for (const c of fixture.cases) {
    test(`${file}: ${c.name}`, () => {
      if (fixture.call === "patterns") runPatternCase(c);
      else if (fixture.call === "component") runComponentCase(fixture, c);
      else if (fixture.call === "rule") runRuleCase(fixture, c);
      else runNodesCase(fixture, c);
    });
  }
}
