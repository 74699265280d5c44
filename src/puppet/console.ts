/**
 * Log lines as `puppet apply` prints them: `Notice: /Stage[main]/Main/
 * File[/x]/ensure: defined content as '...'`, or `Notice: Hi there` for
 * messages of Puppet's own. Errors and warnings go to stderr, the rest to
 * stdout, in Puppet's colours when colour is on.
 */

/** Puppet's log levels. */
export type PuppetLevel = "debug" | "info" | "notice" | "warning" | "err" | "alert" | "emerg" | "crit";

/** One line of a run's log, as Puppet's report keeps it. */
export interface PuppetLogLine {
  readonly level: PuppetLevel;
  readonly message: string;
  /** `Puppet` for the run's own messages, else the resource's (or property's) path. */
  readonly source: string;
  readonly tags: readonly string[];
  readonly time: Date;
  readonly file?: string;
  readonly line?: number;
}

const NAMES: Readonly<Record<PuppetLevel, string>> = {
  emerg: "Emergency",
  alert: "Alert",
  crit: "Critical",
  err: "Error",
  warning: "Warning",
  notice: "Notice",
  info: "Info",
  debug: "Debug",
};

const COLORS: Readonly<Record<PuppetLevel, string>> = {
  emerg: "\u001b[1;31m",
  alert: "\u001b[1;31m",
  crit: "\u001b[1;31m",
  err: "\u001b[1;31m",
  warning: "\u001b[1;33m",
  notice: "\u001b[m",
  info: "\u001b[0;32m",
  debug: "\u001b[0;36m",
};

/** Whether Puppet writes the level to stderr (errors and warnings) rather than stdout. */
export function toStderr(level: PuppetLevel): boolean {
  return !["notice", "info", "debug"].includes(level);
}

/** The console line for `line` (with its newline), coloured when `color`. */
export function formatConsoleLine(line: PuppetLogLine, color: boolean): string {
  const text = line.source === "Puppet" ? line.message : `${line.source}: ${line.message}`;
  const plain = `${NAMES[line.level]}: ${text}`;
  return color ? `${COLORS[line.level]}${plain}\u001b[0m\n` : `${plain}\n`;
}

const RANK: Readonly<Record<PuppetLevel, number>> = {
  debug: 0,
  info: 1,
  notice: 2,
  warning: 3,
  err: 4,
  alert: 5,
  emerg: 6,
  crit: 7,
};

/** Whether a line at `level` is shown at the threshold `threshold` (`--log_level`, `-v`, `-d`). */
export function shownAt(level: PuppetLevel, threshold: PuppetLevel): boolean {
  return RANK[level] >= RANK[threshold];
}
