/**
 * The bodies pre-evaluation needs from the agent. The `classes` body of vars
 * promises: 3.21 applies it whenever a vars promise is evaluated,
 * pre-evaluation included (so a bundle that is never called still defines
 * the classes of its vars' `promise_kept`, and `persist_time` keeps them).
 * The `action` body: with `ifelapsed => "0"` cached functions (execresult,
 * ...) run again at each evaluation, pre-evaluation included.
 */
import type { EvalContext } from "../eval/context.js";
import { canonifyClassName } from "../eval/class-expression.js";
import { type ExpandOptions, expandRval, hasUnresolvedReference } from "../eval/expand.js";
import { parseCfInt } from "../eval/numbers.js";
import type { ResolveHooks } from "../eval/resolve.js";
import { valueToStrings } from "../eval/values.js";
import type { Promise as PromiseNode } from "../language/ast.js";
import { type BodyInstance, resolveBody } from "../promises/bodies.js";
import type { PolicyIndex } from "../promises/policy-index.js";
import { isIfElapsedZero } from "./promise-deref.js";

/** Hooks that define the kept classes of vars promises' `classes` bodies. */
export function preEvaluationClassHooks(
  ctx: EvalContext,
  index: PolicyIndex,
  persist: (name: string, minutes: number, tags?: readonly string[]) => void,
): ResolveHooks {
  return {
    persistClass: persist,
    varPromiseKept(promise: PromiseNode, options: ExpandOptions): void {
      const reference = promise.attributes.find((a) => a.name.text === "classes");
      if (!reference) return;
      const body = resolveBody(ctx, index, "classes", reference.value, () => {});
      if (body) applyKept(ctx, body, options, persist);
    },
    bypassesFunctionCache(promise: PromiseNode, bindings: ReadonlyMap<string, string>): boolean {
      const reference = promise.attributes.find((a) => a.name.text === "action");
      if (!reference) return false;
      return isIfElapsedZero(
        ctx,
        resolveBody(ctx, index, "action", reference.value, () => {}),
        bindings,
      );
    },
  };
}

function applyKept(
  ctx: EvalContext,
  body: BodyInstance,
  options: ExpandOptions,
  persist: (name: string, minutes: number) => void,
): void {
  const read = (name: string): readonly string[] => {
    const attribute = body.attributes.get(name);
    const value = attribute ? expandRval(ctx, attribute.value, options) : undefined;
    return value ? (valueToStrings(value) ?? []) : [];
  };
  const local = read("scope")[0] === "bundle";
  const minutes = parseCfInt(read("persist_time")[0] ?? "") ?? 0;
  for (const name of read("promise_kept")) {
    if (hasUnresolvedReference(name)) continue;
    const canonical = canonifyClassName(name);
    ctx.defineClass(canonical, local);
    if (minutes > 0) persist(canonical, minutes);
  }
  for (const name of read("cancel_kept")) ctx.undefineClass(canonifyClassName(name));
}
