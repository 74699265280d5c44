/**
 * The outcome of a command from its exit status, as 3.21 judges it. By
 * default 0 is repaired and anything else failed; when the `classes` body
 * lists `kept_returncodes`, `repaired_returncodes` or `failed_returncodes`,
 * a status counts as each list it is in, and as failed when in none.
 * A command killed by a signal (or by its time limit) failed.
 *
 * Like 3.21's cfPS, each verdict defines the `classes` body's classes for
 * it at once: a status in all three lists defines the kept, repaired and
 * failed classes alike.
 */
import type { LogLevel } from "../../agent/logger.js";
import { type Outcome, combineOutcomes } from "../../agent/outcome.js";
import { applyOutcomeClasses } from "../../agent/outcome-classes.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import { asStrings } from "../values.js";

/** Logs a verdict and defines its outcome classes; returns the outcome. */
export function recordVerdict(
  promise: ActivePromise,
  env: PromiseEnvironment,
  level: LogLevel,
  outcome: Outcome,
  message: string,
): Outcome {
  env.log.log(level, message);
  applyOutcomeClasses(promise, env, outcome);
  return outcome;
}

export function judgeExit(
  promise: ActivePromise,
  env: PromiseEnvironment,
  exitCode: number | null,
  inform: boolean,
): Outcome {
  const who = promise.promiser;
  const record = (level: LogLevel, outcome: Outcome, message: string) =>
    recordVerdict(promise, env, level, outcome, message);
  if (exitCode === null) {
    return record("error", "failed", `Finished script '${who}' - failed (abnormal termination)`);
  }
  const codes = (name: string) => asStrings(promise.bodyValue("classes", name));
  const kept = codes("kept_returncodes");
  const repaired = codes("repaired_returncodes");
  const failed = codes("failed_returncodes");
  if (kept.length + repaired.length + failed.length === 0) {
    if (exitCode === 0) {
      return record("verbose", "repaired", `Finished command related to promiser '${who}' -- succeeded`);
    }
    const message = `Finished command related to promiser '${who}' -- an error occurred, returned ${exitCode}`;
    return record("error", "failed", message);
  }
  const level = inform ? "info" : "verbose";
  const status = String(exitCode);
  const prefix = `Command related to promiser '${who}' returned code '${exitCode}'`;
  let outcome: Outcome = "kept";
  let matched = false;
  if (kept.includes(status)) {
    record(level, "kept", `${prefix} defined as promise kept`);
    matched = true;
  }
  if (repaired.includes(status)) {
    outcome = combineOutcomes(outcome, record(level, "repaired", `${prefix} defined as promise repaired`));
    matched = true;
  }
  if (failed.includes(status)) {
    outcome = combineOutcomes(outcome, record("error", "failed", `${prefix} defined as promise failed`));
    matched = true;
  }
  if (!matched) {
    const message = `${prefix} not defined as promise kept, not kept or repaired; setting to failed`;
    return record(level, "failed", message);
  }
  return outcome;
}
