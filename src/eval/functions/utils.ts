/**
 * Utility functions: the cf_version_* comparisons against this engine's
 * version (3.21.0), and splayclass (a class for a pseudo-random 5-minute
 * slot of the hour or day, derived from a string's hash).
 */
import { CF_VERSION } from "../sys-vars.js";
import type { Value } from "../values.js";
import { classResult, text } from "./args.js";
import { emitFunctionMessage } from "./messages.js";
import { type BuiltinFunction, type FunctionContext, defineFunction } from "./types.js";

type Comparison = -1 | 0 | 1;

/**
 * Compares this version with `other` on the (up to three) leading numbers
 * `other` starts with, read as `sscanf("%d.%d.%d")` reads them: `3` matches
 * any 3.x.y, `3.x` is `3`, `3.21.0.1` is `3.21.0`. Undefined when `other`
 * does not start with a number.
 */
export function compareVersion(mine: string, other: string): Comparison | undefined {
  const match = /^\s*([+-]?\d+)(?:\.\s*([+-]?\d+)(?:\.\s*([+-]?\d+))?)?/.exec(other);
  if (!match) return undefined;
  const have = mine.split(".").map(Number);
  const wanted = match.slice(1).filter((c) => c !== undefined);
  for (const [i, component] of wanted.entries()) {
    const a = have[i] ?? 0;
    const b = Number(component);
    if (a !== b) return a > b ? 1 : -1;
  }
  return 0;
}

function versionCheck(name: string, test: (c: Comparison) => boolean): BuiltinFunction {
  return defineFunction(name, 1, 1, ([version], fc) => {
    const comparison = checked(fc, text(version) ?? "");
    return comparison === undefined ? undefined : classResult(test(comparison));
  });
}

function checked(fc: FunctionContext, version: string): Comparison | undefined {
  const comparison = compareVersion(CF_VERSION, version);
  if (comparison === undefined) {
    const message = `${fc.call.name}: Format of version comparison string '${version}' is incorrect`;
    emitFunctionMessage(fc.ctx, "error", fc.call.name, message);
  }
  return comparison;
}

function versionBetween([low, high]: readonly Value[], fc: FunctionContext): Value | undefined {
  const lower = checked(fc, text(low) ?? "");
  const upper = lower === undefined ? undefined : checked(fc, text(high) ?? "");
  if (lower === undefined || upper === undefined) return undefined;
  return classResult(lower >= 0 && upper <= 0);
}

/** Jenkins' one-at-a-time hash over the UTF-8 bytes, as 3.21's `StringHash`. */
export function stringHash(input: string, seed = 0): number {
  let h = seed >>> 0;
  for (const byte of Buffer.from(input)) {
    h = (h + byte) >>> 0;
    h = (h + (h << 10)) >>> 0;
    h = (h ^ (h >>> 6)) >>> 0;
  }
  h = (h + (h << 3)) >>> 0;
  h = (h ^ (h >>> 11)) >>> 0;
  return (h + (h << 15)) >>> 0;
}

const SPLAY_SLOTS = 8192;
const two = (n: number) => String(n).padStart(2, "0");

/** The time class splayclass() tests: `MinAA_BB` for hourly, `MinAA_BB.HrCC` for daily. */
export function splayClassName(seed: string, policy: string): string {
  const hash = stringHash(seed) & (SPLAY_SLOTS - 1);
  if (policy === "hourly") {
    const slot = Math.floor((hash * 12) / SPLAY_SLOTS);
    return `Min${two(slot * 5)}_${two(((slot + 1) * 5) % 60)}`;
  }
  const daySlot = Math.floor((hash * 12 * 24) / SPLAY_SLOTS);
  const slot = daySlot % 12;
  return `Min${two(slot * 5)}_${two(((slot + 1) * 5) % 60)}.Hr${two(Math.floor(daySlot / 12))}`;
}

export const utilFunctions: readonly BuiltinFunction[] = [
  versionCheck("cf_version_minimum", (c) => c >= 0),
  versionCheck("cf_version_after", (c) => c > 0),
  versionCheck("cf_version_maximum", (c) => c <= 0),
  versionCheck("cf_version_before", (c) => c < 0),
  versionCheck("cf_version_at", (c) => c === 0),
  defineFunction("cf_version_between", 2, 2, versionBetween),
  defineFunction("splayclass", 2, 2, ([seed, policy], fc) =>
    classResult(fc.ctx.checkExpression(splayClassName(text(seed) ?? "", text(policy) ?? "daily"))),
  ),
];
