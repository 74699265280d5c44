/**
 * The kinds of status a compared report can have, as Rudder names them
 * (rudder-core `ReportType`), with the order that says which is worse.
 */

/** A status of a component value once reports are compared with what was expected. */
export type ReportType =
  | "EnforceNotApplicable"
  | "AuditNotApplicable"
  | "AuditCompliant"
  | "EnforceSuccess"
  | "Pending"
  | "Disabled"
  | "NoAnswer"
  | "Missing"
  | "EnforceRepaired"
  | "AuditNonCompliant"
  | "AuditError"
  | "EnforceError"
  | "Unexpected"
  | "BadPolicyMode";

/** Every report type, the least bad first: its index is Rudder's "level". */
export const REPORT_TYPES: readonly ReportType[] = [
  "EnforceNotApplicable",
  "AuditNotApplicable",
  "AuditCompliant",
  "EnforceSuccess",
  "Pending",
  "Disabled",
  "NoAnswer",
  "Missing",
  "EnforceRepaired",
  "AuditNonCompliant",
  "AuditError",
  "EnforceError",
  "Unexpected",
  "BadPolicyMode",
];

const LEVEL = new Map(REPORT_TYPES.map((type, index) => [type, index]));

/** How bad a report type is: a bigger number is worse. */
export function levelOf(type: ReportType): number {
  return LEVEL.get(type) ?? 0;
}

/** The worst of some report types; no type at all is `NoAnswer`, as in Rudder. */
export function worstType(types: Iterable<ReportType>): ReportType {
  let worst: ReportType | undefined;
  for (const type of types) if (worst === undefined || levelOf(type) > levelOf(worst)) worst = type;
  return worst ?? "NoAnswer";
}

/** A directive's policy mode once resolved. */
export type PolicyMode = "enforce" | "audit";

/** How a node sends reports: every component, only changes, or none. */
export type ComplianceMode = "full-compliance" | "changes-only" | "reports-disabled";

/** The event types of result reports (the others are logs and control). */
const RESULT_TYPES: Readonly<Record<string, ReportType>> = {
  result_success: "EnforceSuccess",
  result_repaired: "EnforceRepaired",
  result_error: "EnforceError",
  result_na: "EnforceNotApplicable",
  audit_compliant: "AuditCompliant",
  audit_noncompliant: "AuditNonCompliant",
  audit_error: "AuditError",
  audit_na: "AuditNotApplicable",
};

/** The report type of an event type (`result_success`...), undefined for logs and control. */
export function resultTypeOf(eventType: string): ReportType | undefined {
  return Object.hasOwn(RESULT_TYPES, eventType) ? RESULT_TYPES[eventType] : undefined;
}

/** Whether an event type is one of the result or audit kinds compliance is made of. */
export function isResultEvent(eventType: string): boolean {
  return resultTypeOf(eventType) !== undefined;
}

/**
 * The report type a missing report counts as: `Missing` in full compliance,
 * a success (or compliant in audit) when only changes are sent, `Disabled`
 * without reports (ExecutionBatch `missingReportType`).
 */
export function missingReportType(mode: ComplianceMode, policyMode: PolicyMode): ReportType {
  if (mode === "full-compliance") return "Missing";
  if (mode === "reports-disabled") return "Disabled";
  return policyMode === "enforce" ? "EnforceSuccess" : "AuditCompliant";
}
