/**
 * Pairs the reports of one directive with one expected component, as
 * Rudder's `ExecutionBatch.checkExpectedComponentWithReports` does: values
 * with a report id take the reports with that id; the others are matched
 * by value, `${var}` and `$(var)` values as patterns, the most specific
 * first; a value given more reports than expected becomes unexpected, one
 * given none is missing (or what the compliance mode says).
 */
import type { ComponentExpected, ExpectedValue, ValueExpected } from "./expected.js";
import type { PolicyMode, ReportType } from "./report-type.js";
import { type AgentReport, toMessageStatus } from "./result-report.js";
import {
  type ComponentStatus,
  groupBy,
  type MessageStatus,
  mergeComponents,
  mergeValues,
  messageStatus,
  type ValueStatus,
} from "./status.js";

/** A value holding a CFEngine variable, `${x}` or `$(x)` (one line, as Java's `.` reads). */
const HAS_VARIABLE = /^.*\$(\{.+?\}|\(.+?\)).*$/;
const VARIABLE = /\$\{.+?\}|\$\(.+?\)/g;

/** Whether an expected value holds a variable, so is matched as a pattern. */
export function isVariableValue(value: string): boolean {
  return HAS_VARIABLE.test(value);
}

/** The pattern of a value: its variables match anything, the rest literally. */
export function valuePattern(value: string): RegExp {
  const literal = value.split(VARIABLE).map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"));
  return new RegExp(`^${literal.join("[\\s\\S]*")}$`);
}

/**
 * How specific a value is, as Rudder measures it: the length of its Java
 * pattern text without the quoting marks and the `.*` of its variables.
 */
function specificity(value: string, isVar: boolean): number {
  if (!isVar) return value.length;
  const javaPattern = `(?s)\\Q${value.replace(VARIABLE, "\\E.*\\Q")}\\E`;
  return javaPattern.replace(/\\Q/g, "").replace(/\\E/g, "").replace(/\.\*/g, "").length;
}

/** Whether a report's value matches an expected value (Rudder's `checkExpectedVariable`). */
export function matchesExpected(expected: ExpectedValue, report: AgentReport): boolean {
  if (expected.kind === "id") return expected.id === report.reportId;
  if (expected.value === report.keyValue) return true;
  return isVariableValue(expected.value) && valuePattern(expected.value).test(report.keyValue);
}

interface Candidate {
  readonly expected: ExpectedValue;
  readonly cardinality: number;
  readonly isVar: boolean;
  readonly pattern?: RegExp;
  readonly matching: readonly AgentReport[];
}

function accepts(candidate: Candidate, report: AgentReport): boolean {
  if (candidate.isVar) return candidate.pattern?.test(report.keyValue) ?? false;
  return candidate.expected.value === report.keyValue;
}

/** Takes the first value matching the report out of the list, with the report added to it. */
function takeMatching(
  report: AgentReport,
  values: readonly Candidate[],
  growOnVariable: boolean,
): [Candidate[], Candidate | undefined] {
  const index = values.findIndex((v) => accepts(v, report));
  if (index < 0) return [[...values], undefined];
  const found = values[index] as Candidate;
  const grown: Candidate = {
    ...found,
    cardinality: found.cardinality + (growOnVariable && found.isVar ? 1 : 0),
    matching: [report, ...found.matching],
  };
  return [[...values.slice(0, index), ...values.slice(index + 1)], grown];
}

/**
 * Gives each report to a free value, else to an already paired one (a
 * variable then accepts one more report); a report no value accepts is
 * left out here, as Rudder leaves it.
 */
function pairReports(reports: readonly AgentReport[], values: readonly Candidate[]): Candidate[] {
  let free = [...values];
  let paired: Candidate[] = [];
  for (const report of reports) {
    const [rest, found] = takeMatching(report, free, false);
    free = rest;
    if (found) {
      paired = [found, ...paired];
      continue;
    }
    const [others, again] = takeMatching(report, paired, true);
    paired = again ? [again, ...others] : others;
  }
  return [...free, ...paired];
}

function missingMessage(noAnswer: ReportType, i: number): MessageStatus {
  if (noAnswer === "EnforceSuccess")
    return messageStatus(noAnswer, `[Success report not sent in change only #${i}]`);
  if (noAnswer === "AuditCompliant")
    return messageStatus(noAnswer, `[Compliant report not sent in change only #${i}]`);
  return messageStatus(noAnswer, `[Missing report #${i}]`);
}

/** The status of a value matched without a report id (Rudder's `buildNoReportIdComponentValueStatus`). */
function matchedValueStatus(
  candidate: Candidate,
  directiveGotReports: boolean,
  noAnswer: ReportType,
  mode: PolicyMode,
): ValueStatus {
  const count = candidate.matching.length;
  let messages: MessageStatus[];
  if (count === 0 && !directiveGotReports) messages = [messageStatus(noAnswer)];
  else if (count <= candidate.cardinality) {
    messages = candidate.matching.map((r) => toMessageStatus(r, mode));
    for (let i = count; i < candidate.cardinality; i++) messages.push(missingMessage(noAnswer, i));
  } else messages = candidate.matching.map((r) => messageStatus("Unexpected", r.message));
  const value = candidate.expected.value;
  return { value, expectedValue: value, reportId: "0", messages };
}

function candidates(values: readonly ExpectedValue[]): Candidate[] {
  const scored = values.map((expected) => {
    const isVar = isVariableValue(expected.value);
    const candidate: Candidate = {
      expected,
      cardinality: 1,
      isVar,
      matching: [],
      ...(isVar ? { pattern: valuePattern(expected.value) } : {}),
    };
    return { candidate, score: specificity(expected.value, isVar) };
  });
  return scored.sort((a, b) => b.score - a.score).map((s) => s.candidate);
}

/** Values with a report id: the reports with that id, whatever their component and value. */
function matchById(
  component: ValueExpected,
  ids: ReadonlyArray<Extract<ExpectedValue, { kind: "id" }>>,
  reports: readonly AgentReport[],
  noAnswer: ReportType,
  mode: PolicyMode,
): [ComponentStatus[], AgentReport[]] {
  let acc: ComponentStatus[] = [];
  let left = [...reports];
  for (const expected of ids) {
    const matched = left.filter((r) => r.reportId === expected.id);
    left = left.filter((r) => r.reportId !== expected.id);
    const found: ComponentStatus[] = [...groupBy(matched, (r) => r.component)].map(([name, rs]) => ({
      kind: "value",
      name,
      expectedName: component.name,
      values: [...groupBy(rs, (r) => r.keyValue)].map(([keyValue, same]) => ({
        value: keyValue,
        expectedValue: expected.value,
        reportId: expected.id,
        messages: same.map((r) => toMessageStatus(r, mode)),
      })),
    }));
    const missing: ComponentStatus[] =
      found.length > 0
        ? []
        : [
            {
              kind: "value",
              name: component.name,
              expectedName: component.name,
              values: [
                {
                  value: expected.value,
                  expectedValue: expected.value,
                  reportId: expected.id,
                  messages: [messageStatus(noAnswer, "Missing report")],
                },
              ],
            },
          ];
    acc = mergeComponents([...found, ...missing, ...acc]);
  }
  return [acc, left];
}

/**
 * The status of one expected component given all the reports of its
 * directive, `noAnswer` being what a value without report counts as.
 */
export function checkComponent(
  expected: ComponentExpected,
  reports: readonly AgentReport[],
  noAnswer: ReportType,
  mode: PolicyMode,
): ComponentStatus[] {
  if (expected.kind === "block") {
    const subs = expected.components.flatMap((c) => checkComponent(c, reports, noAnswer, mode));
    return [{ kind: "block", name: expected.name, logic: expected.logic, components: subs }];
  }
  const ids = expected.values.filter((v) => v.kind === "id");
  const plain = expected.values.filter((v) => v.kind === "match");
  const [matched, left] = matchById(expected, ids, reports, noAnswer, mode);
  const sorted = [...left].sort((a, b) => b.keyValue.length - a.keyValue.length);
  const mine = sorted.filter((r) => r.component === expected.name);
  const paired = pairReports(mine, candidates(plain));
  if (paired.length === 0) return matched;
  const statuses = paired.map((c) => matchedValueStatus(c, reports.length > 0, noAnswer, mode));
  const values = mergeValues(statuses);
  return [{ kind: "value", name: expected.name, expectedName: expected.name, values }, ...matched];
}
