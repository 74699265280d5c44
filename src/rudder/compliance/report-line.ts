/**
 * Reads an agent run's output for Rudder reports: the lines
 * `R: @@technique@@event@@rule@@directive@@reportId@@component@@key@@time##node@#message`
 * that ncf's `_rudder_common_report` prints through cf-agent or tend's agent,
 * with an optional RFC 3339 time stamp in front (as Rudder's run logs have),
 * messages and keys that go on over several lines, and the run's start and
 * end control lines that carry the configuration id. Every other line is
 * noise and skipped; a line that starts like a report but does not parse
 * is kept, with a diagnostic, never thrown.
 */
import type { AgentReport } from "./result-report.js";

/** A line that looked like a report but was not one. */
export interface MalformedReport {
  /** 1-based line where it starts. */
  readonly line: number;
  readonly text: string;
  readonly problem: string;
}

export type RunDiagnosticCode =
  | "malformed-report"
  | "no-start"
  | "no-end"
  | "several-starts"
  | "config-id-mismatch"
  | "several-nodes";

export interface RunDiagnostic {
  readonly line?: number;
  readonly code: RunDiagnosticCode;
  readonly message: string;
}

/** What one run's output holds. */
export interface ParsedRun {
  /** Every report, control and log ones included, in order. */
  readonly reports: readonly AgentReport[];
  /** The line of each report, same order. */
  readonly lines: readonly number[];
  readonly malformed: readonly MalformedReport[];
  /** The start control report, if the run printed one. */
  readonly start?: AgentReport;
  readonly end?: AgentReport;
  /** The configuration id the start (else end) line gives. */
  readonly configId?: string;
  readonly nodeId?: string;
  /** The run's start time as the reports give it, ms since the epoch. */
  readonly runTime?: number;
  readonly diagnostics: readonly RunDiagnostic[];
}

const TIMESTAMP = /^\d{4}-\d\d-\d\dT[0-9:_.]+(?:Z|[+-]\d\d[:_]?\d\d) /;
const REPORT_START = "R: @@";

/** Agent log line openings and the event type Rudder's relay gives them. */
const LOG_LEVELS: ReadonlyArray<readonly [string, string]> = [
  ["rudder CRITICAL", "log_warn"],
  ["rudder    error", "log_warn"],
  ["rudder  warning", "log_warn"],
  ["rudder   notice", "log_info"],
  ["rudder     info", "log_info"],
  ["CRITICAL", "log_warn"],
  ["   error", "log_warn"],
  [" warning", "log_warn"],
  ["  notice", "log_info"],
  ["    info", "log_info"],
  [" verbose", "log_debug"],
  ["   debug", "log_debug"],
  ["R: [FATAL]", "log_warn"],
  ["R: [ERROR]", "log_warn"],
  ["R: [INFO]", "log_info"],
  ["R: [DEBUG]", "log_debug"],
  ["R: WARNING", "log_warn"],
  ["R: DEBUG", "log_warn"],
];

/** The log event type a line opens with, and the rest of the line, if it is a log line. */
function logLine(line: string): [string, string] | undefined {
  let found = LOG_LEVELS.find(([open]) => line.startsWith(open));
  if (!found && line.startsWith("R:") && !line.startsWith(REPORT_START)) found = ["R:", "log_info"];
  if (!found) return undefined;
  return [found[1], line.slice(found[0].length).replace(/^:?/, "").replace(/^ +/, "")];
}

/** The line split into its time stamp (if any) and the rest. */
function splitTimestamp(line: string): [string | undefined, string] {
  const m = TIMESTAMP.exec(line);
  return m ? [m[0].slice(0, -1), line.slice(m[0].length)] : [undefined, line];
}

/** The run time of a report line (`2026-11-26 15:58:24+00:00`), ms, or NaN. */
export function parseRunTime(text: string): number {
  const m = /^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(?:\.\d+)?([+-]\d\d):?(\d\d)$/.exec(text.trim());
  if (!m) return Number.NaN;
  return Date.parse(`${m[1]}T${m[2]}${m[3]}:${m[4]}`);
}

interface Entry {
  readonly kind: "report" | "log";
  readonly line: number;
  readonly stamp?: string;
  /** For logs, the event type. */
  readonly eventType?: string;
  readonly text: string;
}

/**
 * Report entries with their continuation lines joined, and, as Rudder's
 * relay reads time-stamped run logs, the time-stamped log lines before a
 * report (given to that report as `log_*` reports).
 */
function entries(output: string): Entry[] {
  const lines = output.split(/\r\n|\r|\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  const out: Entry[] = [];
  let current: { base: Omit<Entry, "text">; parts: string[] } | undefined;
  const flush = (): void => {
    if (current) out.push({ ...current.base, text: current.parts.join("\n") });
    current = undefined;
  };
  lines.forEach((raw, index) => {
    const [stamp, line] = splitTimestamp(raw);
    const at = { line: index + 1, ...(stamp !== undefined ? { stamp } : {}) };
    if (line.startsWith(REPORT_START)) {
      flush();
      current = { base: { kind: "report", ...at }, parts: [line.slice(REPORT_START.length)] };
      return;
    }
    const log = logLine(line);
    if (log) {
      flush();
      if (stamp !== undefined) current = { base: { kind: "log", ...at, eventType: log[0] }, parts: [log[1]] };
      return;
    }
    current?.parts.push(line);
  });
  flush();
  return out;
}

/** Splits the report text (after `R: @@`) into its fields, or says what is wrong. */
function splitReport(body: string): AgentReport | string {
  const fields: string[] = [];
  let rest = body;
  for (let i = 0; i < 7; i++) {
    const at = rest.indexOf("@@");
    if (at < 0) return `expected 8 fields separated by '@@', found ${fields.length + 1}`;
    const field = rest.slice(0, at);
    if (i < 5 && field.includes("\n")) return `field ${i + 1} goes on over a line break`;
    fields.push(field);
    rest = rest.slice(at + 2);
  }
  const hashes = rest.indexOf("##");
  if (hashes < 0) return "expected '##' between the run time and the node id";
  const runTime = rest.slice(0, hashes);
  const afterTime = rest.slice(hashes + 2);
  const marker = afterTime.indexOf("@#");
  if (marker < 0) return "expected '@#' between the node id and the message";
  const [technique, eventType, ruleId, directiveId, reportId, component, keyValue] = fields as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  return {
    technique,
    eventType,
    ruleId,
    directiveId,
    reportId: reportId === "" ? "0" : reportId,
    component,
    keyValue: keyValue === "" ? "None" : keyValue,
    runTime,
    nodeId: afterTime.slice(0, marker),
    message: afterTime.slice(marker + 2),
  };
}

function runChecks(
  reports: readonly AgentReport[],
  lines: readonly number[],
): { start?: AgentReport; end?: AgentReport; diagnostics: RunDiagnostic[] } {
  const diagnostics: RunDiagnostic[] = [];
  const controls = reports
    .map((r, i) => ({ r, line: lines[i] as number }))
    .filter(({ r }) => r.eventType === "control");
  const starts = controls.filter(({ r }) => r.component === "start");
  const ends = controls.filter(({ r }) => r.component === "end");
  if (starts.length === 0)
    diagnostics.push({
      code: "no-start",
      message: "the run has no start control report: it is not a complete run",
    });
  if (starts.length > 1)
    diagnostics.push({
      line: starts[1]?.line,
      code: "several-starts",
      message: "the output holds more than one run start; the first is used",
    });
  if (ends.length === 0)
    diagnostics.push({
      code: "no-end",
      message: "the run has no end control report: the agent may have stopped before its end",
    });
  const start = starts[0]?.r;
  const end = ends[0]?.r;
  if (start && end && start.keyValue !== end.keyValue)
    diagnostics.push({
      line: ends[0]?.line,
      code: "config-id-mismatch",
      message: `the run ends with config id '${end.keyValue}' but started with '${start.keyValue}'`,
    });
  const nodes = new Set(reports.map((r) => r.nodeId));
  if (nodes.size > 1)
    diagnostics.push({
      code: "several-nodes",
      message: `reports come from several nodes: ${[...nodes].join(", ")}`,
    });
  return { ...(start ? { start } : {}), ...(end ? { end } : {}), diagnostics };
}

function stampOf(entry: Entry): { executionTime?: string } {
  return entry.stamp !== undefined ? { executionTime: entry.stamp } : {};
}

/** Reads the reports of one run's output; never throws. */
export function parseRunOutput(output: string): ParsedRun {
  const reports: AgentReport[] = [];
  const lines: number[] = [];
  const malformed: MalformedReport[] = [];
  const diagnostics: RunDiagnostic[] = [];
  let logs: Entry[] = [];
  for (const entry of entries(output)) {
    if (entry.kind === "log") {
      logs.push(entry);
      continue;
    }
    const parsed = splitReport(entry.text);
    if (typeof parsed === "string") {
      malformed.push({ line: entry.line, text: `${REPORT_START}${entry.text}`, problem: parsed });
      diagnostics.push({
        line: entry.line,
        code: "malformed-report",
        message: `not a Rudder report: ${parsed}`,
      });
      continue;
    }
    for (const log of logs) {
      reports.push({ ...parsed, eventType: log.eventType ?? "log_info", message: log.text, ...stampOf(log) });
      lines.push(log.line);
    }
    logs = [];
    reports.push({ ...parsed, ...stampOf(entry) });
    lines.push(entry.line);
  }
  const checks = runChecks(reports, lines);
  const first = checks.start ?? checks.end;
  const configId = first?.keyValue;
  const nodeId = first?.nodeId ?? reports[0]?.nodeId;
  const timeText = first?.runTime ?? reports[0]?.runTime;
  const runTime = timeText === undefined ? Number.NaN : parseRunTime(timeText);
  return {
    reports,
    lines,
    malformed,
    ...(checks.start ? { start: checks.start } : {}),
    ...(checks.end ? { end: checks.end } : {}),
    ...(configId !== undefined ? { configId } : {}),
    ...(nodeId !== undefined ? { nodeId } : {}),
    ...(Number.isNaN(runTime) ? {} : { runTime }),
    diagnostics: [...diagnostics, ...checks.diagnostics],
  };
}
