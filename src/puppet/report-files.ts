/**
 * The files `puppet apply` leaves after a run, rendered from the applier's
 * report: `last_run_report.yaml` (the whole report, Psych's YAML of a
 * `Puppet::Transaction::Report`), the same report stored under
 * `$vardir/reports/<host>/`, `last_run_summary.yaml` (Puppet 7's summary)
 * and `state.yaml` (when each resource was last checked and synced). Keys,
 * nesting and order are Puppet 7.23's. As Puppet's, every report holds the
 * default schedules and filebucket Puppet adds to each catalog.
 */
import type { ReportEvent, ReportLog, ResourceStatus, RunReport } from "../catalog/report.js";
import { finalizeReport, labelize, reportTime } from "../catalog/report.js";
import {
  dumpYaml,
  RepeatedEntry,
  RepeatedStrings,
  rubyNumber,
  scalar,
  scalarEntry,
  writeMapping,
  writeSequence,
  type YamlOut,
  type YamlValue,
} from "./yaml.js";

/** The Puppet version whose report format tend writes. */
export const PUPPET_VERSION = "7.23.0";

const REPORT_TAG = "!ruby/object:Puppet::Transaction::Report";

/** The resources Puppet adds to every catalog: the default schedules and the filebucket. */
const IMPLICIT: readonly (readonly [string, string])[] = [
  ["Schedule", "puppet"],
  ["Schedule", "hourly"],
  ["Schedule", "daily"],
  ["Schedule", "weekly"],
  ["Schedule", "monthly"],
  ["Schedule", "never"],
  ["Filebucket", "puppet"],
];

function implicitStatus(type: string, title: string, time: string): ResourceStatus {
  return {
    title,
    file: null,
    line: null,
    resource: `${type}[${title}]`,
    resource_type: type,
    provider_used: null,
    containment_path: [`${type}[${title}]`],
    evaluation_time: 0,
    tags: [type.toLowerCase(), title],
    time,
    failed: false,
    failed_to_restart: false,
    changed: false,
    out_of_sync: false,
    skipped: false,
    change_count: 0,
    out_of_sync_count: 0,
    events: [],
    corrective_change: false,
    restarted: false,
  };
}

/** A report as Puppet's would be, and the statuses Puppet adds to the run's. */
export interface PuppetReport {
  /** The run's report with Puppet's metrics; its statuses are the run's own. */
  readonly report: RunReport;
  /** The implicit resources' statuses, after the run's (as Puppet evaluates them last). */
  readonly implicit: Readonly<Record<string, ResourceStatus>>;
}

/**
 * The report as Puppet's would be: the implicit resources added and the
 * metrics computed again with the run's times in Puppet's order. The
 * run's statuses are shared, not copied (tens of thousands of keys).
 */
export function puppetShapedReport(report: RunReport, times: Readonly<Record<string, number>>): PuppetReport {
  const statuses = report.resource_statuses;
  const implicit: Record<string, ResourceStatus> = {};
  const time = reportTime();
  if (report.transaction_completed) {
    for (const [type, title] of IMPLICIT) {
      const ref = `${type}[${title}]`;
      if (!Object.hasOwn(statuses, ref)) implicit[ref] = implicitStatus(type, title, time);
    }
  }
  const copy: RunReport = { ...report, logs: [...report.logs] };
  finalizeReport(copy, times, implicit);
  return { report: copy, implicit };
}

/** The `key: false` and `key: true` lines of a flag after `lead` (its indentation), made once. */
function flagLines(lead: string, key: string): readonly [string, string] {
  return [`${lead}${key}: false\n`, `${lead}${key}: true\n`];
}

const FAILED = flagLines("    ", "failed");
const FAILED_TO_RESTART = flagLines("    ", "failed_to_restart");
const CHANGED = flagLines("    ", "changed");
const OUT_OF_SYNC = flagLines("    ", "out_of_sync");
const SKIPPED = flagLines("    ", "skipped");
const CORRECTIVE = flagLines("    ", "corrective_change");
/** An event's first line, with the `- ` of its item. */
const AUDITED = flagLines("    - ", "audited");
const EVENT_CORRECTIVE = flagLines("      ", "corrective_change");

/** A count as Ruby writes it (rubyNumber), a non-negative integer without the call. */
function countText(value: number): string {
  return (value | 0) === value && 1 / value > 0 ? `${value}` : rubyNumber(value);
}

/**
 * The writers of the report's records, one per document: the lines of
 * keys whose values repeat from one record to the next are made once
 * (RepeatedEntry). A first run of a thousand files writes a thousand
 * logs, statuses and events, alike but for a few keys. Each record is
 * one string made with as few calls as the values allow (flags and counts
 * need none): the run's code is not optimised by then (bin/tend.js), and
 * each call costs as much as the text it makes.
 */
class RecordLines {
  readonly logLevel = new RepeatedEntry(2, "level", "- ");
  readonly logTags = new RepeatedStrings(2, "tags");
  readonly logTime = new RepeatedEntry(2, "time");
  readonly logFile = new RepeatedEntry(2, "file");
  readonly file = new RepeatedEntry(4, "file");
  readonly resourceType = new RepeatedEntry(4, "resource_type");
  readonly provider = new RepeatedEntry(4, "provider_used");
  readonly containment = new RepeatedStrings(4, "containment_path");
  readonly tags = new RepeatedStrings(4, "tags");
  readonly time = new RepeatedEntry(4, "time");
  readonly property = new RepeatedEntry(6, "property");
  readonly previous = new RepeatedEntry(6, "previous_value");
  readonly desired = new RepeatedEntry(6, "desired_value");
  readonly historical = new RepeatedEntry(6, "historical_value");
  readonly name = new RepeatedEntry(6, "name");
  readonly status = new RepeatedEntry(6, "status");
  readonly eventTime = new RepeatedEntry(6, "time");
  readonly redacted = new RepeatedEntry(6, "redacted");

  /** A log as an item of the report's `logs` (what writeSequence makes of the log's mapping). */
  log(log: ReportLog): string {
    return (
      this.logLevel.line(log.level) +
      scalarEntry(2, "message", log.message, "  ") +
      scalarEntry(2, "source", log.source, "  ") +
      this.logTags.entry(log.tags) +
      this.logTime.line(log.time) +
      this.logFile.line(log.file) +
      (log.line === null ? "  line:\n" : `  line: ${countText(log.line)}\n`)
    );
  }

  /** A status under `resource_statuses` (what writeMapping makes of `{ [ref]: status }` at indent 2). */
  writeStatus(ref: string, status: ResourceStatus, out: YamlOut): void {
    let text =
      `  ${scalar(ref, 2, 2)}:\n` +
      scalarEntry(4, "title", status.title, "    ") +
      this.file.line(status.file) +
      (status.line === null ? "    line:\n" : `    line: ${countText(status.line)}\n`) +
      scalarEntry(4, "resource", status.resource, "    ") +
      this.resourceType.line(status.resource_type) +
      this.provider.line(status.provider_used) +
      this.containment.entry(status.containment_path) +
      (status.evaluation_time === null
        ? "    evaluation_time:\n"
        : `    evaluation_time: ${rubyNumber(status.evaluation_time)}\n`) +
      this.tags.entry(status.tags) +
      this.time.line(status.time) +
      FAILED[status.failed ? 1 : 0] +
      FAILED_TO_RESTART[status.failed_to_restart ? 1 : 0] +
      CHANGED[status.changed ? 1 : 0] +
      OUT_OF_SYNC[status.out_of_sync ? 1 : 0] +
      SKIPPED[status.skipped ? 1 : 0] +
      `    change_count: ${countText(status.change_count)}\n` +
      `    out_of_sync_count: ${countText(status.out_of_sync_count)}\n`;
    const events = status.events;
    if (events.length === 0) text += "    events: []\n";
    else {
      text += "    events:\n";
      for (let i = 0; i < events.length; i++) {
        const event = events[i] as ReportEvent;
        const lines = this.event(event);
        if (lines === undefined) {
          out(text);
          text = "";
          writeSequence([eventYaml(event)], 4, out);
        } else text += lines;
      }
    }
    out(text + CORRECTIVE[status.corrective_change ? 1 : 0]);
  }

  /**
   * An event as an item of its status's `events` (what writeSequence makes
   * of eventYaml's mapping at indent 4), made line by line when its values
   * are scalars, as nearly all are: a first run has an event per resource.
   * Undefined when a value is a collection.
   */
  private event(e: ReportEvent): string | undefined {
    const previous = e.previous_value;
    const desired = e.desired_value;
    const historical = e.historical_value;
    if (
      (typeof previous === "object" && previous !== null) ||
      (typeof desired === "object" && desired !== null) ||
      (typeof historical === "object" && historical !== null)
    )
      return undefined;
    return (
      AUDITED[e.audited ? 1 : 0] +
      this.property.line(e.property) +
      this.previous.line(previous) +
      this.desired.line(desired) +
      this.historical.line(historical) +
      scalarEntry(6, "message", e.message, "      ") +
      this.name.line(e.name) +
      this.status.line(e.status) +
      this.eventTime.line(e.time) +
      this.redacted.line(e.redacted) +
      EVENT_CORRECTIVE[e.corrective_change ? 1 : 0]
    );
  }
}

function eventYaml(e: ReportEvent): YamlValue {
  return {
    audited: e.audited,
    property: e.property,
    previous_value: e.previous_value,
    desired_value: e.desired_value,
    historical_value: e.historical_value,
    message: e.message,
    name: e.name,
    status: e.status,
    time: e.time,
    redacted: e.redacted,
    corrective_change: e.corrective_change,
  };
}

function metricYaml(name: string, values: Readonly<Record<string, number>>): YamlValue {
  return { name, label: labelize(name), values: Object.entries(values).map(([k, v]) => [k, labelize(k), v]) };
}

/** A configuration version as Puppet writes it: a number when it is one. */
function versionValue(version: string): YamlValue {
  return /^\d+$/.test(version) ? Number(version) : version;
}

/** `last_run_report.yaml`: the report in Puppet 7's YAML. */
export function renderReportYaml(
  report: RunReport,
  implicit: Readonly<Record<string, ResourceStatus>> = {},
): string {
  const parts: string[] = [];
  writeReportYaml(report, (text) => parts.push(text), implicit);
  return parts.join("");
}

/**
 * The report in Puppet 7's YAML, written to `out` a piece at a time: a
 * report of many resources is never held whole as text, nor as a second
 * tree of values.
 */
export function writeReportYaml(
  report: RunReport,
  out: YamlOut,
  /** Statuses written after the report's own (puppetShapedReport's implicit ones). */
  implicit: Readonly<Record<string, ResourceStatus>> = {},
): void {
  out(`--- ${REPORT_TAG}\n`);
  writeMapping(
    {
      host: report.host,
      time: report.time,
      configuration_version: versionValue(report.configuration_version),
      transaction_uuid: report.transaction_uuid,
      report_format: report.report_format,
      puppet_version: PUPPET_VERSION,
      status: report.status,
      transaction_completed: report.transaction_completed,
      noop: report.noop,
      noop_pending: report.noop_pending,
      environment: report.environment,
    },
    0,
    out,
  );
  const lines = new RecordLines();
  if (report.logs.length === 0) out("logs: []\n");
  else {
    out("logs:\n");
    // Index loops over the records: a for-of makes an iterator and a result per step in code not optimised yet.
    const logs = report.logs;
    for (let i = 0; i < logs.length; i++) out(lines.log(logs[i] as ReportLog));
  }
  writeMapping(
    {
      metrics: {
        resources: metricYaml("resources", report.metrics.resources),
        time: metricYaml("time", report.metrics.time),
        changes: metricYaml("changes", report.metrics.changes),
        events: metricYaml("events", report.metrics.events),
      },
    },
    0,
    out,
  );
  const statuses = report.resource_statuses;
  const refs = Object.keys(statuses);
  const more = Object.keys(implicit);
  if (refs.length === 0 && more.length === 0) out("resource_statuses: {}\n");
  else {
    out("resource_statuses:\n");
    for (let i = 0; i < refs.length; i++) {
      const ref = refs[i] as string;
      lines.writeStatus(ref, statuses[ref] as ResourceStatus, out);
    }
    for (let i = 0; i < more.length; i++) {
      const ref = more[i] as string;
      lines.writeStatus(ref, implicit[ref] as ResourceStatus, out);
    }
  }
  writeMapping(
    {
      corrective_change: report.corrective_change,
      catalog_uuid: report.catalog_uuid,
      cached_catalog_status: "not_used",
    },
    0,
    out,
  );
}

/** A metric's values sorted by label, as Puppet's summary lists them, total included. */
function sortedByLabel(values: Readonly<Record<string, number>>, withTotal: boolean): Record<string, number> {
  const all: Record<string, number> = { ...values };
  if (withTotal && !Object.hasOwn(all, "total")) all.total = 0;
  const keys = Object.keys(all).sort((a, b) =>
    labelize(a) < labelize(b) ? -1 : labelize(a) > labelize(b) ? 1 : 0,
  );
  return Object.fromEntries(keys.map((k) => [k, all[k] as number]));
}

/** `last_run_summary.yaml`: Puppet 7's summary of the run. */
export function renderSummaryYaml(report: RunReport, now: Date): string {
  const doc: Record<string, YamlValue> = {
    version: { config: versionValue(report.configuration_version), puppet: PUPPET_VERSION },
    application: {
      run_mode: "user",
      initial_environment: report.environment,
      converged_environment: report.environment,
    },
    resources: sortedByLabel(report.metrics.resources, true),
    time: { ...sortedByLabel(report.metrics.time, false), last_run: Math.floor(now.getTime() / 1000) },
    changes: sortedByLabel(report.metrics.changes, true),
    events: sortedByLabel(report.metrics.events, true),
  };
  return dumpYaml(doc);
}

/** A time as Ruby's YAML writes a Time: `2026-11-27 00:40:16.733011005 +00:00`. */
function stateTime(time: string): string {
  return `${time.slice(0, 10)} ${time.slice(11, 29)} ${time.slice(29)}`;
}

/** `state.yaml`: each resource's last check, and last sync when it changed. */
export function renderStateYaml(
  report: RunReport,
  implicit: Readonly<Record<string, ResourceStatus>> = {},
): string {
  const parts: string[] = [];
  writeStateYaml(report, (text) => parts.push(text), implicit);
  return parts.join("");
}

/** `state.yaml`, written to `out` a piece at a time; `implicit` statuses after the report's. */
export function writeStateYaml(
  report: RunReport,
  out: YamlOut,
  implicit: Readonly<Record<string, ResourceStatus>> = {},
): void {
  out("---\n");
  // Statuses share their times (stamped to the millisecond): the lines of the last one are kept.
  let lastTime: string | undefined;
  let checked = "";
  let synced = "";
  for (const statuses of [report.resource_statuses, implicit]) {
    const refs = Object.keys(statuses);
    for (let i = 0; i < refs.length; i++) {
      const ref = refs[i] as string;
      const status = statuses[ref] as ResourceStatus;
      if (status.skipped) continue;
      if (status.time !== lastTime) {
        lastTime = status.time;
        const time = stateTime(status.time);
        checked = `:\n  :checked: ${time}\n`;
        synced = `${checked}  :synced: ${time}\n`;
      }
      out(scalar(ref, 0, 0) + (status.changed ? synced : checked));
    }
  }
}
