/**
 * The outcome of a command from its exit status, as 3.21 judges it. By
 * default 0 is repaired and anything else failed; when the `classes` body
 * lists `kept_returncodes`, `repaired_returncodes` or `failed_returncodes`,
 * a status counts as each list it is in, and as failed when in none.
 * A command killed by a signal (or by its time limit) failed.
 */
import { type Outcome, combineOutcomes } from "../../agent/outcome.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import { asStrings } from "../values.js";

export function judgeExit(
  promise: ActivePromise,
  env: PromiseEnvironment,
  exitCode: number | null,
  inform: boolean,
): Outcome {
  const who = promise.promiser;
  if (exitCode === null) {
    env.log.error(`Finished script '${who}' - failed (abnormal termination)`);
    return "failed";
  }
  const codes = (name: string) => asStrings(promise.bodyValue("classes", name));
  const kept = codes("kept_returncodes");
  const repaired = codes("repaired_returncodes");
  const failed = codes("failed_returncodes");
  if (kept.length + repaired.length + failed.length === 0) {
    if (exitCode === 0) {
      env.log.verbose(`Finished command related to promiser '${who}' -- succeeded`);
      return "repaired";
    }
    env.log.error(`Finished command related to promiser '${who}' -- an error occurred, returned ${exitCode}`);
    return "failed";
  }
  const level = inform ? "info" : "verbose";
  const status = String(exitCode);
  const prefix = `Command related to promiser '${who}' returned code '${exitCode}'`;
  let outcome: Outcome = "kept";
  let matched = false;
  if (kept.includes(status)) {
    env.log.log(level, `${prefix} defined as promise kept`);
    matched = true;
  }
  if (repaired.includes(status)) {
    env.log.log(level, `${prefix} defined as promise repaired`);
    outcome = combineOutcomes(outcome, "repaired");
    matched = true;
  }
  if (failed.includes(status)) {
    env.log.error(`${prefix} defined as promise failed`);
    outcome = combineOutcomes(outcome, "failed");
    matched = true;
  }
  if (!matched) {
    env.log.log(level, `${prefix} not defined as promise kept, not kept or repaired; setting to failed`);
    return "failed";
  }
  return outcome;
}
