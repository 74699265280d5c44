/**
 * One report an agent sent, as compliance reads it (rudder-core `Reports`):
 * who sent it for which rule, directive and component, with what event.
 */
import type { PolicyMode, ReportType } from "./report-type.js";
import { resultTypeOf } from "./report-type.js";
import { type MessageStatus, messageStatus } from "./status.js";

export interface AgentReport {
  /** The technique (or "Common" for control lines). */
  readonly technique: string;
  /** `result_success`, `audit_noncompliant`, `log_info`, `control`... */
  readonly eventType: string;
  readonly ruleId: string;
  readonly directiveId: string;
  /** The method call's report id; "0" when the line had none. */
  readonly reportId: string;
  readonly component: string;
  /** The component's key value; "None" when the line had none. */
  readonly keyValue: string;
  /** The run's start time as the line gives it (`2026-11-26 15:58:24+00:00`). */
  readonly runTime: string;
  readonly nodeId: string;
  readonly message: string;
  /** The line's own time stamp, when the output has them (Rudder's run logs). */
  readonly executionTime?: string;
}

/** The status a result report gives in a directive of `mode` (unknown events are unexpected). */
export function reportType(report: AgentReport, _mode: PolicyMode): ReportType {
  return resultTypeOf(report.eventType) ?? "Unexpected";
}

/** The report as a message of a compared value. */
export function toMessageStatus(report: AgentReport, mode: PolicyMode): MessageStatus {
  return messageStatus(reportType(report, mode), report.message);
}
