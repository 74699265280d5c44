/**
 * `T.new(args)` (Puppet's `new` function and `T(args)` calls): the
 * conversions of each type. Strings go through the string converter
 * (strconv.ts) with its format strings.
 */
import { DEFAULT, isHash, PBinary, PHash, PIterator, PRegexp, PSensitive, type PValue } from "../values.js";
import { badKeyTypeName } from "./access.js";
import { inferType } from "./infer.js";
import {
  PArrayType,
  PEnumType,
  PFloatType,
  PHashType,
  type PInitType,
  PIntegerType,
  type PNotUndefType,
  type POptionalType,
  PStringType,
  PStructType,
  PTupleType,
  type PType,
  PTypeAliasType,
  type PVariantType,
  TypeSystemError,
  compileRubyRegexp,
} from "./model.js";
import {
  parseSemVerRange,
  parseTimespan,
  parseTimestamp,
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

const _INT_DEC = /^[+-]?\s*(?:0|[1-9]\d*)$/;

/** Parses an integer string as Puppet does (0x.., 0b.., 0o../0.. octal, decimal). */
export function parseInteger(s: string, radix?: number): bigint | undefined {
  let t = s.trim();
  let neg = false;
  if (t.startsWith("-") || t.startsWith("+")) {
    neg = t.startsWith("-");
    t = t.slice(1).trimStart();
  }
  let r = radix ?? 10;
  let digits = t;
  const low = t.toLowerCase();
  if (radix === undefined || radix === 16) {
    if (low.startsWith("0x")) {
      r = 16;
      digits = t.slice(2);
    }
  }
  if (radix === undefined || radix === 2) {
    if (low.startsWith("0b")) {
      r = 2;
      digits = t.slice(2);
    }
  }
  if (radix === undefined || radix === 8) {
    if (low.startsWith("0o")) {
      r = 8;
      digits = t.slice(2);
    } else if (radix === undefined && /^0\d/.test(t)) {
      r = 8;
      digits = t.slice(1);
    }
  }
  const valid = { 2: /^[01]+$/, 8: /^[0-7]+$/, 10: /^\d+$/, 16: /^[0-9a-fA-F]+$/ }[r as 2 | 8 | 10 | 16];
  if (!valid?.test(digits)) return undefined;
  const prefix = { 2: "0b", 8: "0o", 10: "", 16: "0x" }[r as 2 | 8 | 10 | 16];
  const v = BigInt(prefix + digits);
  return neg ? -v : v;
}

const FLOAT_RE = /^[+-]?\s*(?:(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE]-?\d+)?|0[xX][0-9A-Fa-f]+|0[0-7]+|0[bB][01]+)$/;

function toNumeric(from: PValue, what: "Integer" | "Float" | "Numeric", radix?: number): bigint | number {
  if (typeof from === "bigint" || typeof from === "number") return from;
  if (typeof from === "boolean") return from ? 1n : 0n;
  if (from instanceof Timespan || from instanceof Timestamp) return from.toFloat();
  if (typeof from === "string") {
    const s = from.trim();
    if (what !== "Float") {
      const i = parseInteger(s, radix);
      if (i !== undefined) return i;
      if (what === "Integer" && radix === undefined && FLOAT_RE.test(s) && /[.eE]/.test(s)) {
        const f = Number(s.replace(/\s+/g, ""));
        if (!Number.isNaN(f)) return f;
      }
    }
    if (what !== "Integer" && FLOAT_RE.test(s)) {
      const clean = s.replace(/\s+/g, "");
      if (/^[+-]?0[xXbB]/.test(clean) || /^[+-]?0[0-7]+$/.test(clean)) {
        const i = parseInteger(clean);
        if (i !== undefined) return what === "Float" ? Number(i) : i;
      }
      const f = Number(clean);
      if (!Number.isNaN(f)) return what === "Numeric" && /^[+-]?\d+$/.test(clean) ? BigInt(clean) : f;
    }
    fail(`The string '${from}' cannot be converted to ${what}`);
  }
  return fail(`Value of type ${badKeyTypeName(from)} cannot be converted to ${what}`);
}

function optArgs(args: readonly PValue[], names: string[]): PValue[] {
  if (args.length === 1 && isHash(args[0]) && (args[0] as PHash).has("from")) {
    const h = args[0] as PHash;
    return names.map((n) => h.get(n));
  }
  return [...args];
}

/** `T.new(args)`: Puppet's conversions. */
export function newInstance(t: PType, args: readonly PValue[]): PValue {
  if (t instanceof PTypeAliasType) return newInstance(t.resolvedType(), args);
  const from = args[0];
  switch (t.kind) {
    case "Integer": {
      const [f, radixArg, absArg] = optArgs(args, ["from", "radix", "abs"]);
      let radix: number | undefined;
      let abs = false;
      if (typeof radixArg === "bigint") radix = Number(radixArg);
      else if (typeof radixArg === "boolean") abs = radixArg;
      if (typeof absArg === "boolean") abs = absArg;
      if (radix !== undefined && ![2, 8, 10, 16].includes(radix))
        fail(`Illegal radix: ${radix}, expected 2, 8, 10, 16, or default`);
      let n = toNumeric(f, "Integer", radix);
      if (typeof n === "number") {
        if (!Number.isFinite(n)) fail(`The string '${String(f)}' cannot be converted to Integer`);
        n = BigInt(Math.trunc(n));
      }
      if (abs && n < 0n) n = -n;
      return checkRange(t, n);
    }
    case "Float": {
      const [f, absArg] = optArgs(args, ["from", "abs"]);
      let n = Number(toNumeric(f, "Float"));
      if (absArg === true) n = Math.abs(n);
      return checkRange(t, n);
    }
    case "Numeric": {
      const [f, absArg] = optArgs(args, ["from", "abs"]);
      let n = toNumeric(f, "Numeric");
      if (absArg === true) n = n < 0 ? -n : n;
      return n;
    }
    case "String":
      return checkRange(t, stringFormat(from, args.length > 1 ? args[1] : DEFAULT));
    case "Boolean": {
      if (typeof from === "boolean") return from;
      if (typeof from === "bigint") return from !== 0n;
      if (typeof from === "number") return from !== 0;
      if (typeof from === "string") {
        const l = from.toLowerCase();
        if (["true", "yes", "y"].includes(l)) return true;
        if (["false", "no", "n"].includes(l)) return false;
        fail(`The string '${from}' cannot be converted to Boolean`);
      }
      return fail(`Value of type ${badKeyTypeName(from)} cannot be converted to Boolean`);
    }
    case "Array":
    case "Tuple": {
      const wrap = args[1];
      let out: PValue[];
      if (wrap === true) out = Array.isArray(from) ? from : [from];
      else if (Array.isArray(from)) out = from;
      else if (isHash(from)) out = [...from].map(([k, v]) => [k, v]);
      else if (from instanceof PBinary) out = [...from.bytes].map((b) => BigInt(b));
      else {
        const it = iterate(from);
        if (!it) fail(`Value of type ${badKeyTypeName(from)} cannot be converted to Array`);
        out = it;
      }
      return checkRange(t, out);
    }
    case "Hash":
    case "Struct":
      return checkRange(t, newHash(from, args[1]));
    case "Sensitive":
      return from instanceof PSensitive ? from : new PSensitive(from);
    case "Optional":
    case "NotUndef": {
      const inner = (t as POptionalType | PNotUndefType).type;
      if (!inner) return from;
      return newInstance(inner, args);
    }
    case "Variant": {
      for (const v of (t as PVariantType).types) if (v.isInstance(from)) return from;
      for (const v of (t as PVariantType).types) {
        try {
          return newInstance(v, args);
        } catch (e) {
          if (!(e instanceof TypeSystemError)) throw e;
        }
      }
      return fail(`Value of type ${badKeyTypeName(from)} cannot be converted to ${t}`);
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
    case "Undef":
      return undefined;
    case "Any":
    case "Scalar":
    case "ScalarData":
    case "Data":
      return from;
    case "Init": {
      const it = t as PInitType;
      return it.type ? newInstance(it.type, [...it.initArgs, ...args]) : from;
    }
    case "Enum":
    case "Pattern": {
      const s = stringFormat(from, DEFAULT);
      if (!t.isInstance(s))
        fail(`Converted value from String.new() has wrong type, expects a match for ${t}, got '${s}'`);
      return s;
    }
  }
  throw new TypeSystemError(`Creation of new instance of type '${t.toString()}' is not supported`);
}

let parseHook: ((s: string) => PType) | undefined;
/** Registered by parse.ts so `Type.new('Integer[1]')` works without an import cycle. */
export function setTypeParser(f: (s: string) => PType): void {
  parseHook = f;
}

function checkRange(t: PType, v: PValue): PValue {
  if (t.isInstance(v)) return v;
  const general = t.generalize();
  if (
    t instanceof PIntegerType ||
    t instanceof PFloatType ||
    t instanceof PStringType ||
    t instanceof PArrayType ||
    t instanceof PHashType ||
    t instanceof PTupleType ||
    t instanceof PStructType
  ) {
    if (t.constructor === general.constructor && general.equals(t)) return v;
    fail(
      `Converted value from ${general.name}.new() has wrong type, expects ${describeShort(t)} value, got ${inferType(v).toString()}`,
    );
  }
  return v;
}

function describeShort(t: PType): string {
  const s = t.toString();
  return `${/^[AEIOU]/.test(s) ? "an" : "a"} ${s}`;
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

function parseTimespanWithFormat(s: string, _format: PValue): Timespan {
  return parseTimespan(s);
}

function newTimestamp(args: readonly PValue[]): Timestamp {
  const a0 = args[0];
  if (args.length === 0) return Timestamp.fromSeconds(Date.now() / 1000);
  if (a0 instanceof Timestamp) return a0;
  if (typeof a0 === "bigint" || typeof a0 === "number") return Timestamp.fromSeconds(a0);
  if (typeof a0 === "string") return parseTimestamp(a0);
  if (isHash(a0) && typeof a0.get("string") === "string") return parseTimestamp(a0.get("string") as string);
  return fail(`Value of type ${badKeyTypeName(a0)} cannot be converted to Timestamp`);
}

function newSemVer(args: readonly PValue[]): SemVer {
  const a0 = args[0];
  if (a0 instanceof SemVer) return a0;
  if (typeof a0 === "string" && args.length === 1) return SemVer.parse(a0);
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
    const text = hi ? `>=${lo} ${excl ? "<" : "<="}${hi}` : `>=${lo}`;
    return new SemVerRange(text, [
      [{ op: ">=", v: lo }, ...(hi ? [{ op: (excl ? "<" : "<=") as "<" | "<=", v: hi }] : [])],
    ]);
  }
  return fail(`Value of type ${badKeyTypeName(a0)} cannot be converted to SemVerRange`);
}
