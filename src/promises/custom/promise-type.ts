/**
 * Custom promise types: promises of a type declared by `promise agent NAME
 * { path => ...; interpreter => ...; }` are handed to that promise module,
 * as cf-agent 3.21 does it. For each promise: start the module (once per
 * path and run), check the promise is fully resolved, `validate_promise`,
 * then `evaluate_promise`; set the `result_classes` in the bundle's scope
 * and map the result to an outcome (kept, repaired, or not kept).
 *
 * tend adds a time limit per exchange, five minutes by default, set per
 * promise type in the `tend_control` bundle (see settings.ts).
 */
import type { Located, PolicyIndex } from "../policy-index.js";
import type { Outcome } from "../outcome.js";
import type { CustomPromiseBlock, Rval } from "../../language/ast.js";
import type { EvalContext } from "../../eval/context.js";
import { expandRval } from "../../eval/expand.js";
import { isGuardTrue } from "../../eval/resolve.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "../contract.js";
import type { PromiseTypeRegistry } from "../registry.js";
import { asText } from "../values.js";
import {
  type PromiseAttributes,
  holdsUnresolvedValues,
  isWarnOnly,
  readPromiseAttributes,
} from "./attributes.js";
import { judgeEvaluation, judgeValidation } from "./judge.js";
import {
  type LogCounts,
  emitModuleLogs,
  emptyCounts,
  promiseLogLevel,
  requestedLogLevel,
} from "../../providers/modules/module-logs.js";
import { type ModuleRequest, lineBasedProblem } from "../../providers/modules/protocol.js";
import type { CustomPromiseRuntime } from "./runtime.js";
import { type ModuleSession, type ModuleSpec, logStderr } from "../../providers/modules/session.js";

/** The `promise agent NAME` declaration's attribute, guards honoured. */
export function blockAttribute(block: CustomPromiseBlock, ctx: EvalContext, name: string): Rval | undefined {
  let found: Rval | undefined;
  for (const group of block.groups) {
    if (!isGuardTrue(ctx, group.guard)) continue;
    for (const attribute of group.attributes) if (attribute.name.text === name) found = attribute.value;
  }
  return found;
}

export function blockText(block: CustomPromiseBlock, ctx: EvalContext, name: string): string | undefined {
  const rval = blockAttribute(block, ctx, name);
  return rval ? asText(expandRval(ctx, rval)) : undefined;
}

/**
 * The policy's `promise agent` declarations of types that are not built in
 * (a built-in type keeps its name; the validator refuses such declarations).
 */
export function customDeclarations(
  registry: PromiseTypeRegistry,
  index: PolicyIndex,
): Located<CustomPromiseBlock>[] {
  return index.promiseTypeDeclarations().filter((declaration) => !registry.get(declaration.block.name.text));
}

interface Evaluation {
  readonly promise: ActivePromise;
  readonly env: PromiseEnvironment;
  readonly spec: ModuleSpec;
  readonly session: ModuleSession;
  readonly timeoutMs: number;
  readonly attrs: PromiseAttributes;
  readonly warnOnly: boolean;
}

export function customPromiseType(
  declaration: Located<CustomPromiseBlock>,
  runtime: CustomPromiseRuntime,
): PromiseType {
  const block = declaration.block;
  const name = block.name.text;
  return {
    name,
    waitsForResolution: true,
    oncePerRun: true,
    isUnresolved: holdsUnresolvedValues,
    evaluate(promise: ActivePromise, env: PromiseEnvironment): Outcome {
      const path = blockText(block, env.ctx, "path");
      if (path === undefined) {
        env.log.error(`Custom promise type '${name}' missing path`);
        return "failed";
      }
      const attrs = readPromiseAttributes(promise, env.dryRun);
      if (attrs.unresolved.length > 0) {
        env.log.error(
          `${name} promise with promiser '${promise.promiser}' has unresolved/unexpanded variables`,
        );
        return "failed";
      }
      const timeoutMs = runtime.timeoutSeconds(name, env) * 1000;
      const spec = { path, interpreter: blockText(block, env.ctx, "interpreter") };
      const session = runtime.session(spec, timeoutMs);
      if (typeof session === "string") {
        env.log.error(`${session} for promise '${promise.promiser}' of type '${name}')`);
        return "failed";
      }
      const warnOnly = isWarnOnly(attrs, env.dryRun);
      return run({ promise, env, spec, session, timeoutMs, attrs, warnOnly });
    },
  };
}

function run(e: Evaluation): Outcome {
  const started = e.session.ensureStarted(e.timeoutMs, e.env.log);
  if (started !== undefined) {
    e.env.log.error(started);
    return "failed";
  }
  const header = e.session.header!;
  if (e.warnOnly && !header.actionPolicy) {
    e.env.log.error(
      `Not making changes to the system, but the custom promise module '${e.spec.path}' doesn't support action_policy`,
    );
    return "failed";
  }
  if (header.form === "line" && !lineBasedSendable(e)) return "failed";
  const validated = emptyCounts();
  // What the module writes to standard error while validating is shown with the evaluation's.
  const validation = exchange(e, "validate_promise", validated);
  if (validation === undefined) return "failed";
  if (!judgeValidation(e.promise, e.env, validation.result, validated)) {
    logPromiseStderr(e, e.session.takeStderr(), false);
    return "failed";
  }
  const evaluated = emptyCounts();
  const evaluation = exchange(e, "evaluate_promise", evaluated);
  if (evaluation === undefined) return "failed";
  for (const name of evaluation.resultClasses) {
    if (name === "") continue;
    e.env.defineClass(name, "bundle");
    e.env.ctx.setClassTags(name, ["source=promise-module"]);
  }
  return judgeEvaluation(e.promise, e.env, e.spec.path, evaluation.result, e.warnOnly, evaluated);
}

function logPromiseStderr(e: Evaluation, stderr: string, failed: boolean): void {
  if (stderr === "") return;
  logStderr(
    e.env.log,
    `Promise module '${e.spec.path}' (${e.promise.type} promise '${e.promise.promiser}')`,
    stderr,
    failed,
  );
}

/** The line-based protocol carries only one-line strings: anything else is refused, not sent. */
function lineBasedSendable(e: Evaluation): boolean {
  const values: [string, unknown][] = [["promiser", e.promise.promiser], ...e.attrs.attributes];
  for (const [name, value] of values) {
    const problem = lineBasedProblem(value as string);
    if (problem === undefined) continue;
    const what = name === "promiser" ? "the promiser" : `attribute '${name}'`;
    e.env.log.error(
      `Cannot send ${what} of ${e.promise.type} promise '${e.promise.promiser}' to the line-based promise module '${e.spec.path}': ${problem}`,
    );
    return false;
  }
  return true;
}

/** One request and its answer; undefined (after logging why) when the module failed. */
function exchange(
  e: Evaluation,
  operation: "validate_promise" | "evaluate_promise",
  counts: LogCounts,
): { result?: string; resultClasses: readonly string[] } | undefined {
  const { promise, env } = e;
  const level = promiseLogLevel(e.attrs.logLevel, env.log);
  const line = Number(asText(env.ctx.currentFrame().thisVars.get("promise_linenumber")) ?? "0");
  const request: ModuleRequest = {
    operation,
    log_level: requestedLogLevel(env.log, level),
    promise_type: promise.type,
    promiser: promise.promiser,
    line_number: line,
    filename: promise.bundle.file,
    attributes: e.attrs.attributes,
  };
  const answer = e.session.request(request, e.timeoutMs, env.log, operation === "validate_promise");
  const source = `Promise module '${e.spec.path}'`;
  logPromiseStderr(e, answer.stderr, !answer.ok);
  emitModuleLogs(answer.ok ? answer.reply.log : answer.log, env.log, source, level, counts);
  if (answer.ok) return answer.reply;
  const doing = operation === "validate_promise" ? "validating" : "evaluating";
  env.log.error(
    `${source} failed while ${doing} ${promise.type} promise '${promise.promiser}': ${answer.error}; it will be restarted for the next promise`,
  );
  return undefined;
}
