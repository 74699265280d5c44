/**
 * Promise iteration: a `$(list)` in a promiser or a value makes the promise
 * run once per item (per combination for several lists), as in 3.21.
 */
import type { Attribute, Rval } from "../language/ast.js";
import type { EvalContext } from "./context.js";
import { findReferences, hasUnresolvedReference, qualifiedName } from "./expand.js";
import { jsonToStrings } from "./values.js";
import { parseVarRef } from "./var-ref.js";

/** Iterations beyond this are dropped; a guard against runaway products. */
const MAX_ITERATIONS = 10_000;

/** Every `$(...)` reference text (inner, unexpanded) in a string, nested ones included. */
export function scalarReferences(text: string): string[] {
  const out: string[] = [];
  for (const ref of findReferences(text)) {
    out.push(...scalarReferences(ref.inner));
    if (ref.sigil === "$") out.push(ref.inner);
  }
  return out;
}

/** The strings of an rval that may hold references (call names and arguments included). */
export function rvalStrings(rval: Rval): string[] {
  switch (rval.kind) {
    case "string":
      return [rval.value];
    case "nakedvar":
      return [rval.text];
    case "symbol":
      return [];
    case "list":
      return rval.items.flatMap(rvalStrings);
    case "call":
      return [rval.name, ...rval.args.flatMap(rvalStrings)];
  }
}

/**
 * The bindings to run a promise with: one map per iteration, keyed like
 * `ExpandOptions.bindings`. A promise without list references runs once
 * with no bindings.
 */
export function iterationBindings(
  ctx: EvalContext,
  promiser: string,
  attributes: readonly Attribute[],
): Map<string, string>[] {
  const texts = [promiser, ...attributes.flatMap((a) => rvalStrings(a.value))].filter((t) => t.includes("$"));
  if (texts.length === 0) return [new Map()];
  const lists = new Map<string, readonly string[]>();
  for (const text of texts) {
    for (const ref of scalarReferences(text)) {
      if (hasUnresolvedReference(ref)) continue;
      const items = listItems(ctx, ref);
      if (items) lists.set(qualifiedName(ctx, ref), items);
    }
  }
  let combos: Map<string, string>[] = [new Map()];
  for (const [name, items] of lists) {
    const next: Map<string, string>[] = [];
    for (const combo of combos) {
      for (const item of items) {
        if (next.length >= MAX_ITERATIONS) break;
        next.push(new Map([...combo, [name, item]]));
      }
    }
    combos = next;
  }
  return combos;
}

function listItems(ctx: EvalContext, refText: string): readonly string[] | undefined {
  const value = ctx.getVariable(parseVarRef(refText));
  if (!value) return undefined;
  if (value.type === "slist" || value.type === "ilist" || value.type === "rlist") return value.value;
  if (value.type === "data" && value.value !== null && typeof value.value === "object") {
    return jsonToStrings(value.value);
  }
  return undefined;
}
