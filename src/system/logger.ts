/**
 * The agent's log: levels as cf-agent has them, and a sink the caller
 * injects. The library never prints; the CLI's sink renders lines the way
 * cf-agent does (`   error: message`).
 */

export type LogLevel = "critical" | "error" | "warning" | "notice" | "info" | "verbose" | "debug";

const RANK: Readonly<Record<LogLevel, number>> = {
  // Always shown at the lowest threshold, as cf-agent's CRITICAL lines are.
  critical: 0,
  error: 0,
  warning: 1,
  notice: 2,
  info: 3,
  verbose: 4,
  debug: 5,
};

export interface LogRecord {
  readonly level: LogLevel;
  readonly message: string;
}

export type LogSink = (record: LogRecord) => void;

export class Logger {
  private threshold: number;
  /** Info messages held back, innermost hold last (see `holdInfo`). */
  private readonly held: LogRecord[][] = [];

  constructor(
    private readonly sink: LogSink,
    level: LogLevel = "notice",
  ) {
    this.threshold = RANK[level];
  }

  /** The level messages are written up to. */
  get level(): LogLevel {
    return (Object.keys(RANK) as LogLevel[]).find((l) => RANK[l] === this.threshold) ?? "notice";
  }

  /** Changes the level (as `inform`/`verbose` in body agent control do). */
  setLevel(level: LogLevel): void {
    this.threshold = RANK[level];
  }

  /** Whether a message at `level` would be written; guards costly messages. */
  wouldLog(level: LogLevel): boolean {
    return RANK[level] <= this.threshold;
  }

  log(level: LogLevel, message: string): void {
    if (RANK[level] > this.threshold) return;
    const hold = this.held.at(-1);
    if (hold && level === "info") hold.push({ level, message });
    else this.sink({ level, message });
  }

  /**
   * Holds info messages back until `releaseInfo`: cf-agent prints an edit's
   * info lines only when the edit changed the file.
   */
  holdInfo(): void {
    this.held.push([]);
  }

  /** Ends the innermost hold; its messages are written when `commit`, else dropped. */
  releaseInfo(commit: boolean): void {
    const records = this.held.pop() ?? [];
    if (!commit) return;
    for (const record of records) this.log(record.level, record.message);
  }

  critical(message: string): void {
    this.log("critical", message);
  }
  error(message: string): void {
    this.log("error", message);
  }
  warning(message: string): void {
    this.log("warning", message);
  }
  notice(message: string): void {
    this.log("notice", message);
  }
  info(message: string): void {
    this.log("info", message);
  }
  verbose(message: string): void {
    this.log("verbose", message);
  }
  debug(message: string): void {
    this.log("debug", message);
  }
}

/** A logger that drops everything (tests, pre-evaluation). */
export const silentLogger = new Logger(() => {}, "error");

/** cf-agent's rendering of a log line: the level right-aligned in 8 columns (CRITICAL in capitals). */
export function formatLogLine(record: LogRecord): string {
  const level = record.level === "critical" ? "CRITICAL" : record.level.padStart(8);
  return `${level}: ${record.message}`;
}
