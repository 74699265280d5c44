/**
 * What a module's results mean, as cf-agent 3.21 reads them, including its
 * "Bug in promise module" checks: a module must log an error when a
 * promise is invalid or not kept, info when it repaired something, and
 * must neither repair nor report changes while changes are disabled.
 */
import type { Outcome } from "../outcome.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import { asText } from "../values.js";
import type { LogCounts } from "../../providers/modules/module-logs.js";

function place(promise: ActivePromise, env: PromiseEnvironment): string {
  const line = asText(env.ctx.currentFrame().thisVars.get("promise_linenumber")) ?? "0";
  return `${promise.bundle.file}:${line}`;
}

/** Whether `validate_promise` accepted the promise; logs as cf-agent does when not. */
export function judgeValidation(
  promise: ActivePromise,
  env: PromiseEnvironment,
  result: string | undefined,
  counts: LogCounts,
): boolean {
  if (result === "valid") return true;
  const where = `${promise.type} promise with promiser '${promise.promiser}'`;
  env.log.verbose(`${where} failed validation (${place(promise, env)})`);
  if (counts.error === 0 && counts.critical === 0) {
    env.log.critical(
      `Bug in promise module - No error(s) logged for invalid ${promise.type} promise with promiser '${promise.promiser}' (${place(promise, env)})`,
    );
  }
  env.log.verbose(`${where} will be skipped because it failed validation`);
  return false;
}

/** The outcome of `evaluate_promise`'s result. */
export function judgeEvaluation(
  promise: ActivePromise,
  env: PromiseEnvironment,
  path: string,
  result: string | undefined,
  warnOnly: boolean,
  counts: LogCounts,
): Outcome {
  const subject = `(${promise.type} promise, promiser: '${promise.promiser}' module: '${path}')`;
  const bug = `${promise.type} promise with promiser '${promise.promiser}' (${place(promise, env)})`;
  const disabled = " while making changes on the system disabled";
  if (warnOnly && counts.info > 0) {
    env.log.critical(`Bug in promise module - 'info:' log messages reported for ${bug}${disabled}`);
  }
  switch (result) {
    case undefined:
      env.log.error(`Promise module did not return a result for promise evaluation ${subject}`);
      return "failed";
    case "kept":
      env.log.verbose(`Promise with promiser '${promise.promiser}' was kept by promise module '${path}'`);
      return "kept";
    case "not_kept":
      env.log.verbose(`Promise with promiser '${promise.promiser}' was not kept by promise module '${path}'`);
      if (!warnOnly && counts.error + counts.critical === 0) {
        env.log.critical(`Bug in promise module - Failed to log errors for not kept ${bug}`);
      } else if (warnOnly && counts.warning + counts.error + counts.critical === 0) {
        env.log.critical(`Bug in promise module - Failed to log warnings for not kept ${bug}${disabled}`);
      }
      return "failed";
    case "repaired":
      env.log.verbose(`Promise with promiser '${promise.promiser}' was repaired by promise module '${path}'`);
      if (warnOnly) env.log.critical(`Bug in promise module - ${bug} repaired${disabled}`);
      if (counts.info === 0) {
        env.log.critical(`Bug in promise module - Failed to log about changes made by a repaired ${bug}`);
      }
      return "repaired";
    case "error":
      env.log.error(`An unexpected error occured in promise module ${subject}`);
      return "failed";
    default:
      env.log.error(`Promise module returned unacceptable result: '${result}' ${subject}`);
      return "failed";
  }
}
