/**
 * Hiera's failures: a HieraError is what Puppet raises as a LookupError
 * (bad configuration, unparsable data, a failed merge, a recursive
 * lookup); the compiler reports its message as the error of the call or of
 * the class parameter that started the lookup.
 */
import { PHash, PRegexp, PSensitive, type PValue } from "../eval/values.js";

export class HieraError extends Error {
  override readonly name = "HieraError";
  constructor(
    message: string,
    /** The file the problem is in, when it is a configuration or data file. */
    readonly file?: string,
    readonly line?: number,
    /** Puppet raised it with an issue code (configuration and interpolation syntax problems). */
    readonly issue = false,
  ) {
    super(message);
  }
}

/** The Ruby class of a value, as Puppet's lower layers name it in messages. */
export function rubyTypeName(v: PValue): string {
  switch (typeof v) {
    case "string":
      return "String";
    case "bigint":
      return "Integer";
    case "number":
      return "Float";
    case "boolean":
      return v ? "TrueClass" : "FalseClass";
    case "undefined":
      return "NilClass";
  }
  if (Array.isArray(v)) return "Array";
  if (v instanceof PHash) return "Hash";
  if (v instanceof PRegexp) return "Regexp";
  if (v instanceof PSensitive) return "Puppet::Pops::Types::PSensitiveType::Sensitive";
  return "Object";
}

/** The Puppet type name of a value, unparameterised (`Integer`, `Hash`, `Undef`). */
export function puppetTypeName(v: PValue): string {
  switch (typeof v) {
    case "string":
      return "String";
    case "bigint":
      return "Integer";
    case "number":
      return "Float";
    case "boolean":
      return "Boolean";
    case "undefined":
      return "Undef";
    case "symbol":
      return "Default";
  }
  // Puppet infers a literal array as a Tuple and a hash with string keys as a Struct.
  if (Array.isArray(v)) return v.length > 0 ? "Tuple" : "Array";
  if (v instanceof PHash)
    return v.size > 0 && [...v.keys()].every((k) => typeof k === "string") ? "Struct" : "Hash";
  if (v instanceof PRegexp) return "Regexp";
  if (v instanceof PSensitive) return "Sensitive";
  const named = v as { typeName?: unknown };
  return typeof named.typeName === "string" ? named.typeName : "Any";
}
