/**
 * Variable expansion: `$(x)`, `${x}`, `$(bundle.x)`, `$(ns:bundle.x)`,
 * `$(x[$(k)])`, `$($(x))` inside strings, and `@(list)` as a whole value.
 *
 * A reference that cannot be resolved stays as written (with its inner
 * references expanded where possible), as in 3.21, so the caller can tell
 * by looking for leftover references (`hasUnresolvedReference`).
 */
import type { Rval } from "../language/ast.js";
import type { EvalContext } from "./context.js";
import { callFunction } from "./functions/registry.js";
import {
  type Value,
  isList,
  jsonToStrings,
  list,
  primitiveToScalar,
  scalar,
  isJsonContainer,
} from "./values.js";
import { lvalKey, parseVarRef } from "./var-ref.js";
import { memoizeText } from "../text/memo.js";

export interface ExpandOptions {
  /**
   * Values of list variables for the current iteration, keyed by the
   * qualified name `ns:scope.lval` (see `qualifiedName`).
   */
  readonly bindings?: ReadonlyMap<string, string>;
  /**
   * Set for a promise whose action body says `ifelapsed => "0"`: cached
   * functions (execresult, returnszero...) run again instead of reusing
   * their result of this run, as in 3.21 (ENT-7478).
   */
  readonly bypassFunctionCache?: boolean;
  /** The promise is tagged `simulate_safe`: its unsafe function calls run under `--simulate`. */
  readonly simulateSafe?: boolean;
}

/** A `$(...)` or `@(...)` found in a string. */
export interface ReferenceSpan {
  readonly sigil: "$" | "@";
  /** The text between the brackets, unexpanded. */
  readonly inner: string;
  readonly start: number;
  readonly end: number;
}

const NO_SPANS: readonly ReferenceSpan[] = [];

/** The spans of recent texts (policy strings are expanded again and again). */
const knownReferences = memoizeText(scanReferences, 20000, 1024);

/** Finds the outermost references of a string, in order. */
export function findReferences(text: string): readonly ReferenceSpan[] {
  if (!text.includes("$") && !text.includes("@")) return NO_SPANS;
  return knownReferences(text);
}

function scanReferences(text: string): readonly ReferenceSpan[] {
  const out: ReferenceSpan[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch !== 36 /* $ */ && ch !== 64 /* @ */) continue;
    const next = text.charCodeAt(i + 1);
    if (next !== 40 /* ( */ && next !== 123 /* { */) continue;
    const end = findClose(text, i + 1);
    if (end === -1) continue;
    out.push({ sigil: text[i] as "$" | "@", inner: text.slice(i + 2, end), start: i, end: end + 1 });
    i = end;
  }
  return out.length === 0 ? NO_SPANS : out;
}

/**
 * How deep brackets may nest in one reference, as in 3.21 (which logs "Stack
 * overflow in variable reference parsing" past it and leaves the text be).
 */
const MAX_REFERENCE_LEVELS = 9;

/** The index of the bracket closing the one at `open`, or -1 (also when nested too deep). */
function findClose(text: string, open: number): number {
  const opener = text[open];
  const closer = opener === "(" ? ")" : "}";
  let depth = 0;
  let levels = 0;
  for (let i = open; i < text.length; i++) {
    const ch = text[i];
    if (ch === "(" || ch === "{") {
      if (++levels > MAX_REFERENCE_LEVELS) return -1;
    } else if (ch === ")" || ch === "}") levels--;
    if (ch === opener) depth++;
    else if (ch === closer && --depth === 0) return i;
  }
  return -1;
}

export function hasUnresolvedReference(text: string): boolean {
  return findReferences(text).length > 0;
}

/** The key bindings use for a reference seen from the current frame. */
export function qualifiedName(ctx: EvalContext, refText: string): string {
  const ref = parseVarRef(refText);
  return `${ctx.scopeKey(ref)}.${lvalKey(ref.name, ref.indices)}`;
}

/** The iteration's value of a reference, if it is a bound list (no name is built without bindings). */
function boundValue(ctx: EvalContext, refText: string, options: ExpandOptions): string | undefined {
  const bindings = options.bindings;
  if (bindings === undefined || bindings.size === 0) return undefined;
  return bindings.get(qualifiedName(ctx, refText));
}

/** Expands every `$(...)` in a string; `@(...)` is left alone. */
export function expandString(ctx: EvalContext, text: string, options: ExpandOptions = {}): string {
  if (!text.includes("$")) return text;
  let out = "";
  let last = 0;
  for (const ref of findReferences(text)) {
    if (ref.sigil !== "$") continue;
    const inner = expandString(ctx, ref.inner, options);
    const value = lookupScalar(ctx, inner, options);
    const open = text[ref.start + 1];
    out += text.slice(last, ref.start);
    out += value ?? `$${open}${inner}${open === "(" ? ")" : "}"}`;
    last = ref.end;
  }
  return out + text.slice(last);
}

/** A reference's value as a string, if it is a scalar (or a bound list). */
export function lookupScalar(
  ctx: EvalContext,
  refText: string,
  options: ExpandOptions = {},
): string | undefined {
  if (hasUnresolvedReference(refText)) return undefined;
  const bound = boundValue(ctx, refText, options);
  if (bound !== undefined) return bound;
  const value = ctx.getVariable(parseVarRef(refText));
  if (!value || isList(value)) return undefined;
  if (value.type === "data") return primitiveToScalar(value.value);
  return value.value;
}

/** `@(x)` or `${x}`-free whole-string list reference: the inner text, else undefined. */
export function wholeListReference(text: string): string | undefined {
  const refs = findReferences(text);
  if (refs.length !== 1 || refs[0].sigil !== "@") return undefined;
  return refs[0].start === 0 && refs[0].end === text.length ? refs[0].inner : undefined;
}

/** The value a whole reference names, whatever its type (for `@(x)` and naked `$(x)`). */
export function lookupValue(
  ctx: EvalContext,
  refText: string,
  options: ExpandOptions = {},
): Value | undefined {
  const inner = expandString(ctx, refText, options);
  if (hasUnresolvedReference(inner)) return undefined;
  const bound = boundValue(ctx, inner, options);
  if (bound !== undefined) return scalar(bound);
  return ctx.getVariable(parseVarRef(inner));
}

/**
 * Evaluates a right-hand value. Strings are expanded (a whole `@(x)` gives
 * the list or data); lists splice `@(x)` items and list-valued calls; calls
 * go to the function registry. Undefined when a function call fails.
 */
export function expandRval(ctx: EvalContext, rval: Rval, options: ExpandOptions = {}): Value | undefined {
  switch (rval.kind) {
    case "string":
      return expandStringValue(ctx, rval.value, options);
    case "symbol":
      return scalar(rval.name);
    case "nakedvar":
      return expandStringValue(ctx, rval.text, options, true);
    case "list":
      return expandList(ctx, rval.items, options);
    case "call":
      return callFunction(ctx, rval, options);
  }
}

function expandStringValue(ctx: EvalContext, text: string, options: ExpandOptions, naked = false): Value {
  const listRef = wholeListReference(text);
  if (listRef !== undefined) return lookupValue(ctx, listRef, options) ?? scalar(text);
  if (naked) {
    const refs = findReferences(text);
    if (refs.length === 1 && refs[0].start === 0 && refs[0].end === text.length) {
      const value = lookupValue(ctx, refs[0].inner, options);
      if (
        value &&
        !isList(value) &&
        value.type === "data" &&
        (value.value === null || isJsonContainer(value.value))
      )
        return value;
    }
  }
  return scalar(expandString(ctx, text, options));
}

function expandList(ctx: EvalContext, items: readonly Rval[], options: ExpandOptions): Value | undefined {
  const out: string[] = [];
  for (const item of items) {
    const value = expandRval(ctx, item, options);
    if (!value) return undefined;
    const strings =
      value.type === "data" ? jsonToStrings(value.value) : isList(value) ? value.value : [value.value];
    if (strings) out.push(...strings);
  }
  return list(out);
}

/**
 * 3.21 expands a variable's value once more before storing it
 * (`EvaluateFinalRval`): `"$(const.dollar)(x)"` and a value that brings
 * `$(x)` (a function's result, another variable's text) both become x's
 * value once x is defined. Data containers are stored as they are.
 */
export function expandFinalValue(
  ctx: EvalContext,
  value: Value | undefined,
  options: ExpandOptions,
): Value | undefined {
  if (!value || value.type === "data") return value;
  if (isList(value)) {
    if (!value.value.some((item) => item.includes("$"))) return value;
    return { ...value, value: value.value.map((item) => expandString(ctx, item, options)) };
  }
  return value.value.includes("$") ? { ...value, value: expandString(ctx, value.value, options) } : value;
}
