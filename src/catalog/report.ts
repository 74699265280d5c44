/**
 * The run report as data, shaped field for field like Puppet 7's report
 * (report format 12: transaction/report.rb, resource/status.rb,
 * transaction/event.rb, util/log.rb), so a front end renders Puppet's
 * `last_run_report.yaml` and `last_run_summary.yaml` from it without
 * computing anything, and tend's `--json` report is this object. Field
 * names are Puppet's own (snake_case) for that reason.
 */
import type { ParamValue } from "./model.js";

/** Puppet's log levels, as they appear in reports. */
export type ReportLogLevel = "debug" | "info" | "notice" | "warning" | "err" | "alert" | "emerg" | "crit";

export interface ReportLog {
  readonly level: ReportLogLevel;
  readonly message: string;
  /** `/Stage[main]/Main/File[/x]/ensure`, `/Stage[main]/Main/Exec[y]`, `Class[C]` (an anchor), or `Puppet`. */
  readonly source: string;
  readonly tags: readonly string[];
  readonly time: string;
  readonly file: string | null;
  readonly line: number | null;
}

export interface ReportEvent {
  readonly audited: boolean;
  readonly property: string | null;
  readonly previous_value: ParamValue;
  readonly desired_value: ParamValue;
  readonly historical_value: ParamValue;
  readonly message: string;
  readonly name: string | null;
  readonly status: "success" | "failure" | "noop" | "audit";
  readonly time: string;
  readonly redacted: boolean | null;
  readonly corrective_change: boolean;
}

export interface ResourceStatus {
  readonly title: string;
  readonly file: string | null;
  readonly line: number | null;
  /** `File[/x]` */
  readonly resource: string;
  /** `File`, `Exec`, `File_line` (Ruby's capitalize of the type's name). */
  readonly resource_type: string;
  provider_used: string | null;
  /** `["Stage[main]", "Main", "File[/x]"]` */
  readonly containment_path: readonly string[];
  /** Seconds; null for a resource that was skipped. */
  evaluation_time: number | null;
  readonly tags: readonly string[];
  time: string;
  failed: boolean;
  failed_to_restart: boolean;
  changed: boolean;
  out_of_sync: boolean;
  skipped: boolean;
  change_count: number;
  out_of_sync_count: number;
  readonly events: ReportEvent[];
  corrective_change: boolean;
  /** Not in Puppet's report: whether the resource's refresh ran (Puppet's `restarted` state). */
  restarted: boolean;
  /** Not in Puppet's report: why a hook skipped it (a recipe guard). */
  skip_reason?: string;
}

/** Metric name → value, in Puppet's order. */
export type MetricValues = Record<string, number>;

export interface ReportMetrics {
  readonly resources: MetricValues;
  readonly time: MetricValues;
  readonly changes: MetricValues;
  readonly events: MetricValues;
}

/** Why a run stopped before applying anything (tend's own; Puppet only logs it). */
export interface RunFailure {
  readonly code: "cycle" | "unknown-type" | "invalid-resource";
  readonly message: string;
}

export interface RunReport {
  host: string;
  time: string;
  configuration_version: string;
  transaction_uuid: string;
  report_format: 12;
  status: "changed" | "unchanged" | "failed";
  transaction_completed: boolean;
  noop: boolean;
  noop_pending: boolean;
  environment: string;
  corrective_change: boolean;
  catalog_uuid: string | null;
  code_id: string | null;
  readonly logs: ReportLog[];
  metrics: ReportMetrics;
  /** Keyed by `Type[title]`, in the order resources were evaluated. */
  readonly resource_statuses: Record<string, ResourceStatus>;
  /** Set when the run stopped before applying anything. */
  failure?: RunFailure;
}

/** Puppet's time format: ISO 8601 with nine fractional digits and a numeric zone (UTC here). */
export function reportTime(date?: Date): string {
  const ms = date ? date.getTime() : Date.now();
  // Thousands of statuses and events are stamped within the same millisecond.
  if (ms !== lastStamp.ms) lastStamp = { ms, text: `${new Date(ms).toISOString().slice(0, 23)}000000+00:00` };
  return lastStamp.text;
}

let lastStamp = { ms: Number.NaN, text: "" };

/** Puppet's labels for metric names: `failed_to_restart` → `Failed to restart`. */
export function labelize(name: string): string {
  const spaced = name.replaceAll("_", " ");
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

const STATES = [
  "skipped",
  "failed",
  "failed_to_restart",
  "restarted",
  "changed",
  "out_of_sync",
  "scheduled",
  "corrective_change",
] as const;

/** Adds an event to a status, updating its counters as Puppet's Status#add_event does. */
export function addEvent(status: ResourceStatus, event: ReportEvent): void {
  status.events.push(event);
  if (event.status === "failure") status.failed = true;
  else if (event.status === "success") {
    status.change_count++;
    status.changed = true;
  }
  if (event.status !== "audit") {
    status.out_of_sync_count++;
    status.out_of_sync = true;
  }
  if (event.corrective_change) status.corrective_change = true;
}

/**
 * Computes metrics, overall status and noop_pending, as Puppet's
 * finalize_report does. `times` are the run's own timings in seconds
 * (`transaction_evaluation`, `total`...), added after the per-type ones.
 */
export function finalizeReport(
  report: RunReport,
  times: Readonly<Record<string, number>>,
  /** Statuses counted after the report's own (a front end's implicit resources). */
  extra?: Readonly<Record<string, ResourceStatus>>,
): void {
  // One pass over the statuses: a report may hold tens of thousands.
  const resources: MetricValues = { total: 0 };
  for (const state of STATES) resources[state] = 0;
  const time: MetricValues = {};
  const events: MetricValues = { total: 0, failure: 0, success: 0 };
  let changes = 0;
  let total = 0;
  let skipped = 0;
  let failed = 0;
  let failedToRestart = 0;
  let restarted = 0;
  let changed = 0;
  let outOfSync = 0;
  let corrective = 0;
  let noopPending = false;
  const all = [report.resource_statuses, ...(extra ? [extra] : [])];
  for (const statuses of all)
    for (const ref in statuses) {
      if (!Object.hasOwn(statuses, ref)) continue;
      const status = statuses[ref] as ResourceStatus;
      total++;
      if (status.skipped) skipped++;
      if (status.failed) failed++;
      if (status.failed_to_restart) failedToRestart++;
      if (status.restarted) restarted++;
      if (status.changed) changed++;
      if (status.out_of_sync) outOfSync++;
      if (status.corrective_change) corrective++;
      if (status.evaluation_time !== null) {
        const type = lowerType(status.resource_type);
        time[type] = (time[type] ?? 0) + status.evaluation_time;
      }
      changes += status.change_count;
      const statusEvents = status.events;
      // An index loop: a for-of makes an iterator and a result per step in code not optimised yet.
      for (let i = 0; i < statusEvents.length; i++) {
        const event = statusEvents[i] as ReportEvent;
        events.total = (events.total ?? 0) + 1;
        events[event.status] = (events[event.status] ?? 0) + 1;
        if (event.status === "noop") noopPending = true;
      }
    }
  resources.total = total;
  resources.skipped = skipped;
  resources.failed = failed;
  resources.failed_to_restart = failedToRestart;
  resources.restarted = restarted;
  resources.changed = changed;
  resources.out_of_sync = outOfSync;
  resources.corrective_change = corrective;
  report.corrective_change = corrective > 0;
  Object.assign(time, times);
  report.metrics = { resources, time, changes: { total: changes }, events };
  const anyFailed = failed > 0 || failedToRestart > 0;
  report.status =
    !report.transaction_completed || anyFailed ? "failed" : changes > 0 ? "changed" : "unchanged";
  report.noop_pending = noopPending;
}

/** `File` → `file`, remembered: a report names few types, each many times. */
const lowered = new Map<string, string>();

function lowerType(type: string): string {
  let lower = lowered.get(type);
  if (lower === undefined) {
    lower = type.toLowerCase();
    lowered.set(type, lower);
  }
  return lower;
}

/** `puppet apply --detailed-exitcodes`: 2 when something changed, 4 on failures, 6 for both. */
export function detailedExitCode(report: RunReport): number {
  if (report.failure) return 1;
  let code = 0;
  if ((report.metrics.changes.total ?? 0) > 0) code |= 2;
  if ((report.metrics.resources.failed ?? 0) > 0 || (report.metrics.resources.failed_to_restart ?? 0) > 0)
    code |= 4;
  return code;
}

/** A log line as `puppet apply` prints it: `Notice: /Stage[main]/Main/File[/x]/ensure: created`. */
export function formatReportLog(log: ReportLog): string {
  const level = LEVEL_LABEL[log.level];
  return log.source === "Puppet" ? `${level}: ${log.message}` : `${level}: ${log.source}: ${log.message}`;
}

const LEVEL_LABEL: Readonly<Record<ReportLogLevel, string>> = {
  debug: "Debug",
  info: "Info",
  notice: "Notice",
  warning: "Warning",
  err: "Error",
  alert: "Alert",
  emerg: "Emergency",
  crit: "Critical",
};
