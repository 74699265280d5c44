/**
 * Numeric and ordering functions: abs, ceiling, floor, round, max, min,
 * compare, versioncmp. String arguments are converted with Ruby's rules
 * (and Puppet's deprecation warnings) where Puppet still accepts them.
 */
import { type CallContext, FunctionArgumentError, type PuppetFunction } from "../registry.js";
import { type PCallable, PObject, type PValue } from "../../values.js";
import { dispatcher, opt, p, rep, blk, type Signature } from "./dispatch.js";
import { T, actualClass, isFloat, isInteger, isString } from "./spec.js";
import { rubyToS } from "./ruby-text.js";

/** Ruby's `Float(s)`: decimal, exponent, underscores between digits, hex; undefined when not a number. */
export function rubyFloatParse(s: string): number | undefined {
  const t = s.trim();
  if (/^[-+]?0[xX][0-9a-fA-F]+(_[0-9a-fA-F]+)*$/.test(t)) return Number.parseInt(t.replace(/_/g, ""), 16);
  if (!/^[-+]?\d+(_\d+)*(\.\d+(_\d+)*)?([eE][-+]?\d+)?$/.test(t)) return undefined;
  return Number(t.replace(/_/g, ""));
}

function cmpNum(a: bigint | number, b: bigint | number): number {
  if (typeof a === "bigint" && typeof b === "bigint") return a < b ? -1 : a > b ? 1 : 0;
  const x = Number(a);
  const y = Number(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Ruby's String#<=> (bytewise on UTF-8). */
export function cmpStr(a: string, b: string): number {
  const c = Buffer.compare(Buffer.from(a), Buffer.from(b));
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

function toInteger(n: number): bigint {
  if (!Number.isFinite(n)) throw new FunctionArgumentError(rubyFloatText(n));
  return BigInt(Math.trunc(n));
}

function rubyFloatText(n: number): string {
  return Number.isNaN(n) ? "NaN" : n > 0 ? "Infinity" : "-Infinity";
}

function warnOnce(ctx: CallContext, msg: string): void {
  ctx.warn(msg);
}

export const abs = dispatcher("abs", [
  {
    params: [p("val", T.numeric)],
    call: (_c, [x]) => (isInteger(x) ? (x < 0n ? -x : x) : Math.abs(x as number)),
  },
  {
    params: [p("val", T.string)],
    call: (ctx, [x]) => {
      warnOnce(
        ctx,
        "The abs() function's auto conversion of String to Numeric is deprecated - change to convert input before calling",
      );
      const s = x as string;
      if (/^-?(?:\d+)(?:\.\d+){1}$/m.test(s)) return Math.abs(Number.parseFloat(s));
      if (/^-?\d+$/m.test(s)) {
        const i = BigInt((/^-?\d+/.exec(s) as RegExpExecArray)[0]);
        return i < 0n ? -i : i;
      }
      throw new FunctionArgumentError(
        "abs(): Requires float or integer to work with - was given non decimal string",
      );
    },
  },
]);

function rounding(name: "ceiling" | "floor", f: (n: number) => number): PuppetFunction {
  const what = name === "ceiling" ? "ceiling" : "floor";
  return dispatcher(name, [
    { params: [p("val", T.numeric)], call: (_c, [x]) => (isInteger(x) ? x : toInteger(f(x as number))) },
    {
      params: [p("val", T.string)],
      call: (ctx, [x]) => {
        warnOnce(
          ctx,
          `The ${what}() function's auto conversion of String to Float is deprecated - change to convert input before calling`,
        );
        const n = rubyFloatParse(x as string);
        if (n === undefined)
          throw new FunctionArgumentError(`${what}(): cannot convert given value to a floating point value.`);
        return toInteger(f(n));
      },
    },
  ]);
}

export const ceiling = rounding("ceiling", Math.ceil);
export const floor = rounding("floor", Math.floor);

export const round = dispatcher("round", [
  {
    params: [p("val", T.numeric)],
    call: (_c, [x]) =>
      isInteger(x) ? x : toInteger((x as number) > 0 ? (x as number) + 0.5 : (x as number) - 0.5),
  },
]);

const NUMLIKE_A = /^-?\d+([._eE]\d+)?$/;

/** Ruby's `to_f` of a numeric-looking string. */
function toF(s: string): number {
  const m = /^\s*[-+]?(\d+(_\d+)*)?(\.\d+)?([eE][-+]?\d+)?/.exec(s);
  const n = Number((m?.[0] ?? "").replace(/_/g, ""));
  return Number.isNaN(n) ? 0 : n;
}

type Cmp = (a: PValue, b: PValue) => number;

/** Ruby's max/min: keeps the first of equal elements. */
function extreme(values: readonly PValue[], cmp: Cmp, sign: 1 | -1): PValue {
  let best = values[0];
  for (let i = 1; i < values.length; i++) if (cmp(values[i], best) * sign > 0) best = values[i];
  return best;
}

function blockCmp(block: PCallable): Cmp {
  return (a, b) => {
    const r = block.call([a, b]);
    if (typeof r === "bigint") return r < 0n ? -1 : r > 0n ? 1 : 0;
    if (typeof r === "number") return Math.sign(r);
    throw new FunctionArgumentError(`comparison of ${actualClass(a)} with ${actualClass(b)} failed`);
  };
}

function extremeFunction(name: "max" | "min"): PuppetFunction {
  const sign = name === "max" ? 1 : -1;
  const needOne = (args: readonly PValue[]) => {
    if (args.length === 0)
      throw new FunctionArgumentError(`${name}(): Wrong number of arguments need at least one`);
  };
  const numeric = (args: readonly PValue[]) => {
    needOne(args);
    return extreme(args, (a, b) => cmpNum(a as bigint, b as bigint), sign);
  };
  const strings = (ctx: CallContext, args: readonly PValue[]) => {
    needOne(args);
    return extreme(
      args,
      (a, b) => {
        if (NUMLIKE_A.test(a as string) && NUMLIKE_A.test(b as string)) {
          warnOnce(
            ctx,
            `The ${name}() function's auto conversion of String to Numeric is deprecated - change to convert input before calling, or use lambda`,
          );
          return cmpNum(toF(a as string), toF(b as string));
        }
        return cmpStr(a as string, b as string);
      },
      sign,
    );
  };
  const anys = (ctx: CallContext, args: readonly PValue[]) => {
    needOne(args);
    return extreme(
      args,
      (a, b) => {
        const as = rubyToS(a);
        const bs = rubyToS(b);
        if (NUMLIKE_A.test(as) && NUMLIKE_A.test(bs)) {
          warnOnce(
            ctx,
            `The ${name}() function's auto conversion of String to Numeric is deprecated - change to convert input before calling, or use lambda`,
          );
          return cmpNum(toF(as), toF(bs));
        }
        warnOnce(
          ctx,
          `The ${name}() function's auto conversion of Any to String is deprecated - change to convert input before calling, or use lambda`,
        );
        return cmpStr(as, bs);
      },
      sign,
    );
  };
  const withBlock = (args: readonly PValue[], b: PCallable) => extreme(args, blockCmp(b), sign);
  const single =
    (f: (ctx: CallContext, a: readonly PValue[]) => PValue): Signature["call"] =>
    (ctx, [a], b) =>
      b ? withBlock(a as PValue[], b) : f(ctx, a as PValue[]);
  return dispatcher(name, [
    { params: [rep("values", T.numeric)], call: (_c, args) => numeric(args) },
    { params: [rep("values", T.string)], call: (ctx, args) => strings(ctx, args) },
    {
      params: [p("values", T.arrayOf(T.numeric))],
      block: blk(2, 2, true),
      call: single((_c, a) => numeric(a)),
    },
    { params: [p("values", T.arrayOf(T.string))], block: blk(2, 2, true), call: single(strings) },
    { params: [p("values", T.array)], block: blk(2, 2, true), call: single(anys) },
    { params: [rep("values", T.any)], block: blk(2), call: (_c, args, b) => withBlock(args, b as PCallable) },
    { params: [rep("values", T.any)], call: (ctx, args) => anys(ctx, args) },
  ]);
}

export const max = extremeFunction("max");
export const min = extremeFunction("min");

/** Ruby's casecmp: ASCII letters folded, then bytewise. */
function casecmp(a: string, b: string): number {
  const fold = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
  return cmpStr(fold(a), fold(b));
}

function typeLabel(v: PValue): string {
  if (v === undefined) return "Undef Value";
  if (Array.isArray(v)) return "Array";
  if (typeof v === "object" && v !== null && "isPuppetType" in v) return `${String(v)}-Type`;
  return actualClass(v).replace(/^(Tuple|Struct)$/, (m) => (m === "Tuple" ? "Array" : "Hash"));
}

/** Compares Timespans, Timestamps and SemVers (a time also with a number of seconds). */
function objectCompare(a: PValue, b: PValue): PValue {
  const o = a as unknown as { compare?: (x: PValue) => number; toFloat?: () => number };
  if (typeof b === "bigint" || typeof b === "number") return BigInt(cmpNum(o.toFloat?.() ?? 0, b));
  if (typeof o.compare !== "function")
    throw new FunctionArgumentError("compare(): these values cannot be compared");
  return BigInt(Math.sign(o.compare(b)));
}

const timeish = T.variant(T.timespan, T.timestamp);
const comparable = T.variant(T.string, T.semver, T.numeric, T.timespan, T.timestamp);

export const compare = dispatcher("compare", [
  {
    params: [p("a", T.numeric), p("b", T.numeric)],
    call: (_c, [a, b]) => BigInt(cmpNum(a as bigint, b as bigint)),
  },
  {
    params: [p("a", T.string), p("b", T.string), opt("ignore_case", T.boolean)],
    call: (_c, [a, b, ic]) =>
      BigInt(ic === false ? cmpStr(a as string, b as string) : casecmp(a as string, b as string)),
  },
  { params: [p("a", T.semver), p("b", T.semver)], call: (_c, [a, b]) => objectCompare(a, b) },
  { params: [p("a", T.numeric), p("b", timeish)], call: (_c, [a, b]) => -(objectCompare(b, a) as bigint) },
  {
    params: [p("a", T.timestamp), p("b", T.variant(T.timestamp, T.numeric))],
    call: (_c, [a, b]) => objectCompare(a, b),
  },
  {
    params: [p("a", T.timespan), p("b", T.variant(T.timespan, T.numeric))],
    call: (_c, [a, b]) => objectCompare(a, b),
  },
  {
    params: [p("a", comparable), p("b", comparable), rep("ignore_case", T.any)],
    mismatch: true,
    call: (_c, [a, b, ...ic]) => {
      if (ic.length > 0) {
        if (!(isString(a) && isString(b)))
          return "compare(): The third argument (ignore case) can only be used when comparing strings";
        if (ic.length !== 1) return `compare(): Accepts at most 3 arguments, got ${2 + ic.length}`;
        if (typeof ic[0] !== "boolean")
          return `compare(): The third argument (ignore case) must be a Boolean. Got ${typeLabel(ic[0])}`;
      }
      if (rubyClass(a) !== rubyClass(b))
        return `compare(): Can only compare values of the same type (or for Timestamp/Timespan also against Numeric). Got ${typeLabel(a)} and ${typeLabel(b)}`;
      return undefined;
    },
  },
  {
    params: [p("a", T.any), p("b", T.any), rep("ignore_case", T.any)],
    mismatch: true,
    call: (_c, [a, b]) =>
      `compare(): Non comparable type. Only values of the types Numeric, String, Semver, Timestamp and Timestamp can be compared. Got ${typeLabel(a)} and ${typeLabel(b)}`,
  },
]);

function rubyClass(v: PValue): string {
  if (isInteger(v)) return "Integer";
  if (isFloat(v)) return "Float";
  if (v instanceof PObject) return v.typeName;
  return typeof v;
}

/** Puppet's versioncmp (Puppet::Util::Package). */
export function versionCompare(a0: string, b0: string, ignoreTrailingZeroes: boolean): number {
  let a = a0;
  let b = b0;
  if (ignoreTrailingZeroes) {
    a = normalizeVersion(a);
    b = normalizeVersion(b);
  }
  const vre = /[-.]|\d+|[^-.\d]+/g;
  const ax = a.match(vre) ?? [];
  const bx = b.match(vre) ?? [];
  while (ax.length > 0 && bx.length > 0) {
    const x = ax.shift() as string;
    const y = bx.shift() as string;
    if (x === y) continue;
    if (x === "-") return -1;
    if (y === "-") return 1;
    if (x === ".") return -1;
    if (y === ".") return 1;
    if (/^\d+$/.test(x) && /^\d+$/.test(y)) {
      if (x.startsWith("0") || y.startsWith("0")) return cmpStr(x.toUpperCase(), y.toUpperCase());
      return cmpNum(BigInt(x), BigInt(y));
    }
    return cmpStr(x.toUpperCase(), y.toUpperCase());
  }
  return cmpStr(a, b);
}

function normalizeVersion(v: string): string {
  const parts = v.split("-");
  parts[0] = (parts[0] ?? "").replace(/([.0]+)$/, "");
  return parts.join("-");
}

export const versioncmp = dispatcher("versioncmp", [
  {
    params: [p("a", T.string), p("b", T.string), opt("ignore_trailing_zeroes", T.boolean)],
    call: (_c, [a, b, z]) => BigInt(versionCompare(a as string, b as string, z === true)),
  },
]);
