/**
 * Hiera's `%{...}` interpolation (in hiera.yaml paths and in data), dotted
 * keys (`a.b.0`, `a."x.y"`) and digging into found values, as Puppet 7
 * does them. Methods: `lookup`/`hiera` (a full lookup, '' when not found),
 * `alias` (the value itself, type kept; only as the whole string),
 * `literal` and `scope` (the default: a variable, `::` for top scope).
 * A value put into a string is Ruby's `to_s` of it.
 */
import { NOT_FOUND } from "../eval/compile-api.js";
import { PHash, type PValue } from "../eval/values.js";
import { HieraError, rubyTypeName } from "./errors.js";
import { rubyToS } from "./ruby-text.js";

export type Found = PValue | typeof NOT_FOUND;
export type Segment = string | number;

/** What interpolation reaches: variables, lookups, and the recursion guard. */
export interface InterpolationContext {
  /** A variable's value (undefined when unset). */
  variable(name: string): PValue;
  /** `%{lookup('k')}`: the value of `k`, or '' when not found. */
  lookup(key: string): PValue;
  /** Runs `fn` with `name` on the stack of active lookups, failing on a cycle. */
  check<T>(name: string, fn: () => T): T;
}

const EMPTY = new Set(["", "::", '""', "''", '"::"', "'::'"]);
const METHOD = /^(\w+)\((?:"([^"]+)"|'([^']+)')\)$/;
const SPECIAL = /['".]/;

/** The value with every `%{...}` resolved; arrays and hashes (keys too) element by element. */
export function interpolate(value: PValue, ctx: InterpolationContext, allowMethods: boolean): PValue {
  if (typeof value === "string")
    return value.includes("%{") ? interpolateString(value, ctx, allowMethods) : value;
  // Collections are copied only when something in them changes.
  if (Array.isArray(value)) {
    let out: PValue[] | undefined;
    value.forEach((v, i) => {
      const x = interpolate(v, ctx, allowMethods);
      if (x !== v && !out) out = value.slice(0, i);
      out?.push(x);
    });
    return out ?? value;
  }
  if (value instanceof PHash) return interpolateHash(value, ctx, allowMethods);
  return value;
}

function interpolateHash(value: PHash, ctx: InterpolationContext, allowMethods: boolean): PHash {
  let out: PHash | undefined;
  let i = 0;
  for (const [k, v] of value) {
    const k2 = interpolate(k, ctx, allowMethods);
    const v2 = interpolate(v, ctx, allowMethods);
    if (!out && (k2 !== k || v2 !== v)) out = PHash.from([...value].slice(0, i));
    out?.set(k2, v2);
    i++;
  }
  return out ?? value;
}

function interpolateString(subject: string, ctx: InterpolationContext, allowMethods: boolean): PValue {
  const re = /%\{([^}]*)\}/g;
  let out = "";
  let last = 0;
  for (let m = re.exec(subject); m !== null; m = re.exec(subject)) {
    out += subject.slice(last, m.index);
    last = m.index + m[0].length;
    const expr = (m[1] ?? "").trim();
    if (EMPTY.has(expr)) continue;
    const [method, key] = methodAndKey(expr, allowMethods);
    if (method === "alias" && subject !== m[0])
      throw new HieraError(
        "'alias' interpolation is only permitted if the expression is equal to the entire string",
        undefined,
        undefined,
        true,
      );
    const value = callMethod(method, key, ctx, subject);
    if (method === "alias") return value;
    const resolved = ctx.check(method === "scope" ? `scope:${key}` : key, () =>
      interpolate(value, ctx, allowMethods),
    );
    out += resolved === undefined ? "" : rubyToS(resolved);
  }
  return out + subject.slice(last);
}

function methodAndKey(expr: string, allowMethods: boolean): [string, string] {
  const m = METHOD.exec(expr);
  if (!m) return ["scope", expr];
  if (!allowMethods)
    throw new HieraError(
      "Interpolation using method syntax is not allowed in this context",
      undefined,
      undefined,
      true,
    );
  return [m[1] ?? "", m[2] ?? m[3] ?? ""];
}

function callMethod(method: string, key: string, ctx: InterpolationContext, subject: string): PValue {
  switch (method) {
    case "lookup":
    case "hiera":
    case "alias":
      return ctx.lookup(key);
    case "literal":
      return key;
    case "scope":
      return scopeValue(key, ctx, subject);
    default:
      throw new HieraError(`Unknown interpolation method '${method}'`, undefined, undefined, true);
  }
}

/** `%{a.b}`: variable `a`, dug into by `b`; undef when anything is missing. */
export function scopeValue(key: string, ctx: InterpolationContext, subject: string): PValue {
  let segments = SPLIT_MEMO.get(key);
  if (!segments) {
    segments = splitKey(key, (problem) => new HieraError(`${problem} in string: ${subject}`));
    if (SPLIT_MEMO.size < 10_000) SPLIT_MEMO.set(key, segments);
  }
  const value = ctx.variable(String(segments[0]));
  if (value === undefined || segments.length === 1) return value;
  const found = dig(key, segments, value, 1);
  return found === NOT_FOUND ? undefined : found;
}

/** splitKey is pure and the same few keys come back on every lookup: remember them. */
const SPLIT_MEMO = new Map<string, readonly Segment[]>();

/** Splits a dotted key into segments: quoted parts kept whole, all-digit parts as numbers. */
export function splitKey(key: string, error: (problem: string) => Error): Segment[] {
  if (!SPECIAL.test(key)) return [key];
  const parts = key.split(/(\s*"[^"]+"\s*|\s*'[^']+'\s*|[^'".]+)/);
  while (parts.length > 0 && parts[parts.length - 1] === "") parts.pop();
  if (parts.length === 0 || parts.shift() !== "") throw error("Syntax error");
  const count = parts.length;
  if (count === 0) throw error("Syntax error");
  const kept = parts.filter((p) => p !== ".");
  if (kept.length * 2 !== count + 1) throw error("Syntax error");
  return kept.map((raw) => {
    const seg = raw.trim();
    if (seg.startsWith('"') || seg.startsWith("'")) return seg.slice(1, -1);
    if (/^[+-]?[0-9]+$/.test(seg)) return Number.parseInt(seg, 10);
    return seg;
  });
}

/** Follows `segments` into `value`; NOT_FOUND when a step is missing, an error on a non-hash. */
export function dig(key: string, segments: readonly Segment[], start: PValue, from = 0): Found {
  let value: PValue = start;
  for (let i = from; i < segments.length; i++) {
    const segment = segments[i] as Segment;
    if (value === undefined) return NOT_FOUND;
    if (typeof segment === "number" && Array.isArray(value)) {
      if (segment < 0 || segment >= value.length) return NOT_FOUND;
      value = value[segment];
      continue;
    }
    if (!(value instanceof PHash))
      throw new HieraError(
        `Data Provider type mismatch: Got ${rubyTypeName(value)} when a hash-like object was expected to access value using '${segment}' from key '${key}'`,
      );
    const k = typeof segment === "number" ? BigInt(segment) : segment;
    if (!value.has(k)) return NOT_FOUND;
    value = value.get(k);
  }
  return value;
}
