/**
 * `T.new(args)` (Puppet's `new` function and `T(args)` calls): the
 * conversions of each type. Strings go through the string converter
 * (strconv.ts) with its format strings.
 */
import { newUserObject, PUserObjectType } from "./user-objects.js";
import {
  DEFAULT,
  isHash,
  PBinary,
  PDeferred,
  PHash,
  PIterator,
  PRegexp,
  PSensitive,
  type PValue,
} from "../values.js";
import { badKeyTypeName } from "./access.js";
import { describeMismatch } from "./mismatch.js";
import {
  PEnumType,
  PInitType,
  PIntegerType,
  PObjectType,
  type PNotUndefType,
  type POptionalType,
  type PType,
  PTypeAliasType,
  TypeSystemError,
  compileRubyRegexp,
} from "./model.js";
import {
  parseSemVerRange,
  parseTimespan,
  parseTimestamp,
  PuppetError,
  PuppetURI,
  SemVer,
  SemVerRange,
  Timespan,
  Timestamp,
} from "./objects.js";
import { stringFormat } from "./strconv.js";

export { stringFormat };

/** Thrown for a failed conversion: the evaluator reports it as Puppet's `new` error. */
export class TypeConversionError extends TypeSystemError {}

function fail(msg: string): never {
  throw new TypeConversionError(msg);
}

/** Ruby's Integer(str[, radix]): optional sign, prefixes 0x/0b/0o/0 (octal) and underscores between digits. */
export function rubyInteger(str: string, radix?: number): bigint | undefined {
  const m = /^\s*([+-]?)(.*?)\s*$/s.exec(str) as RegExpExecArray;
  const neg = m[1] === "-";
  let body = m[2] as string;
  let r = radix;
  const pre = /^0([xXbBoOdD])/.exec(body);
  if (pre) {
    const p = (pre[1] as string).toLowerCase();
    const pr = p === "x" ? 16 : p === "b" ? 2 : p === "o" ? 8 : 10;
    if (r === undefined || r === pr) {
      r = pr;
      body = body.slice(2);
    }
  } else if (r === undefined && /^0[0-9_]/.test(body)) {
    r = 8;
    body = body.slice(1);
  }
  r ??= 10;
  const digit = { 2: "[01]", 8: "[0-7]", 10: "[0-9]", 16: "[0-9a-fA-F]" }[r as 2 | 8 | 10 | 16];
  if (!digit || !new RegExp(`^${digit}+(?:_${digit}+)*$`).test(body)) return undefined;
  const clean = body.replace(/_/g, "");
  const prefix = { 2: "0b", 8: "0o", 10: "", 16: "0x" }[r as 2 | 8 | 10 | 16];
  const v = BigInt(prefix + clean);
  return neg ? -v : v;
}

const INTEGER_LENIENT = /^[+-]?\s*(?:\d+|0[xX][0-9A-Fa-f]+|0[bB][01]+)$/;
const FLOAT_PATTERN =
  /^[+-]?\s*(?:(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE]-?\d+)?|0[xX][0-9A-Fa-f]+|0[0-7]+|0[bB][01]+)$/;
const WS_BETWEEN_SIGN = /^([+-])\s+(.*)$/s;

/** Ruby's Float(str): decimal with optional fraction and exponent, or hex; underscores between digits. */
function rubyFloatParse(str: string): number | undefined {
  const t = str.trim();
  if (/^[+-]?0[xX][0-9a-fA-F]+$/.test(t)) return Number(rubyInteger(t));
  if (!/^[+-]?\d+(?:_\d+)*(?:\.\d+(?:_\d+)*)?(?:[eE][+-]?\d+)?$/.test(t)) return undefined;
  return Number(t.replace(/_/g, ""));
}

function conversionError(fn: string, from: PValue, what: string): never {
  if (typeof from === "string") fail(`'${fn}' The string '${from}' cannot be converted to ${what}`);
  return fail(`'${fn}' Value of type ${badKeyTypeName(from)} cannot be converted to ${what}`);
}

function isRadix(v: PValue): boolean {
  return v === DEFAULT || v === 2n || v === 8n || v === 10n || v === 16n;
}

const isTime = (v: PValue): v is Timespan | Timestamp => v instanceof Timespan || v instanceof Timestamp;

function newInteger(args: readonly PValue[]): bigint {
  let [from, radix, abs] = args;
  if (args.length === 1 && isHash(from)) {
    const h = from;
    from = h.get("from");
    radix = h.has("radix") ? h.get("radix") : DEFAULT;
    abs = h.get("abs");
  }
  radix ??= DEFAULT;
  const convertible =
    typeof from === "bigint" ||
    typeof from === "number" ||
    typeof from === "boolean" ||
    (typeof from === "string" && INTEGER_LENIENT.test(from)) ||
    isTime(from);
  if (!convertible || !isRadix(radix) || (abs !== undefined && typeof abs !== "boolean")) {
    if (typeof radix === "bigint" && !isRadix(radix))
      fail(`Illegal radix: ${radix}, expected 2, 8, 10, 16, or default`);
    if (radix !== DEFAULT && typeof radix !== "bigint")
      fail(
        `The function 'new' was called with arguments it does not accept (radix: ${badKeyTypeName(radix)})`,
      );
    conversionError("new", from, "Integer");
  }
  const r = radix === DEFAULT ? undefined : Number(radix);
  let n: bigint;
  if (typeof from === "bigint") n = from;
  else if (typeof from === "number") n = BigInt(Math.trunc(from));
  else if (typeof from === "boolean") n = from ? 1n : 0n;
  else if (isTime(from)) n = BigInt(Math.trunc(from.toFloat()));
  else {
    const s = from as string;
    let v = rubyInteger(s, r);
    if (v === undefined) {
      const m = WS_BETWEEN_SIGN.exec(s);
      if (m) v = rubyInteger(`${m[1]}${m[2]}`, r);
    }
    if (v === undefined) fail(`invalid value for Integer(): ${JSON.stringify(s)}`);
    n = v;
  }
  return abs === true && n < 0n ? -n : n;
}

function numericArgs(args: readonly PValue[]): [PValue, PValue] {
  const [from, abs] = args;
  if (args.length === 1 && isHash(from)) return [from.get("from"), from.get("abs")];
  return [from, abs];
}

function floatConvertible(from: PValue): boolean {
  return (
    typeof from === "bigint" ||
    typeof from === "number" ||
    typeof from === "boolean" ||
    (typeof from === "string" && FLOAT_PATTERN.test(from)) ||
    isTime(from)
  );
}

function newFloat(args: readonly PValue[]): number {
  const [from, abs] = numericArgs(args);
  if (!floatConvertible(from)) conversionError("new_float", from, "Float");
  let n: number;
  if (typeof from === "bigint") n = Number(from);
  else if (typeof from === "number") n = from;
  else if (typeof from === "boolean") n = from ? 1 : 0;
  else if (isTime(from)) n = from.toFloat();
  else {
    let s = from as string;
    if (/^0[bB]/.test(s)) s = String(rubyInteger(s));
    let v = rubyFloatParse(s);
    if (v === undefined) {
      const m = WS_BETWEEN_SIGN.exec(s);
      if (m) v = rubyFloatParse(`${m[1]}${m[2]}`);
    }
    if (v === undefined) fail(`invalid value for Float(): ${JSON.stringify(s)}`);
    n = v;
  }
  return abs === true ? Math.abs(n) : n;
}

function newNumeric(args: readonly PValue[]): bigint | number {
  const [from, abs] = numericArgs(args);
  if (!floatConvertible(from)) conversionError("new_numeric", from, "Numeric");
  let n: bigint | number;
  if (typeof from === "bigint" || typeof from === "number") n = from;
  else if (typeof from === "boolean") n = from ? 1n : 0n;
  else if (isTime(from)) n = from.toFloat();
  else {
    const s = (from as string).trim();
    const m = /^([-+]?)\s*(.*)$/s.exec(s) as RegExpExecArray;
    const body = m[2] as string;
    let v: bigint | number | undefined;
    if (/^0[bBxX]/.test(body)) v = rubyInteger(`${m[1]}${body}`);
    else if (/[.eE]/.test(body)) v = rubyFloatParse(`${m[1]}${body}`);
    else v = rubyInteger(`${m[1]}${body}`);
    if (v === undefined) fail(`invalid value for Integer(): ${JSON.stringify(s)}`);
    n = v;
  }
  if (abs === true) return typeof n === "bigint" ? (n < 0n ? -n : n) : Math.abs(n);
  return n;
}

function newBoolean(from: PValue): boolean {
  if (typeof from === "boolean") return from;
  if (typeof from === "bigint") return from !== 0n;
  if (typeof from === "number") return from !== 0;
  if (typeof from === "string") {
    const l = from.toLowerCase();
    if (["true", "yes", "y"].includes(l)) return true;
    if (["false", "no", "n"].includes(l)) return false;
  }
  return conversionError("new_boolean", from, "Boolean");
}

/** `T.new(args)`: Puppet's `new` — the value itself when it already is one, else the type's conversion, checked. */
export function newInstance(t: PType, args: readonly PValue[]): PValue {
  if (args.length === 1 && !(t instanceof PInitType) && t.isInstance(args[0])) return args[0];
  const result = convertTo(t, args);
  if (!t.isInstance(result)) {
    const subject = `Converted value from ${t}.new() has wrong type,`;
    throw new TypeConversionError(describeMismatch(subject, t, result));
  }
  return result;
}

function convertTo(t: PType, args: readonly PValue[]): PValue {
  if (t instanceof PTypeAliasType) return convertTo(t.resolvedType(), args);
  if (t instanceof PUserObjectType) return newUserObject(t, args);
  const from = args[0];
  switch (t instanceof PObjectType ? t.name : t.kind) {
    case "Integer":
      return newInteger(args);
    case "Float":
      return newFloat(args);
    case "Numeric":
      return newNumeric(args);
    case "String":
      return stringFormat(from, args.length > 1 ? args[1] : DEFAULT);
    case "Boolean":
      return newBoolean(from);
    case "Array":
    case "Tuple": {
      const wrap = args[1];
      if (wrap === true) return Array.isArray(from) ? from : [from];
      if (Array.isArray(from)) return from;
      if (isHash(from)) return [...from].map(([k, v]) => [k, v]);
      if (from instanceof PBinary) return [...from.bytes].map((b) => BigInt(b));
      const it = iterate(from);
      if (!it) conversionError("new_array", from, "Array");
      return it;
    }
    case "Hash":
    case "Struct":
      return newHash(from, args[1]);
    case "Sensitive":
      return from instanceof PSensitive ? from : new PSensitive(from);
    case "Optional":
    case "NotUndef": {
      const inner = (t as POptionalType | PNotUndefType).type;
      if (!inner) return from;
      return convertTo(inner, args);
    }
    case "Regexp":
      if (from instanceof PRegexp) return from;
      if (typeof from === "string") return new PRegexp(from, compileRubyRegexp(from));
      return fail(`Value of type ${badKeyTypeName(from)} cannot be converted to Regexp`);
    case "Binary":
      return newBinary(from, args[1]);
    case "Timespan":
      return newTimespan(args);
    case "Timestamp":
      return newTimestamp(args);
    case "SemVer":
      return newSemVer(args);
    case "SemVerRange":
      return newSemVerRange(args);
    case "URI":
      if (typeof from === "string") return new PuppetURI(from);
      if (from instanceof PuppetURI) return from;
      return fail(`Value of type ${badKeyTypeName(from)} cannot be converted to URI`);
    case "Type":
      if (typeof from === "string") {
        const p = parseHook;
        if (!p) fail("Type.new needs the type parser");
        return p(from);
      }
      return fail(`Value of type ${badKeyTypeName(from)} cannot be converted to Type`);
    case "Error":
      return newError(args);
    case "Deferred": {
      const name: PValue = isHash(from) ? from.get("name") : from;
      const fargs: PValue = isHash(from) ? from.get("arguments") : args[1];
      if (typeof name !== "string") conversionError("new_Deferred", name, "Deferred");
      return new PDeferred(name, Array.isArray(fargs) ? fargs : [], Array.isArray(fargs));
    }
    case "Init":
      return newThroughInit(t as PInitType, args);
  }
  throw new TypeSystemError(`Creation of new instance of type '${t.toString()}' is not supported`);
}

let parseHook: ((s: string) => PType) | undefined;
/** Registered by parse.ts so `Type.new('Integer[1]')` works without an import cycle. */
export function setTypeParser(f: (s: string) => PType): void {
  parseHook = f;
}

/** `Init[T](value)`: `T.new` with the value spread or not as Puppet's Init decides, then the init args. */
function newThroughInit(t: PInitType, args: readonly PValue[]): PValue {
  if (!t.type) throw new TypeSystemError("Creation of new instance of type 'Init' is not supported");
  const { single, other, optionalSingle } = t.initialized();
  if (args.length !== 1) fail(`'new_Init' expects 1 argument, got ${args.length}`);
  const value = args[0];
  if (t.initArgs.length > 0) return newInstance(t.type, [value, ...t.initArgs]);
  if (
    Array.isArray(value) &&
    !(
      single.isInstance(value) ||
      (other !== undefined && !other.isInstance(value) && optionalSingle && other.isInstance([value]))
    )
  )
    return newInstance(t.type, value);
  return newInstance(t.type, [value]);
}

function iterate(v: PValue): PValue[] | undefined {
  if (typeof v === "string") return [...v];
  if (typeof v === "bigint") {
    if (v < 0n) return undefined;
    return Array.from({ length: Number(v) }, (_, i) => BigInt(i));
  }
  if (v instanceof PIterator) return [...v.produce()];
  if (v instanceof PIntegerType && v.from !== undefined && v.to !== undefined) {
    const out: PValue[] = [];
    for (let i = v.from; i <= v.to; i++) out.push(i);
    return out;
  }
  if (v instanceof PEnumType) return [...v.values];
  return undefined;
}

function newHash(from: PValue, build: PValue): PHash {
  if (build === "tree" || build === "hash_tree") return treeHash(from, build === "hash_tree");
  if (isHash(from)) return from;
  if (Array.isArray(from)) {
    if (from.length === 0) return new PHash();
    // An array of pairs, or a flat array of keys and values.
    if (from.every((e) => Array.isArray(e) && e.length === 2)) return PHash.from(from as [PValue, PValue][]);
    if (from.length % 2 !== 0) fail("odd number of arguments for Hash");
    const h = new PHash();
    for (let i = 0; i < from.length; i += 2) h.set(from[i], from[i + 1]);
    return h;
  }
  const it = iterate(from);
  if (it) {
    if (it.length % 2 !== 0) fail("odd number of arguments for Hash");
    const h = new PHash();
    for (let i = 0; i + 1 < it.length; i += 2) h.set(it[i], it[i + 1]);
    return h;
  }
  return fail(`Value of type ${badKeyTypeName(from)} cannot be converted to Hash`);
}

function treeHash(from: PValue, allHashes: boolean): PHash {
  const result = new PHash();
  const entries = Array.isArray(from) ? from : [];
  const asHash = (v: PValue): PValue => {
    if (!allHashes || !Array.isArray(v)) return v;
    const h = new PHash();
    v.forEach((x, i) => {
      h.set(BigInt(i), x);
    });
    return h;
  };
  for (const entry of entries) {
    if (!Array.isArray(entry)) continue;
    const path = entry[0] as PValue[];
    const value = entry[1];
    if (!Array.isArray(path) || path.length === 0) {
      if (Array.isArray(value))
        value.forEach((v, i) => {
          result.set(BigInt(i), v);
        });
      else if (isHash(value)) for (const [k, v] of value) result.set(k, v);
      continue;
    }
    let memo: PValue = result;
    for (const k of path.slice(0, -1)) {
      if (Array.isArray(memo)) memo = memo[Number(k)];
      else if (isHash(memo)) {
        if (!memo.has(k)) memo.set(k, new PHash());
        memo = memo.get(k);
      }
    }
    const last = path[path.length - 1];
    if (isHash(memo)) memo.set(last, asHash(value));
    else if (Array.isArray(memo)) memo[Number(last)] = asHash(value);
  }
  return result;
}

function newBinary(from: PValue, mode: PValue): PBinary {
  if (from instanceof PBinary) return from;
  if (Array.isArray(from)) {
    for (const b of from)
      if (typeof b !== "bigint" || b < 0n || b > 255n) fail("Array of Integers in the range 0-255 expected");
    return new PBinary(Uint8Array.from(from.map((b) => Number(b))));
  }
  if (typeof from === "string") {
    const m = mode === undefined || mode === DEFAULT ? "%B" : String(mode);
    switch (m) {
      case "%s":
        return new PBinary(new Uint8Array(Buffer.from(from, "utf8")));
      case "%r":
        return new PBinary(new Uint8Array(Buffer.from(from, "latin1")));
      case "%u":
        return new PBinary(new Uint8Array(Buffer.from(from, "base64url")));
      case "%b":
        return new PBinary(new Uint8Array(Buffer.from(from, "base64")));
      default: {
        if (!/^[A-Za-z0-9+/]*={0,2}$/.test(from) || from.length % 4 !== 0) fail("invalid base64");
        return new PBinary(new Uint8Array(Buffer.from(from, "base64")));
      }
    }
  }
  return fail(`Value of type ${badKeyTypeName(from)} cannot be converted to Binary`);
}

function newTimespan(args: readonly PValue[]): Timespan {
  const a0 = args[0];
  if (args.length === 0) return new Timespan(0n);
  if (a0 instanceof Timespan) return a0;
  if (isHash(a0)) {
    const h = a0;
    if (h.has("string")) return parseTimespanWithFormat(h.get("string") as string, h.get("format"));
    const n = (k: string): bigint | number => {
      const v = h.get(k);
      return typeof v === "bigint" || typeof v === "number" ? v : 0n;
    };
    const ns =
      ((((BigInt(n("days")) * 24n + BigInt(n("hours"))) * 60n + BigInt(n("minutes"))) * 60n +
        BigInt(n("seconds"))) *
        1000n +
        BigInt(n("milliseconds"))) *
        1000000n +
      BigInt(n("microseconds")) * 1000n +
      BigInt(n("nanoseconds"));
    return h.get("negative") === true ? new Timespan(-ns) : new Timespan(ns);
  }
  if (typeof a0 === "bigint" || typeof a0 === "number") {
    if (args.length === 1) return Timespan.fromSeconds(a0);
    const nums = args.map((x) => BigInt(x as bigint));
    const [d = 0n, h = 0n, m = 0n, s = 0n, ms = 0n, us = 0n, ns = 0n] = nums;
    return new Timespan(((((d * 24n + h) * 60n + m) * 60n + s) * 1000n + ms) * 1000000n + us * 1000n + ns);
  }
  if (typeof a0 === "string") return parseTimespanWithFormat(a0, args[1]);
  return fail(`Value of type ${badKeyTypeName(a0)} cannot be converted to Timespan`);
}

function formatsArg(f: PValue): string | string[] | undefined {
  if (typeof f === "string") return f;
  if (Array.isArray(f) && f.every((x) => typeof x === "string")) return f as string[];
  return undefined;
}

function parseTimespanWithFormat(s: string, format: PValue): Timespan {
  return parseTimespan(s, formatsArg(format));
}

function newTimestamp(args: readonly PValue[]): Timestamp {
  const a0 = args[0];
  if (args.length === 0) return Timestamp.fromSeconds(Date.now() / 1000);
  if (a0 instanceof Timestamp) return a0;
  if (typeof a0 === "bigint" || typeof a0 === "number") return Timestamp.fromSeconds(a0);
  const tz = (v: PValue): string | undefined => (typeof v === "string" ? v : undefined);
  if (typeof a0 === "string") return parseTimestamp(a0, formatsArg(args[1]), tz(args[2]));
  if (isHash(a0) && typeof a0.get("string") === "string")
    return parseTimestamp(a0.get("string") as string, formatsArg(a0.get("format")), tz(a0.get("timezone")));
  return fail(`Value of type ${badKeyTypeName(a0)} cannot be converted to Timestamp`);
}

function newError(args: readonly PValue[]): PuppetError {
  const a0 = args[0];
  if (isHash(a0)) {
    const str = (k: string): string | undefined =>
      typeof a0.get(k) === "string" ? (a0.get(k) as string) : undefined;
    const details = a0.get("details");
    return new PuppetError(
      str("msg") ?? "",
      str("kind"),
      str("issue_code"),
      a0.get("partial_result"),
      isHash(details) ? details : undefined,
    );
  }
  if (typeof a0 !== "string") return conversionError("new_Error", a0, "Error");
  const [, kind, details, issue] = args;
  if (
    args.length > 4 ||
    (kind !== undefined && typeof kind !== "string") ||
    (details !== undefined && !isHash(details)) ||
    (issue !== undefined && typeof issue !== "string")
  )
    fail("The function 'new_Error' was called with arguments it does not accept");
  return new PuppetError(
    a0,
    typeof kind === "string" ? kind : undefined,
    typeof issue === "string" ? issue : undefined,
    undefined,
    isHash(details) ? details : undefined,
  );
}

function newSemVer(args: readonly PValue[]): SemVer {
  const a0 = args[0];
  if (a0 instanceof SemVer) return a0;
  if (typeof a0 === "string" && args.length === 1) {
    try {
      return SemVer.parse(a0);
    } catch {
      fail(`'new_Version' The string '${a0}' cannot be converted to a SemVer`);
    }
  }
  if (isHash(a0)) {
    const g = (k: string): bigint => (typeof a0.get(k) === "bigint" ? (a0.get(k) as bigint) : 0n);
    const pre = a0.get("prerelease");
    const build = a0.get("build");
    return new SemVer(
      g("major"),
      g("minor"),
      g("patch"),
      typeof pre === "string" ? pre : undefined,
      typeof build === "string" ? build : undefined,
    );
  }
  if (typeof a0 === "bigint") {
    const [major, minor = 0n, patch = 0n, pre, build] = args;
    return new SemVer(
      major as bigint,
      minor as bigint,
      patch as bigint,
      pre as string | undefined,
      build as string | undefined,
    );
  }
  return fail(`Value of type ${badKeyTypeName(a0)} cannot be converted to SemVer`);
}

function newSemVerRange(args: readonly PValue[]): SemVerRange {
  const a0 = args[0];
  if (a0 instanceof SemVerRange) return a0;
  if (typeof a0 === "string" && args.length === 1) return parseSemVerRange(a0);
  if (a0 instanceof SemVer || typeof a0 === "string") {
    const lo = a0 instanceof SemVer ? a0 : SemVer.parse(a0);
    const hiArg = args[1];
    const hi = hiArg instanceof SemVer ? hiArg : typeof hiArg === "string" ? SemVer.parse(hiArg) : undefined;
    const excl = args[2] === true;
    const text = hi ? (excl ? `>=${lo} <${hi}` : `${hi} - ${lo}`) : `>=${lo}`;
    return new SemVerRange(text, [
      [{ op: ">=", v: lo }, ...(hi ? [{ op: (excl ? "<" : "<=") as "<" | "<=", v: hi }] : [])],
    ]);
  }
  return fail(`Value of type ${badKeyTypeName(a0)} cannot be converted to SemVerRange`);
}
