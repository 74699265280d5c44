/**
 * List functions: getvalues, getindices, filter, grep, sort, shuffle,
 * unique, reverse, sublist, difference, intersection, length, nth, sum,
 * product, mean, variance, min, max, every, some, none, type.
 *
 * Each reads its container through `collect` (a list, data, inline JSON or
 * a variable name) and sees the container's non-null primitive members, as
 * 3.21 does. A failure (unknown variable, bad regex...) gives undefined.
 */
import {
  type JsonValue,
  type Value,
  isJsonContainer,
  isScalar,
  list,
  primitiveToScalar,
  primitiveToString,
  scalar,
} from "../values.js";
import { BoxedNumber } from "../json-numbers.js";
import { formatReal } from "../numbers.js";
import { parseVarRef } from "../var-ref.js";
import { boolean, classResult, integer, text } from "./args.js";
import {
  byteRegex,
  collect,
  collectContainer,
  containerKeys,
  members,
  lookUpVariable,
  primitiveStrings,
  scalarStrings,
  variableLookup,
} from "./containers.js";
import { parseJsonText } from "./json-text.js";
import { leadingNumber, shuffleItems, sortItems, sortMode } from "./sorting.js";
import { type BuiltinFunction, type FunctionContext, defineFunction } from "./types.js";
import { inVariableTableOrder } from "./variable-order.js";

/** A function of one container argument's primitive strings, returning a list. */
function onItems(
  name: string,
  arity: [number, number],
  fn: (items: string[], args: readonly Value[]) => string[] | undefined,
  at = 0,
  view: (json: JsonValue) => string[] = primitiveStrings,
): BuiltinFunction {
  return defineFunction(name, arity[0], arity[1], (args, fc) => {
    const json = collectContainer(fc, args[at]);
    const out = json === undefined ? undefined : fn(view(json), args);
    return out ? list(out) : undefined;
  });
}

/** getvalues: every non-null primitive, nested ones included; a scalar is itself. */
function getValues([source]: readonly Value[], fc: FunctionContext): Value {
  const found = collect(fc, source, true);
  if (!found) return list([]);
  if (found.kind === "scalar") return list([found.text]);
  return list(leafStrings(found.json));
}

function leafStrings(json: JsonValue): string[] {
  const out: string[] = [];
  for (const member of members(json)) {
    if (isJsonContainer(member)) out.push(...leafStrings(member));
    else if (member !== null) out.push(primitiveToScalar(member) ?? "");
  }
  return out;
}

/**
 * getindices: the keys of a container (positions of an array); for a name
 * that is no container, the next index of every classic-array entry below
 * it, as 3.21's classic lookup (so `a[x]` = "1" and `a[x][y]` = "2" give
 * "y" for `a[x]`).
 */
function getIndices([source]: readonly Value[], fc: FunctionContext): Value {
  if (source && isScalar(source)) {
    const found = fc.ctx.getVariable(parseVarRef(source.value));
    if (found?.type !== "data") {
      // Only text starting with a bracket is inline JSON (3.21's parser refuses anything else).
      const bracketed = /^\s*[[{]/.test(source.value);
      const inline = bracketed ? parseJsonText(source.value, variableLookup(fc)) : undefined;
      if (inline === undefined || !isJsonContainer(inline)) {
        return list(classicIndices(fc, source.value));
      }
      return list(containerKeys(inline));
    }
  }
  const found = collect(fc, source);
  if (found?.kind !== "container" || found.fromList) return list([]);
  return list(containerKeys(found.json));
}

function classicIndices(fc: FunctionContext, name: string): string[] {
  const ref = parseVarRef(name);
  const scopeKey = fc.ctx.scopeKey(ref);
  const colon = scopeKey.indexOf(":");
  // Only entries of this array are parsed: a scope can hold thousands of others.
  const start = `${ref.name}[`;
  const entries = [...fc.ctx.scopeEntries(scopeKey.slice(0, colon), scopeKey.slice(colon + 1)).keys()]
    .filter((lval) => lval.startsWith(start))
    .map((lval) => ({ scopeKey, lval, ref: parseVarRef(lval) }))
    .filter(
      (e) =>
        e.ref.name === ref.name &&
        e.ref.indices.length > ref.indices.length &&
        ref.indices.every((index, i) => e.ref.indices[i] === index),
    );
  const out = new Set<string>();
  for (const entry of inVariableTableOrder(fc.ctx, entries)) out.add(entry.ref.indices[ref.indices.length]);
  return [...out];
}

function filterItems(items: string[], [pattern, , isRegex, invert, max]: readonly Value[]) {
  const needle = text(pattern) ?? "";
  const regexMode = boolean(isRegex);
  const inverted = boolean(invert);
  const limit = integer(max);
  if (regexMode === undefined || inverted === undefined || limit === undefined) return undefined;
  const test = regexMode ? byteRegex(needle, true) : (s: string) => s === needle;
  if (!test) return undefined;
  return items.filter((s) => test(s) !== inverted).slice(0, Math.max(0, limit));
}

function grepItems(items: string[], [pattern]: readonly Value[]) {
  const test = byteRegex(text(pattern) ?? "", true);
  return test ? items.filter(test) : undefined;
}

function sortArgs(items: string[], [, mode]: readonly Value[]) {
  const found = sortMode(mode === undefined ? "lex" : (text(mode) ?? ""));
  return found ? sortItems(items, found) : undefined;
}

function sublistItems(items: string[], [, where, count]: readonly Value[]) {
  const n = integer(count);
  const side = text(where);
  if (n === undefined || (side !== "head" && side !== "tail")) return undefined;
  return side === "head" ? items.slice(0, n) : items.slice(Math.max(0, items.length - n));
}

/** difference and intersection: unique items of the first kept by membership in the second. */
function setFunction(name: string, keep: boolean): BuiltinFunction {
  return defineFunction(name, 2, 2, ([a, b], fc) => {
    const base = collectContainer(fc, a);
    const other = collectContainer(fc, b);
    if (base === undefined || other === undefined) return undefined;
    const against = new Set(primitiveStrings(other));
    const kept = primitiveStrings(base).filter((s) => against.has(s) === keep);
    return list([...new Set(kept)]);
  });
}

function lengthOf([source]: readonly Value[], fc: FunctionContext): Value | undefined {
  const json = collectContainer(fc, source);
  return json === undefined ? undefined : scalar(String(containerKeys(json).length), "int");
}

function nthOf([source, position]: readonly Value[], fc: FunctionContext): Value | undefined {
  const json = collectContainer(fc, source);
  const key = text(position);
  if (json === undefined || key === undefined) return undefined;
  let member: JsonValue | undefined;
  if (Array.isArray(json)) {
    const index = /^-?\d+$/.test(key.trim()) ? Number(key) : Number.NaN;
    member = Number.isNaN(index) ? undefined : json.at(index);
  } else if (isJsonContainer(json)) {
    member = Object.hasOwn(json, key) ? json[key] : undefined;
  }
  if (member === undefined || isJsonContainer(member)) return undefined;
  return scalar(primitiveToString(member) ?? "");
}

/** A numeric fold over the members; non-numbers count as 0, as `strtod` leaves them. */
function numeric(name: string, fold: (numbers: number[]) => number | undefined): BuiltinFunction {
  return defineFunction(name, 1, 1, ([source], fc) => {
    const json = collectContainer(fc, source);
    if (json === undefined) return undefined;
    const numbers = scalarStrings(json).map((s) => leadingNumber(s) ?? 0);
    const result = fold(numbers);
    return result === undefined ? undefined : scalar(formatReal(result), "real");
  });
}

function mean(numbers: number[]): number | undefined {
  return numbers.length === 0 ? undefined : numbers.reduce((a, b) => a + b, 0) / numbers.length;
}

function variance(numbers: number[]): number | undefined {
  const average = mean(numbers);
  if (average === undefined) return undefined;
  if (numbers.length === 1) return 0;
  return numbers.reduce((acc, n) => acc + (n - average) ** 2, 0) / (numbers.length - 1);
}

function extreme(name: string, last: boolean): BuiltinFunction {
  return defineFunction(name, 2, 2, ([source, mode], fc) => {
    const json = collectContainer(fc, source);
    const found = sortMode(text(mode) ?? "");
    if (json === undefined || !found) return undefined;
    const sorted = sortItems(scalarStrings(json), found);
    if (sorted.length === 0) return undefined;
    return scalar(last ? sorted[sorted.length - 1] : sorted[0]);
  });
}

function quantifier(name: string, holds: (hits: number, total: number) => boolean): BuiltinFunction {
  return defineFunction(name, 2, 2, ([pattern, source], fc) => {
    const json = collectContainer(fc, source);
    const test = byteRegex(text(pattern) ?? "", true);
    if (json === undefined || !test) return undefined;
    const items = scalarStrings(json);
    return classResult(holds(items.filter(test).length, items.length));
  });
}

/** type(): 3.21's name of a variable's type; with detail, "policy <type>" or "data <kind>". */
function typeName(value: Value | undefined, detail: boolean): string {
  if (!value) return detail ? "policy none" : "none";
  if (value.type !== "data") return detail ? `policy ${value.type}` : value.type;
  const json = value.value;
  if (!detail) return "data";
  if (json === null) return "data null";
  if (Array.isArray(json)) return "data array";
  if (json instanceof BoxedNumber) return json.real ? "data real" : "data int";
  if (typeof json === "number") return Number.isInteger(json) ? "data int" : "data real";
  return `data ${typeof json}`;
}

function typeOf([name, detail]: readonly Value[], fc: FunctionContext): Value {
  const value = name && isScalar(name) ? lookUpVariable(fc, name.value) : name;
  return scalar(typeName(value, boolean(detail) ?? false));
}

export const collectionFunctions: readonly BuiltinFunction[] = [
  defineFunction("getvalues", 1, 1, getValues),
  defineFunction("getindices", 1, 1, getIndices),
  onItems("filter", [5, 5], filterItems, 1, scalarStrings),
  onItems("grep", [2, 2], grepItems, 1, scalarStrings),
  onItems("sort", [1, 2], sortArgs),
  onItems("shuffle", [2, 2], (items, [, seed]) => shuffleItems(items, text(seed) ?? "")),
  onItems("unique", [1, 1], (items) => [...new Set(items)]),
  onItems("reverse", [1, 1], (items) => [...items].reverse()),
  onItems("sublist", [3, 3], sublistItems),
  setFunction("difference", false),
  setFunction("intersection", true),
  defineFunction("length", 1, 1, lengthOf),
  defineFunction("nth", 2, 2, nthOf),
  numeric("sum", (ns) => ns.reduce((a, b) => a + b, 0)),
  numeric("product", (ns) => ns.reduce((a, b) => a * b, 1)),
  numeric("mean", mean),
  numeric("variance", variance),
  extreme("min", false),
  extreme("max", true),
  quantifier("every", (hits, total) => total > 0 && hits === total),
  quantifier("some", (hits) => hits > 0),
  quantifier("none", (hits) => hits === 0),
  defineFunction("type", 1, 2, typeOf),
];
