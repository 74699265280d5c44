/**
 * `classes` promises: define a class when its condition holds.
 *
 * The condition is one of `expression`, `and`, `or`, `xor`, `not`, `dist`
 * or `select_class`; a promise with none of them always defines its class.
 * Classes are local to an agent bundle and global in a common bundle unless
 * `scope` says otherwise; `persistence` keeps them for that many minutes.
 * A condition that still holds unresolved references defines nothing (a
 * later pass may resolve it).
 */
import { canonify } from "../eval/class-expression.js";
import type { EvalContext } from "../eval/context.js";
import { parseCfInt } from "../eval/numbers.js";
import type { Outcome } from "../agent/outcome.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "./contract.js";
import { CLASS_COMBINATORS, combineTruths } from "../eval/class-combinators.js";
import { asStrings, asText, isUnresolved } from "./values.js";

/**
 * Whether each class expression in a list holds. As in 3.21, an expression
 * still holding an unresolved reference is read as it stands, and is false.
 */
function truths(ctx: EvalContext, items: readonly string[]): boolean[] {
  return items.map((item) => !isUnresolved(item) && ctx.checkExpression(item));
}

function condition(promise: ActivePromise, ctx: EvalContext): boolean | undefined {
  for (const name of CLASS_COMBINATORS) {
    if (promise.raw(name) === undefined) continue;
    const value = promise.value(name);
    if (!value) return undefined;
    return combineTruths(name, truths(ctx, asStrings(value)));
  }
  return true;
}

/** `select_class`: one class of the list, chosen stably for this host. */
function selectClass(promise: ActivePromise, ctx: EvalContext): string | undefined {
  const items = asStrings(promise.value("select_class"));
  if (items.length === 0 || items.some(isUnresolved)) return undefined;
  const host = asText(ctx.getVariable({ ns: null, scope: "sys", name: "fqhost", indices: [] })) ?? "";
  let hash = 0;
  for (const ch of host) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return items[hash % items.length];
}

function evaluateClass(promise: ActivePromise, env: PromiseEnvironment): Outcome {
  const { ctx } = env;
  if (isUnresolved(promise.promiser)) return "skipped";
  const common = promise.bundle.block.type.text === "common";
  const scopeText = asText(promise.value("scope"));
  const scope =
    scopeText === "bundle" || scopeText === "namespace" ? scopeText : common ? "namespace" : "bundle";
  const persistText = asText(promise.value("persistence"));
  const persist = persistText === undefined ? undefined : parseCfInt(persistText);
  if (promise.raw("select_class") !== undefined) {
    const chosen = selectClass(promise, ctx);
    if (chosen) env.defineClass(canonify(chosen), scope, persist);
    return chosen ? "kept" : "skipped";
  }
  if (promise.raw("dist") !== undefined) return "kept";
  const holds = condition(promise, ctx);
  if (holds === undefined) return "skipped";
  // The promiser is canonified whole: a `:` in it names no namespace.
  if (holds) env.defineClass(canonify(promise.promiser), scope, persist);
  return "kept";
}

export const classesPromiseType: PromiseType = {
  name: "classes",
  evaluate: evaluateClass,
};
