/**
 * 3.21's cfPS for package promises: a message at a level (verbose and
 * debug ones after the promise's "Additional promise info"), then the
 * `classes` body applied for the outcome at once, and the outcome counted
 * in the run's accounting.
 */
import type { LogLevel } from "../../system/logger.js";
import type { Outcome } from "../outcome.js";
import { applyOutcomeClasses } from "../outcome-classes.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import { logPromiseContext } from "../promise-context.js";

export function recordOutcome(
  promise: ActivePromise,
  env: PromiseEnvironment,
  level: LogLevel,
  outcome: Outcome,
  message?: string,
): Outcome {
  if (message !== undefined) {
    if (level === "verbose" || level === "debug") logPromiseContext(promise, env);
    env.log.log(level, message);
  }
  if (outcome !== "skipped") {
    applyOutcomeClasses(promise, env, outcome);
    // Counted as 3.21 counts: each verdict once (packages promises count for themselves).
    env.audit?.(outcome);
  }
  return outcome;
}
