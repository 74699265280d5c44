/**
 * What stdlib's native functions share: Puppet's 3.x argument conversion,
 * Ruby class names and inspect for messages, deprecation warnings as
 * stdlib's `deprecation` gives them, and the shims by which stdlib 9 keeps
 * the old un-namespaced names.
 */
import { rubyInspect, rubyToS } from "../core/ruby-text.js";
import { type CallContext, FunctionError, type PuppetFunction } from "../registry.js";
import {
  DEFAULT,
  PBinary,
  PHash,
  PObject,
  PRegexp,
  PSensitive,
  type PValue,
  isType,
  rubyEqlKey,
} from "../../values.js";

export { rubyInspect, rubyToS };

/**
 * A function written with stdlib's 3.x API: Puppet hands it a top-level
 * undef as '' and a Regexp as its inspect text (`/re/`); the function checks
 * its own arguments. Errors are FunctionErrors with the function's message.
 */
export function legacy(body: (ctx: CallContext, args: PValue[]) => PValue): PuppetFunction {
  return (ctx, args) => body(ctx, args.map(convert3x));
}

function convert3x(v: PValue): PValue {
  if (v === undefined) return "";
  if (v instanceof PRegexp) return `/${v.source}/`;
  return v;
}

/** A failure with stdlib's own message (Puppet::ParseError, ArgumentError, TypeError). */
export function fail(message: string): never {
  throw new FunctionError(message);
}

/** The Ruby class of a value as stdlib's messages name it. */
export function rubyClass(v: PValue): string {
  if (v === undefined) return "NilClass";
  if (v === true) return "TrueClass";
  if (v === false) return "FalseClass";
  if (v === DEFAULT) return "Symbol";
  if (typeof v === "string") return "String";
  if (typeof v === "bigint") return "Integer";
  if (typeof v === "number") return "Float";
  if (Array.isArray(v)) return "Array";
  if (v instanceof PHash) return "Hash";
  if (v instanceof PRegexp) return "Regexp";
  if (v instanceof PSensitive) return "Puppet::Pops::Types::PSensitiveType::Sensitive";
  if (v instanceof PBinary) return "Puppet::Pops::Types::PBinaryType::Binary";
  if (isType(v)) return `Puppet::Pops::Types::P${v.name}Type`;
  if (v instanceof PObject) return v.typeName;
  return "Object";
}

/** Ruby's "undefined method `m' for <inspect>:<Class>" for a value of the wrong kind. */
export function noMethod(method: string, v: PValue): never {
  const shown = v === undefined ? "nil" : rubyInspect(v);
  throw new FunctionError(
    `undefined method \`${method}' for ${shown}:${v === undefined ? "NilClass" : rubyClass(v)}`,
  );
}

/**
 * stdlib's `deprecation(key, message, use_strict_setting)`: with Puppet's
 * default `strict = warning`, a warning once per key, the message followed
 * by the calling manifest's file and line.
 */
export function deprecate(ctx: CallContext, key: string, message: string): void {
  const text = `${message} at ${ctx.file ?? ""}:${ctx.line ?? ""}`;
  if (ctx.warnOnce) ctx.warnOnce(key, text);
  else ctx.warn(text);
}

/** stdlib 9's un-namespaced name: a deprecation warning, then the namespaced function. */
export function shim(name: string, target: PuppetFunction): PuppetFunction {
  return (ctx, args, block) => {
    deprecate(ctx, name, `This function is deprecated, please use stdlib::${name} instead.`);
    return target(ctx, args, block);
  };
}

/** Ruby's `Array#flatten`. */
export function flattenDeep(a: readonly PValue[]): PValue[] {
  const out: PValue[] = [];
  for (const x of a) {
    if (Array.isArray(x)) out.push(...flattenDeep(x));
    else out.push(x);
  }
  return out;
}

/** Ruby's `==` on Puppet values: strings case-sensitively, 1 == 1.0. */
export function rubyEq(a: PValue, b: PValue): boolean {
  if (a === b) return true;
  if ((typeof a === "bigint" || typeof a === "number") && (typeof b === "bigint" || typeof b === "number"))
    return Number(a) === Number(b);
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => rubyEq(x, b[i]));
  if (a instanceof PHash) {
    if (!(b instanceof PHash) || a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !rubyEq(v, b.get(k))) return false;
    return true;
  }
  if (a instanceof PRegexp) return b instanceof PRegexp && a.source === b.source;
  return rubyEqlKey(a) === rubyEqlKey(b);
}

/** The facts hash of the calling scope (`$facts`), or an empty hash. */
export function factsOf(ctx: CallContext): PHash {
  const f = ctx.lookupVariable("facts");
  return f instanceof PHash ? f : new PHash();
}

/** `h[k1][k2]...` with nil (undefined) when a level is missing. */
export function dig(v: PValue, ...keys: string[]): PValue {
  let cur = v;
  for (const k of keys) {
    if (!(cur instanceof PHash)) return undefined;
    cur = cur.get(k);
  }
  return cur;
}
