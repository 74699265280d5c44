/**
 * Implicit iteration over lists and containers, the way 3.21's iteration
 * engine does it.
 *
 * Every `$(var)` in the promiser, the promisee and the attributes that
 * names a list or a container becomes a "wheel"; so does every reference
 * whose name holds another reference (`$(a[$(k)])`), since it may resolve
 * to anything once the inner one is bound. The wheels turn like an
 * odometer: the rightmost (the last found, the most dependent) fastest.
 * A combination in which some wheel is empty, or a dependent wheel does
 * not resolve, is skipped; a promise with an empty list runs not at all.
 * References to scalars and unresolved names make no wheel: they stay in
 * the text as they are.
 */
import type { Rval } from "../language/ast.js";
import type { EvalContext } from "./context.js";
import { expandString, findReferences, qualifiedName } from "./expand.js";
import { type JsonValue, isJsonContainer, isList, primitiveToScalar } from "./values.js";
import { parseVarRef } from "./var-ref.js";

/** Functions whose arguments name `$(this.k)`-style variables they bind themselves. */
const SELF_BINDING_FUNCTIONS = new Set(["maplist", "mapdata", "maparray"]);

/** Names functions bind themselves; never iterated here. */
const SPECIAL_NAMES = new Set(["this", "this.k", "this.v", "this.k[1]", "this.this"]);

/** Bindings of one iteration: qualified variable name → the item for this turn. */
export type Bindings = ReadonlyMap<string, string>;

interface Wheel {
  readonly unexpanded: string;
  readonly dependent: boolean;
  /**
   * A name functions bind themselves (`this.k`...): never bound here, and,
   * as in 3.21, it stops the check for empty wheels (those after it count
   * as filled, so `$(a[$(this.k)])` does not skip the promise).
   */
  readonly special?: boolean;
  /** Items for the current turn; null when the name is a scalar (one turn, no binding). */
  values: readonly string[] | null;
  /** False when the name did not resolve in this turn. */
  resolved: boolean;
  key: string;
  index: number;
  /** The expanded name read last (3.21 re-reads a wheel only when its name changes). */
  lastName?: string;
}

/** The strings of an rval that the iteration engine scans, in order. */
export function collectIterationTexts(rval: Rval, out: string[]): void {
  switch (rval.kind) {
    case "string":
      out.push(rval.value);
      return;
    case "nakedvar":
      out.push(rval.text);
      return;
    case "symbol":
      return;
    case "list":
      for (const item of rval.items) collectIterationTexts(item, out);
      return;
    case "call":
      out.push(rval.name);
      if (SELF_BINDING_FUNCTIONS.has(rval.name)) return;
      for (const arg of rval.args) collectIterationTexts(arg, out);
  }
}

/**
 * Whether a promise has an attribute whose value is an ifelse() call: 3.21
 * then evaluates it once even when the iteration yields nothing (so
 * `ifelse(isvariable("x"), "$($(x))", "fallback")` gets its fallback).
 */
export function callsIfelse(attributes: Iterable<{ readonly value: Rval }>): boolean {
  for (const { value } of attributes) if (value.kind === "call" && value.name === "ifelse") return true;
  return false;
}

/**
 * Every combination of list items the promise runs with, in cf-agent's
 * order. A promise with nothing to iterate yields one empty binding; with
 * `atLeastOnce`, one set of bindings is yielded even when every
 * combination is skipped. `onEmptyList` hears of each list that turns out
 * empty (3.21 logs it).
 */
export function* iterate(
  ctx: EvalContext,
  texts: readonly string[],
  atLeastOnce = false,
  onEmptyList?: (name: string) => void,
): Generator<Bindings> {
  const wheels = findWheels(ctx, texts);
  if (wheels.length === 0) {
    yield new Map();
    return;
  }
  const bindings = new Map<string, string>();
  let yielded = false;
  turnFrom(ctx, wheels, 0, bindings, onEmptyList);
  if (!hasEmptyWheel(wheels)) {
    yielded = true;
    yield new Map(bindings);
  }
  for (;;) {
    const i = incrementRightmost(wheels);
    if (i < 0) {
      if (!yielded && atLeastOnce) yield new Map(bindings);
      return;
    }
    const wheel = wheels[i];
    bindings.set(wheel.key, (wheel.values as readonly string[])[wheel.index]);
    turnFrom(ctx, wheels, i + 1, bindings, onEmptyList);
    if (!hasEmptyWheel(wheels)) {
      yielded = true;
      yield new Map(bindings);
    }
  }
}

function findWheels(ctx: EvalContext, texts: readonly string[]): Wheel[] {
  const wheels: Wheel[] = [];
  const seen = new Set<string>();
  for (const text of texts) {
    if (text.includes("$")) scanText(ctx, text, wheels, seen);
  }
  return wheels;
}

function scanText(ctx: EvalContext, text: string, wheels: Wheel[], seen: Set<string>): void {
  for (const ref of findReferences(text)) {
    // 3.21 scans for `$(` only: the references inside `@(...)` are met as
    // if they stood alone (`@($(list).d)` iterates over list).
    if (ref.sigil !== "$") {
      if (ref.inner.includes("$")) scanText(ctx, ref.inner, wheels, seen);
      continue;
    }
    const dependent = ref.inner.includes("$");
    if (dependent) scanText(ctx, ref.inner, wheels, seen);
    if (seen.has(ref.inner)) continue;
    if (SPECIAL_NAMES.has(ref.inner)) {
      seen.add(ref.inner);
      wheels.push({
        unexpanded: ref.inner,
        dependent,
        special: true,
        values: null,
        resolved: true,
        key: "",
        index: 0,
      });
      continue;
    }
    if (!dependent && !isIterable(ctx, ref.inner)) continue;
    seen.add(ref.inner);
    wheels.push({ unexpanded: ref.inner, dependent, values: null, resolved: true, key: "", index: 0 });
  }
}

function isIterable(ctx: EvalContext, name: string): boolean {
  const value = ctx.getVariable(parseVarRef(name));
  if (!value) return false;
  if (isList(value)) return true;
  return value.type === "data" && isJsonContainer(value.value);
}

/** Re-reads the wheels from `start` on, with the bindings of those before. */
function turnFrom(
  ctx: EvalContext,
  wheels: Wheel[],
  start: number,
  bindings: Map<string, string>,
  onEmptyList?: (name: string) => void,
): void {
  for (let i = start; i < wheels.length; i++) {
    const wheel = wheels[i];
    if (wheel.key) bindings.delete(wheel.key);
  }
  for (let i = start; i < wheels.length; i++) {
    const wheel = wheels[i];
    if (wheel.special) continue;
    const name = wheel.dependent ? expandString(ctx, wheel.unexpanded, { bindings }) : wheel.unexpanded;
    wheel.index = 0;
    wheel.key = qualifiedName(ctx, name);
    readWheel(ctx, wheel, name);
    if (wheel.values && wheel.values.length > 0) bindings.set(wheel.key, wheel.values[0]);
    else if (wheel.values && name !== wheel.lastName) onEmptyList?.(name);
    wheel.lastName = name;
  }
}

function readWheel(ctx: EvalContext, wheel: Wheel, name: string): void {
  const value = name.includes("$") ? undefined : ctx.getVariable(parseVarRef(name));
  wheel.resolved = value !== undefined;
  wheel.values = null;
  if (!value) return;
  if (isList(value)) wheel.values = value.value;
  else if (value.type === "data" && isJsonContainer(value.value)) {
    wheel.values = iterationItems(value.value);
  }
}

/**
 * The items a container gives a wheel, as 3.21's `ContainerToSeq`: its
 * primitive members (nested containers and nulls left out), reals written
 * with two decimals.
 */
function iterationItems(json: JsonValue): string[] {
  const members = isJsonContainer(json) ? (Array.isArray(json) ? json : Object.values(json)) : [json];
  const out: string[] = [];
  for (const member of members) {
    if (member === null || isJsonContainer(member)) continue;
    out.push(primitiveToScalar(member) ?? "");
  }
  return out;
}

function hasEmptyWheel(wheels: readonly Wheel[]): boolean {
  for (const w of wheels) {
    if (w.special) return false;
    if (!w.resolved || (w.values !== null && w.values.length === 0)) return true;
  }
  return false;
}

/** Advances the rightmost wheel that has items left; -1 when all are done. */
function incrementRightmost(wheels: Wheel[]): number {
  for (let i = wheels.length - 1; i >= 0; i--) {
    const wheel = wheels[i];
    if (!wheel.resolved || !wheel.values || wheel.values.length === 0) continue;
    if (wheel.index + 1 < wheel.values.length) {
      wheel.index++;
      return i;
    }
  }
  return -1;
}
