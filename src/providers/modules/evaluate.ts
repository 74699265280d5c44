/**
 * One promise through a promise module, for any front end: the module is
 * started (once per run, by the runtime), the promise validated, then
 * evaluated (in a dry run with `action_policy` `warn`, which the module
 * must support). The module's log lines go to the logger; the verdict is
 * data. CFEngine's `promise agent` types keep cf-agent's own checks and
 * messages (src/promises/custom) over the same session and runtime.
 */
import type { Logger } from "../../system/logger.js";
import { emitModuleLogs, emptyCounts, type LogCounts, requestedLogLevel } from "./module-logs.js";
import type { JsonValue, ModuleRequest } from "./protocol.js";
import { lineBasedProblem } from "./protocol.js";
import type { ModuleRuntime } from "./runtime.js";
import type { ModuleSpec } from "./session.js";

/** A promise as a module sees it: its type, promiser and attributes, where it was written. */
export interface ModulePromise {
  readonly type: string;
  readonly promiser: string;
  readonly attributes: ReadonlyMap<string, JsonValue>;
  readonly filename?: string;
  readonly line?: number;
}

export interface ModuleCall {
  readonly runtime: ModuleRuntime;
  readonly spec: ModuleSpec;
  /** The limit for one exchange. */
  readonly timeoutMs: number;
  /** Change nothing: the promise goes with `action_policy => "warn"`. */
  readonly dryRun: boolean;
  readonly logger: Logger;
}

/**
 * What became of the promise: `invalid` (validation refused it), the
 * module's result, or `failed` (the module could not be used, or answered
 * something else than a result).
 */
export type ModuleVerdict =
  | {
      readonly status: "kept" | "repaired" | "not_kept";
      readonly classes: readonly string[];
      readonly counts: LogCounts;
    }
  | { readonly status: "invalid"; readonly counts: LogCounts }
  | { readonly status: "failed"; readonly error: string };

function request(
  call: ModuleCall,
  promise: ModulePromise,
  operation: "validate_promise" | "evaluate_promise",
  attributes: ReadonlyMap<string, JsonValue>,
  counts: LogCounts,
) {
  const message: ModuleRequest = {
    operation,
    log_level: requestedLogLevel(call.logger, undefined),
    promise_type: promise.type,
    promiser: promise.promiser,
    line_number: promise.line ?? 0,
    filename: promise.filename ?? "",
    attributes,
  };
  const session = call.runtime.session(call.spec, call.timeoutMs);
  if (typeof session === "string") return { ok: false as const, error: session };
  const answer = session.request(message, call.timeoutMs, call.logger);
  const source = `Promise module '${call.spec.path}'`;
  emitModuleLogs(answer.ok ? answer.reply.log : answer.log, call.logger, source, undefined, counts);
  return answer;
}

/** Why the promise cannot be sent to the module as it speaks, or undefined. */
function unsendable(call: ModuleCall, promise: ModulePromise, attributes: ReadonlyMap<string, JsonValue>) {
  const session = call.runtime.session(call.spec, call.timeoutMs);
  if (typeof session === "string") return session;
  const started = session.ensureStarted(call.timeoutMs, call.logger);
  if (started !== undefined) return started;
  const header = session.header;
  if (call.dryRun && !header?.actionPolicy)
    return `Not making changes to the system, but the promise module '${call.spec.path}' doesn't support action_policy`;
  if (header?.form !== "line") return undefined;
  for (const [name, value] of [["promiser", promise.promiser] as const, ...attributes]) {
    const problem = lineBasedProblem(value);
    if (problem)
      return `Cannot send ${name === "promiser" ? "the promiser" : `attribute '${name}'`} to the line-based promise module '${call.spec.path}': ${problem}`;
  }
  return undefined;
}

/** Validates, then evaluates, one promise; never throws. */
export function evaluateWithModule(call: ModuleCall, promise: ModulePromise): ModuleVerdict {
  const attributes = new Map(promise.attributes);
  if (call.dryRun) attributes.set("action_policy", "warn");
  const problem = unsendable(call, promise, attributes);
  if (problem !== undefined) return { status: "failed", error: problem };
  const validated = emptyCounts();
  const validation = request(call, promise, "validate_promise", attributes, validated);
  if (!validation.ok) return { status: "failed", error: validation.error };
  if (validation.reply.result !== "valid") return { status: "invalid", counts: validated };
  const counts = emptyCounts();
  const evaluation = request(call, promise, "evaluate_promise", attributes, counts);
  if (!evaluation.ok) return { status: "failed", error: evaluation.error };
  const result = evaluation.reply.result;
  if (result === "kept" || result === "repaired" || result === "not_kept")
    return { status: result, classes: evaluation.reply.resultClasses.filter((c) => c !== ""), counts };
  const said = result === undefined ? "no result" : `the result '${result}'`;
  return {
    status: "failed",
    error: `Promise module '${call.spec.path}' returned ${said} for '${promise.promiser}'`,
  };
}
