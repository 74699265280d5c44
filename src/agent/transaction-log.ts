/**
 * The `action` body's promise log: `log_string` written, for the promise's
 * outcome, to the file named by `log_kept`, `log_repaired` or `log_failed`
 * (`stdout` logs it as `L: ...` at info level; `udp_syslog` is not
 * supported and skipped), as 3.21's ClassAuditLog does. A log file is
 * created with mode 600; the line is appended. Bookkeeping promise types
 * (vars, classes, and line edits) log nothing, as in 3.21.
 */
import { appendFileSync, closeSync, lstatSync, openSync } from "node:fs";
import type { ActivePromise } from "../promises/contract.js";
import { asText } from "../promises/values.js";
import type { Logger } from "../system/logger.js";
import { type Outcome, UNACCOUNTED_TYPES } from "../promises/outcome.js";

function logAttributeFor(outcome: Outcome): string | undefined {
  switch (outcome) {
    case "repaired":
      return "log_repaired";
    case "kept":
      return "log_kept";
    case "failed":
    case "denied":
    case "timeout":
    case "interrupted":
      return "log_failed";
    default:
      return undefined;
  }
}

/** Writes the promise's log line for an outcome, if its action body asks for one. */
export function summarizeTransaction(promise: ActivePromise, outcome: Outcome, log: Logger): void {
  if (UNACCOUNTED_TYPES.has(promise.type) || !promise.body("action")) return;
  const attribute = logAttributeFor(outcome);
  const target = attribute ? asText(promise.bodyValue("action", attribute)) : undefined;
  const text = asText(promise.bodyValue("action", "log_string"));
  if (target === undefined || text === undefined) return;
  if (target === "udp_syslog") return;
  if (target === "stdout") {
    log.info(`L: ${text}`);
    return;
  }
  try {
    if (!exists(target)) {
      closeSync(openSync(target, "w", 0o600));
      log.verbose(`Created log file '${target}' with requested permissions 600`);
    }
    log.verbose(`Logging string '${text}' to '${target}'`);
    appendFileSync(target, `${text}\n`);
  } catch {
    log.error(`Unable to open private log '${target}'`);
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
