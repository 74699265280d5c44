/**
 * The run's log: every message the applier and the types write, with
 * Puppet's source (`/Stage[main]/Main/File[/x]/ensure`, `Puppet`), tags
 * and place, kept in the report from the threshold up and handed to the
 * caller as it happens (the CLI prints it live).
 */
import { Logger, type LogLevel } from "../system/logger.js";
import type { CatalogResource } from "./model.js";
import { type ReportLog, type ReportLogLevel, reportTime } from "./report.js";

const RANK: Readonly<Record<ReportLogLevel, number>> = {
  emerg: 0,
  alert: 1,
  crit: 2,
  err: 3,
  warning: 4,
  notice: 5,
  info: 6,
  debug: 7,
};

/** The report's level for each of the logger's. */
export const REPORT_LEVEL_OF: Readonly<Record<LogLevel, ReportLogLevel>> = {
  critical: "crit",
  error: "err",
  warning: "warning",
  notice: "notice",
  info: "info",
  verbose: "info",
  debug: "debug",
};

export class RunLog {
  private readonly threshold: number;

  constructor(
    private readonly logs: ReportLog[],
    level: ReportLogLevel,
    private readonly onLog: ((log: ReportLog) => void) | undefined,
  ) {
    this.threshold = RANK[level];
  }

  wouldLog(level: ReportLogLevel): boolean {
    return RANK[level] <= this.threshold;
  }

  /** A message of the run itself (source `Puppet`). */
  run(level: ReportLogLevel, message: string): void {
    this.write(level, message, "Puppet", undefined);
  }

  /** A message about a resource (or a property of it, when `source` is the property's path). */
  resource(
    level: ReportLogLevel,
    message: string,
    source: string,
    resource: CatalogResource | undefined,
  ): void {
    this.write(level, message, source, resource);
  }

  /** A Logger (the shared contract) whose messages are tied to `source`. */
  loggerFor(source: string, resource: CatalogResource | undefined): Logger {
    return new Logger(
      (record) => this.write(REPORT_LEVEL_OF[record.level], record.message, source, resource),
      "debug",
    );
  }

  private write(
    level: ReportLogLevel,
    message: string,
    source: string,
    resource: CatalogResource | undefined,
  ): void {
    if (!this.wouldLog(level)) return;
    const log: ReportLog = {
      level,
      message,
      source,
      tags: resource ? tagsWith(level, resource.tags) : [level],
      time: reportTime(),
      file: resource?.file ?? null,
      line: resource?.line ?? null,
    };
    this.logs.push(log);
    this.onLog?.(log);
  }
}

/**
 * `[level, ...tags]` made by concat: the spread runs the array iterator,
 * an object per item in code not optimised yet, at every log.
 */
function tagsWith(level: ReportLogLevel, tags: readonly string[]): string[] {
  return [level as string].concat(tags);
}
