/**
 * Log messages from promise modules: shown at their level (cf-agent prints
 * them as they are, without a prefix), filtered by the promise's own
 * `log_level`, and counted, since the counts tell whether the module kept
 * its side of the protocol (an error for a failure, info for a change).
 */
import type { Logger, LogLevel } from "../../system/logger.js";
import { type ModuleLogLevel, type ModuleLogMessage, clip, parseModuleLogLevel } from "./protocol.js";

const RANK: Readonly<Record<ModuleLogLevel, number>> = {
  critical: 0,
  error: 1,
  warning: 2,
  notice: 3,
  info: 4,
  verbose: 5,
  debug: 6,
};

export type LogCounts = Record<ModuleLogLevel, number>;

export function emptyCounts(): LogCounts {
  return { critical: 0, error: 0, warning: 0, notice: 0, info: 0, verbose: 0, debug: 0 };
}

/**
 * A promise's `log_level` as cf-agent reads it (inform/info, verbose,
 * error/log); anything else means error, with a warning.
 */
export function promiseLogLevel(text: string | undefined, log: Logger): ModuleLogLevel | undefined {
  if (text === undefined) return undefined;
  if (text === "inform" || text === "info") return "info";
  if (text === "verbose") return "verbose";
  if (text === "error" || text === "log") return "error";
  log.warning(`Unrecognized 'log_level' attribute value: ${text}`);
  return "error";
}

/** The most detailed level the agent logs at. */
function agentLevel(log: Logger): ModuleLogLevel {
  const levels: ModuleLogLevel[] = ["debug", "verbose", "info", "notice", "warning"];
  return levels.find((level) => log.wouldLog(level)) ?? "error";
}

/**
 * The `log_level` asked of the module: the agent's level, lowered to the
 * promise's own when that is lower; never below `error`.
 */
export function requestedLogLevel(log: Logger, promiseLevel: ModuleLogLevel | undefined): ModuleLogLevel {
  const global = agentLevel(log);
  const level = promiseLevel !== undefined && RANK[promiseLevel] < RANK[global] ? promiseLevel : global;
  return level === "critical" ? "error" : level;
}

/**
 * Shows and counts the module's messages. A level tend cannot read is
 * reported as such (with the message) instead of aborting, as 3.21 does.
 */
export function emitModuleLogs(
  messages: readonly ModuleLogMessage[],
  log: Logger,
  source: string,
  promiseLevel: ModuleLogLevel | undefined,
  counts: LogCounts,
): void {
  for (const { level: word, message, invalid } of messages) {
    if (invalid) {
      log.error(`${source} sent an invalid ${invalid}: '${clip(message)}'`);
      continue;
    }
    const level = parseModuleLogLevel(word);
    if (level === undefined) {
      log.warning(`${source} sent a log message with the unknown level '${clip(word, 40)}': ${message}`);
      continue;
    }
    counts[level]++;
    if (promiseLevel !== undefined && RANK[level] > RANK[promiseLevel]) continue;
    log.log(level as LogLevel, message);
  }
}
