/**
 * Arithmetic functions: eval, int, irange, rrange, randomint,
 * isgreaterthan, islessthan, and the folds max, min, mean, variance, sum,
 * product. Numbers are read and printed as 3.21 does (see numbers.ts).
 */
import { type Value, scalar } from "../values.js";
import { classResult, collection, collectionStrings, text } from "./args.js";
import { CLOSE_ENOUGH, evaluateMath } from "./math-expression.js";
import { emitFunctionMessage } from "./messages.js";
import {
  doubleFromString,
  formatDouble,
  intFromString,
  isRealNumber,
  scanDouble,
  toInt32,
  truncateToInt64,
} from "./numbers.js";
import { ipSortKey, macSortKey } from "./sorting.js";
import { type BuiltinFunction, type FunctionContext, defineFunction } from "./types.js";
import { compareBytes } from "../../text/byte-order.js";

function evalFunction([input, mode]: readonly Value[], fc: FunctionContext): Value | undefined {
  const expression = text(input);
  if (expression === undefined) return undefined;
  const result = evaluateMath(expression);
  if (!result.ok) {
    emitFunctionMessage(fc.ctx, "info", "eval", `eval error: ${result.error} (input '${expression}')`);
  }
  if (text(mode) === "class") {
    return classResult(result.ok && !(result.value < CLOSE_ENOUGH && result.value > -CLOSE_ENOUGH));
  }
  // 3.21 answers a parse error with an empty string, not a failure.
  return scalar(result.ok ? formatDouble(result.value) : "");
}

function randomInt([low, high]: readonly Value[]): Value | undefined {
  const a = intFromString(text(low) ?? "");
  const b = intFromString(text(high) ?? "");
  if (a === undefined || b === undefined) return undefined;
  // The bounds are C ints: wider values wrap.
  const from = Math.min(toInt32(a), toInt32(b));
  const to = Math.max(toInt32(a), toInt32(b));
  return scalar(String(from + Math.floor(Math.random() * (to - from))), "int");
}

function intRange([low, high]: readonly Value[]): Value | undefined {
  // `now` is the time the agent started in 3.21: close enough to this moment.
  const now = Date.now() / 1000;
  const a = intFromString(text(low) ?? "", now);
  const b = intFromString(text(high) ?? "", now);
  if (a === undefined || b === undefined) return undefined;
  return scalar(a > b ? `${b},${a}` : `${a},${b}`);
}

function realRange([low]: readonly Value[]): Value | undefined {
  // 3.21 reads both bounds from the first argument, so the range is a point.
  const from = doubleFromString(text(low) ?? "");
  if (from === undefined) return undefined;
  return scalar(`${formatDouble(from)},${formatDouble(from)}`);
}

function compare(name: string, greater: boolean): BuiltinFunction {
  return defineFunction(name, 2, 2, ([left, right]) => {
    const a = text(left) ?? "";
    const b = text(right) ?? "";
    if (isRealNumber(a) && isRealNumber(b)) {
      const x = doubleFromString(a);
      const y = doubleFromString(b);
      if (x === undefined || y === undefined) return undefined;
      return classResult(greater ? x > y : x < y);
    }
    const order = compareBytes(a, b);
    return classResult(greater ? order > 0 : order < 0);
  });
}

/** `sscanf("%lf")` with 0 for non-numbers, as the numeric folds read items. */
function leadingNumber(item: string): number {
  return scanDouble(item)?.value ?? 0;
}

function numericFold(name: string, fold: (items: number[]) => number | undefined): BuiltinFunction {
  return defineFunction(name, 1, 1, ([source], fc) => {
    const items = foldItems(fc, source);
    const result = items && fold(items.map(leadingNumber));
    return result === undefined ? undefined : scalar(formatDouble(result), "real");
  });
}

function foldItems(fc: FunctionContext, source: Value | undefined): string[] | undefined {
  const values = collection(fc, source);
  return values ? collectionStrings(values) : undefined;
}

/** Welford's running mean and variance, in 3.21's order of operations. */
function welford(items: number[]): { mean: number; m2: number } {
  let mean = 0;
  let m2 = 0;
  items.forEach((x, i) => {
    const delta = x - mean;
    mean += delta / (i + 1);
    m2 += delta * (x - mean);
  });
  return { mean, m2 };
}

function extreme(name: string, wantMax: boolean): BuiltinFunction {
  return defineFunction(name, 2, 2, ([source, mode], fc) => {
    const items = foldItems(fc, source);
    const sortMode = text(mode) ?? "lex";
    if (!items || items.length === 0) return undefined;
    let best = items[0];
    for (const item of items.slice(1)) {
      const replace = wantMax ? itemLess(sortMode, best, item) : !itemLess(sortMode, best, item);
      if (replace) best = item;
    }
    return scalar(best);
  });
}

/** 3.21's `GenericStringItemLess`: int, real, IP, MAC or lexical order; unparsable items sort first. */
export function itemLess(mode: string, a: string, b: string): boolean {
  const lower = mode.toLowerCase();
  if (mode === "int" || mode === "real") return numberLess(a, b, mode === "int");
  if (lower === "ip") return parsedLess(a, b, ipSortKey);
  if (lower === "mac") return parsedLess(a, b, macSortKey);
  return compareBytes(a, b) < 0;
}

function numberLess(a: string, b: string, intMode: boolean): boolean {
  const x = scanDouble(a)?.value;
  const y = scanDouble(b)?.value;
  if (x !== undefined && y !== undefined) {
    return intMode ? truncateToInt64(x) - truncateToInt64(y) < 0n : x - y < 0;
  }
  return parsedLessFallback(x !== undefined, y !== undefined, a, b);
}

function parsedLess(a: string, b: string, parse: (s: string) => number[] | undefined): boolean {
  const x = parse(a);
  const y = parse(b);
  if (x && y) {
    const diff = x.findIndex((byte, i) => byte !== y[i]);
    if (diff !== -1 || x.length !== y.length) return diff === -1 ? x.length < y.length : x[diff] < y[diff];
  }
  return parsedLessFallback(x !== undefined, y !== undefined, a, b);
}

function parsedLessFallback(left: boolean, right: boolean, a: string, b: string): boolean {
  if (left) return false;
  if (right) return true;
  return compareBytes(a, b) < 0;
}

/** The 16 bytes of an IPv6 address in text form. */
export function expandIpv6(s: string): number[] {
  const [head, tail = ""] = s.split("::");
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const left = groups(head);
  const right = s.includes("::") ? groups(tail) : [];
  const words = [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return words.flatMap((w) => {
    const n = Number.parseInt(w, 16);
    return [n >> 8, n & 255];
  });
}

export const mathFunctions: readonly BuiltinFunction[] = [
  defineFunction("eval", 1, 3, evalFunction),
  defineFunction("int", 1, 1, ([value]) => {
    const parsed = doubleFromString(text(value) ?? "");
    return parsed === undefined ? undefined : scalar(truncateToInt64(parsed).toString(), "int");
  }),
  defineFunction("irange", 2, 2, intRange),
  defineFunction("rrange", 2, 2, realRange),
  defineFunction("randomint", 2, 2, randomInt),
  compare("isgreaterthan", true),
  compare("islessthan", false),
];

/**
 * The numeric folds; the list family may register its own, so these are
 * registered early and give way to a later registration.
 */
export const foldFunctions: readonly BuiltinFunction[] = [
  extreme("max", true),
  extreme("min", false),
  numericFold("mean", (items) => (items.length === 0 ? undefined : welford(items).mean)),
  numericFold("variance", (items) => {
    if (items.length === 0) return undefined;
    return items.length === 1 ? 0 : welford(items).m2 / (items.length - 1);
  }),
  numericFold("sum", (items) => items.reduce((a, b) => a + b, 0)),
  numericFold("product", (items) => items.reduce((a, b) => a * b, 1)),
];
