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
import type { LogLevel } from "../../system/logger.js";
import { type Outcome, combineOutcomes } from "../outcome.js";
import { applyOutcomeClasses } from "../outcome-classes.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import { asStrings } from "../values.js";

/** The `classes` body's lists of exit statuses. */
export interface ReturnCodes {
  readonly kept: readonly string[];
  readonly repaired: readonly string[];
  readonly failed: readonly string[];
}

export function readReturnCodes(promise: ActivePromise): ReturnCodes {
  const codes = (name: string) => asStrings(promise.bodyValue("classes", name));
  return {
    kept: codes("kept_returncodes"),
    repaired: codes("repaired_returncodes"),
    failed: codes("failed_returncodes"),
  };
}

/** Logs one verdict (and, for a promise, defines its classes); returns its outcome. */
export type RecordVerdict = (level: LogLevel, outcome: Outcome, message: string) => Outcome;

/** Verdicts of a promise: logged, and its outcome classes defined at once. */
export function promiseVerdicts(promise: ActivePromise, env: PromiseEnvironment): RecordVerdict {
  return (level, outcome, message) => {
    env.log.log(level, message);
    applyOutcomeClasses(promise, env, outcome);
    return outcome;
  };
}

export function judgeExit(
  record: RecordVerdict,
  who: string,
  exitCode: number | null,
  inform: boolean,
  { kept, repaired, failed }: ReturnCodes,
): Outcome {
  if (exitCode === null) {
    return record("error", "failed", `Finished script '${who}' - failed (abnormal termination)`);
  }
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
