/**
 * A type from its string form (`'Optional[String[1]]'`): what `assert_type`
 * with a string, Hiera's `convert_to` and `Type.new('...')` use. The text is
 * parsed by the Puppet parser and its literal expressions evaluated here
 * (types, access, numbers, strings, arrays, hashes, regexps, `default`,
 * `undef`, `T(args)` and `T.new(args)` conversions).
 */
import type * as A from "../../lang/ast.js";
import { parsePuppet } from "../../lang/index.js";
import { DEFAULT, isHash, isType, PHash, PRegexp, type PValue } from "../values.js";
import { parameterize, typeByName } from "./access.js";
import { newInstance, setTypeParser } from "./convert.js";
import { inferSet } from "./infer.js";
import { newSignatures } from "./new-signatures.js";
import {
  compileRubyRegexp,
  PIntegerType,
  PResourceType,
  type PType,
  PTypeReferenceType,
  setInitSignatures,
  TypeSystemError,
} from "./model.js";

/** How names that are not built-in types are found (aliases, resource types). */
export interface NameResolver {
  resolve(name: string): PType | undefined;
}

/** Parses `text` as a type. Unknown names become TypeReferences, as Puppet's type parser leaves them. */
const parsedTypes = new Map<string, PType>();

export function parseTypeString(text: string, resolver?: NameResolver): PType {
  // Types are immutable: without a resolver (whose answers may change) the parse can be shared.
  const hit = resolver ? undefined : parsedTypes.get(text);
  if (hit) return hit;
  const v = parseLiteralExpression(text, resolver, { parser: true });
  if (!isType(v)) throw new TypeSystemError(`The expression <${text}> is not a valid type specification.`);
  if (!resolver) {
    if (parsedTypes.size > 2000) parsedTypes.clear();
    parsedTypes.set(text, v);
  }
  return v;
}

/** Parses and evaluates a literal Puppet expression (no variables, no function calls other than conversions). */
export function parseLiteralExpression(
  text: string,
  resolver?: NameResolver,
  options: LiteralOptions = {},
): PValue {
  const r = parsePuppet(text);
  if (!r.ok) throw new TypeSystemError(r.error.message);
  let body: A.Expression = r.program.body as A.Expression;
  while (body.kind === "Block") {
    const b = body as A.Block;
    if (b.statements.length !== 1)
      throw new TypeSystemError(`The expression <${text}> is not a valid type specification.`);
    body = b.statements[0] as A.Expression;
  }
  return evaluateLiteral(body, text, resolver, options);
}

export interface LiteralOptions {
  /** As the evaluator does: an unknown type name is an error ("Resource type not found: Foo"), not a TypeReference. */
  evaluator?: boolean;
  /** As Puppet's TypeParser does (type strings): its arity checks and messages. */
  parser?: boolean;
}

function typeNamed(
  ref: A.QualifiedReference,
  resolver: NameResolver | undefined,
  options: LiteralOptions,
): PType {
  const t = typeByName(ref.value) ?? resolver?.resolve(ref.value);
  if (t) return t;
  if (options.evaluator) throw new TypeSystemError(`Resource type not found: ${ref.cased}`);
  return new PTypeReferenceType(ref.cased);
}

/** Evaluates a literal expression node of `source`. */
export function evaluateLiteral(
  e: A.Expression,
  source: string,
  resolver?: NameResolver,
  options: LiteralOptions = {},
): PValue {
  const ev = (x: A.Expression): PValue => evaluateLiteral(x, source, resolver, options);
  switch (e.kind) {
    case "LiteralString":
      return (e as A.LiteralString).value;
    case "LiteralInteger":
      return BigInt((e as A.LiteralInteger).value);
    case "LiteralFloat":
      return (e as A.LiteralFloat).value;
    case "LiteralBoolean":
      return (e as A.LiteralBoolean).value;
    case "LiteralUndef":
      return undefined;
    case "LiteralDefault":
      return DEFAULT;
    case "LiteralRegex": {
      const p = (e as A.LiteralRegex).pattern;
      return new PRegexp(p, compileRubyRegexp(p));
    }
    case "LiteralList":
      return (e as A.LiteralList).values.map(ev);
    case "LiteralHash": {
      const h = new PHash();
      for (const en of (e as A.LiteralHash).entries) h.set(ev(en.key), ev(en.value));
      return h;
    }
    case "QualifiedName":
      return (e as A.QualifiedName).value;
    case "QualifiedReference":
      return typeNamed(e as A.QualifiedReference, resolver, options);
    case "Paren":
      return ev((e as A.UnaryExpression).expr);
    case "UnaryMinus": {
      const v = ev((e as A.UnaryExpression).expr);
      if (typeof v === "bigint") return -v;
      if (typeof v === "number") return -v;
      break;
    }
    case "ConcatenatedString": {
      const segs = (e as A.ConcatenatedString).segments;
      if (segs.every((s) => s.kind === "LiteralString"))
        return segs.map((s) => (s as A.LiteralString).value).join("");
      break;
    }
    case "Access": {
      const a = e as A.Access;
      if (a.left.kind === "QualifiedReference") {
        const ref = a.left as A.QualifiedReference;
        const base = typeByName(ref.value) ?? resolver?.resolve(ref.value);
        if (!base) {
          if (options.evaluator) throw new TypeSystemError(`Resource type not found: ${ref.cased}`);
          return new PTypeReferenceType(source.slice(a.offset, a.offset + a.length));
        }
        const keys = a.keys.map(ev);
        if (options.parser) return parserAccess(base, ref, keys, source.slice(a.offset, a.offset + a.length));
        return parameterize(base, keys) as PValue;
      }
      const left = ev(a.left);
      if (isType(left)) return parameterize(left, a.keys.map(ev)) as PValue;
      break;
    }
    case "CallNamedFunction": {
      const c = e as A.CallNamedFunction;
      if (c.functor.kind === "QualifiedReference")
        return newInstance(typeNamed(c.functor as A.QualifiedReference, resolver, options), c.args.map(ev));
      if (c.functor.kind === "Access") {
        const t = ev(c.functor);
        if (isType(t)) return newInstance(t, c.args.map(ev));
      }
      if (
        c.functor.kind === "QualifiedName" &&
        (c.functor as A.QualifiedName).value === "new" &&
        c.args.length > 0
      ) {
        const [t, ...rest] = c.args.map(ev);
        if (isType(t)) return newInstance(t, rest);
      }
      break;
    }
    case "CallMethod": {
      const c = e as A.CallMethod;
      if (c.functor.right.value === "new") {
        const t = ev(c.functor.left);
        if (isType(t)) return newInstance(t, c.args.map(ev));
      }
      break;
    }
  }
  throw new TypeSystemError(
    `The expression <${source.slice(e.offset, e.offset + e.length)}> is not a valid type specification.`,
  );
}

setTypeParser((s) => parseTypeString(s));
setInitSignatures((t) => newSignatures(t, (s) => parseTypeString(s)), inferSet);

/* ----------------------------------------------------------- type parser */

function invalidSpec(text: string): never {
  throw new TypeSystemError(`The expression <${text}> is not a valid type specification.`);
}
function invalidCount(type: string, required: string | number, given: number): never {
  throw new TypeSystemError(
    `Invalid number of type parameters specified: ${type} requires ${required}, ${given} provided`,
  );
}

const isRangeParameter = (v: PValue): boolean => typeof v === "bigint" || v === DEFAULT || v === "default";

/**
 * `T[args]` as Puppet's TypeParser checks it (type strings: `assert_type`
 * with a string, `convert_to`, Type.new): its own arity and argument
 * messages, then the same construction as the evaluator's.
 */
function parserAccess(base: PType, ref: A.QualifiedReference, params: PValue[], text: string): PType {
  const n = params.length;
  const assertType = (v: PValue): void => {
    if (!isType(v)) invalidSpec(text);
  };
  const assertRange = (v: PValue): void => {
    if (!isRangeParameter(v)) invalidSpec(text);
  };
  const build = (args: PValue[]): PType => {
    const r = parameterize(base, args);
    if (Array.isArray(r)) invalidSpec(text);
    return r;
  };
  switch (ref.value) {
    case "array":
      if (n === 1) assertType(params[0]);
      else if (n === 2) {
        if (isType(params[0])) {
          if (!(params[1] instanceof PIntegerType)) assertRange(params[1]);
        } else {
          assertRange(params[0]);
          assertRange(params[1]);
        }
      } else if (n === 3) {
        assertType(params[0]);
        assertRange(params[1]);
        assertRange(params[2]);
      } else invalidCount("Array", "1 to 3", n);
      return build(params);
    case "hash":
      if (n === 2) {
        if (!(isType(params[0]) && isType(params[1]))) {
          assertRange(params[0]);
          assertRange(params[1]);
        }
      } else if (n === 3) {
        if (!(params[2] instanceof PIntegerType)) assertRange(params[2]);
        assertType(params[0]);
        assertType(params[1]);
      } else if (n === 4) {
        assertRange(params[2]);
        assertRange(params[3]);
        assertType(params[0]);
        assertType(params[1]);
      } else invalidCount("Hash", "2 to 4", n);
      return build(params);
    case "collection":
    case "string":
      if (n === 1) {
        if (!(params[0] instanceof PIntegerType)) assertRange(params[0]);
      } else if (n === 2) {
        assertRange(params[0]);
        assertRange(params[1]);
      } else invalidCount(ref.value === "string" ? "String" : "Collection", "1 to 2", n);
      return build(params);
    case "class":
      if (n !== 1) invalidCount("Class", 1, n);
      return build(params);
    case "resource":
      if (n !== 1 && n !== 2) invalidCount("Resource", "1 or 2", n);
      return build(params);
    case "regexp":
      if (n !== 1) invalidCount("Regexp", "1", n);
      return build(params);
    case "enum": {
      const vals = typeof params[n - 1] === "boolean" ? params.slice(0, -1) : params;
      if (vals.length < 1) invalidCount("Enum", "1 or more", vals.length);
      if (!vals.every((v) => typeof v === "string"))
        throw new TypeSystemError("Enum parameters must be identifiers or strings");
      return build(params);
    }
    case "pattern":
      if (n < 1) invalidCount("Pattern", "1 or more", n);
      return build(params);
    case "callable":
      if (n > 1 && Array.isArray(params[0]) && n !== 2)
        invalidCount("callable", "2 when first parameter is an array", n);
      return build(params);
    case "uri":
      if (n !== 1) invalidCount("URI", "1", n);
      return build(params);
    case "variant":
      if (n < 1) invalidCount("Variant", "1 or more", n);
      params.forEach(assertType);
      return build(params);
    case "tuple":
      if (n < 1) invalidCount("Tuple", "1 or more", n);
      return build(params);
    case "struct":
      if (n !== 1) invalidCount("Struct", "1", n);
      if (!isHash(params[0])) invalidSpec(text);
      return build(params);
    case "boolean":
      if (n !== 1) invalidCount("Boolean", "1", n);
      if (typeof params[0] !== "boolean")
        throw new TypeSystemError("Boolean parameter must be true or false");
      return build(params);
    case "integer":
    case "float": {
      const name = ref.value === "integer" ? "Integer" : "Float";
      const num = (v: PValue): boolean =>
        typeof v === "bigint" || (ref.value === "float" && typeof v === "number");
      if (n === 1) {
        if (!num(params[0]) && params[0] !== DEFAULT) invalidSpec(text);
      } else if (n !== 2) invalidCount(name, "1 or 2", n);
      return build(params);
    }
    case "sensitive":
      if (n > 1) invalidCount("Sensitive", "0 to 1", n);
      if (n === 1) assertType(params[0]);
      return n === 0 ? base : build(params);
    case "optional":
      if (n !== 1) invalidCount("Optional", 1, n);
      if (typeof params[0] !== "string") assertType(params[0]);
      return build(params);
    case "notundef":
      if (n > 1) invalidCount("NotUndef", "0 to 1", n);
      if (n === 1 && typeof params[0] !== "string") assertType(params[0]);
      return n === 0 ? base : build(params);
    case "type":
    case "iterable":
    case "iterator":
      if (n !== 1) invalidCount(ref.cased.charAt(0).toUpperCase() + ref.value.slice(1), 1, n);
      assertType(params[0]);
      return build(params);
    case "runtime":
      if (n !== 2) invalidCount("Runtime", "2", n);
      return build(params);
    case "timespan":
    case "timestamp":
      if (n > 2) invalidCount(ref.value === "timespan" ? "Timespan" : "Timestamp", "0 to 2", n);
      return build(params);
    case "semver":
      if (n < 1) invalidCount("SemVer", "1 or more", n);
      return build(params);
    case "init":
      assertType(params[0]);
      return build(params);
    case "any":
    case "data":
    case "catalogentry":
    case "scalar":
    case "undef":
    case "numeric":
    case "default":
    case "semverrange":
      throw new TypeSystemError(`Not a parameterized type <${ref.cased}>`);
  }
  if (base instanceof PResourceType) {
    if (n !== 1) invalidCount(ref.cased, 1, n);
    return build(params);
  }
  throw new TypeSystemError(`Not a parameterized type <${ref.cased}>`);
}
