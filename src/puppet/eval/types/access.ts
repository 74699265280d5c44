/**
 * Type names and `T[args]`: the evaluator's access operator on types, with
 * Puppet's argument checks and messages (evaluator/access_operator.rb).
 */
import { DEFAULT, isHash, isType, PObject, PRegexp, type PValue } from "../values.js";
import { inferType } from "./infer.js";
import {
  ANY,
  DATA,
  PAnyType,
  PArrayType,
  PBinaryType,
  PBooleanType,
  PCallableType,
  PCatalogEntryType,
  PClassType,
  PCollectionType,
  PDefaultType,
  PEnumType,
  PFloatType,
  PHashType,
  PInitType,
  PIntegerType,
  PIterableType,
  PIteratorType,
  PNotUndefType,
  PNumericType,
  PObjectType,
  POptionalType,
  PPatternType,
  PRegexpType,
  PResourceType,
  PRuntimeType,
  PScalarDataType,
  PScalarType,
  PSemVerRangeType,
  PSemVerType,
  PSensitiveType,
  PStringType,
  PStructElement,
  PStructType,
  PTimespanType,
  PTimestampType,
  PTupleType,
  type PType,
  PTypeAliasType,
  PTypeReferenceType,
  PTypeType,
  PUndefType,
  PURIType,
  PVariantType,
  RICH_DATA,
  RICH_DATA_KEY,
  capitalizeSegments,
  DEFERRED_TYPE,
  ERROR_TYPE,
  parameterizeError,
  TypeSystemError,
  UNDEF,
  UNIT,
} from "./model.js";
import { rubyFloat } from "./quote.js";
import { parseSemVerRange, parseTimespanArg, parseTimestampArg } from "./objects.js";
import {
  ANNOTATION_TYPE,
  createObjectType,
  createTypeSet,
  PPcoreType,
  PUserObjectType,
  parameterizeObject,
} from "./user-objects.js";

function resolvedQuietly(t: PTypeAliasType): PType | undefined {
  try {
    return t.resolvedType();
  } catch {
    return undefined;
  }
}

const BUILTINS: Record<string, () => PType> = {
  any: () => new PAnyType(),
  undef: () => new PUndefType(),
  default: () => new PDefaultType(),
  scalar: () => new PScalarType(),
  scalardata: () => new PScalarDataType(),
  numeric: () => new PNumericType(),
  integer: () => new PIntegerType(),
  float: () => new PFloatType(),
  string: () => new PStringType(),
  enum: () => new PEnumType([]),
  pattern: () => new PPatternType([]),
  regexp: () => new PRegexpType(),
  boolean: () => new PBooleanType(),
  array: () => new PArrayType(),
  hash: () => new PHashType(),
  tuple: () => new PTupleType([]),
  struct: () => new PStructType([]),
  collection: () => new PCollectionType(),
  variant: () => new PVariantType([]),
  optional: () => new POptionalType(),
  notundef: () => new PNotUndefType(),
  type: () => new PTypeType(),
  callable: () => new PCallableType(),
  iterable: () => new PIterableType(),
  iterator: () => new PIteratorType(),
  runtime: () => new PRuntimeType(),
  sensitive: () => new PSensitiveType(),
  binary: () => new PBinaryType(),
  timespan: () => new PTimespanType(),
  timestamp: () => new PTimestampType(),
  semver: () => new PSemVerType(),
  semverrange: () => new PSemVerRangeType(),
  resource: () => new PResourceType(),
  class: () => new PClassType(),
  catalogentry: () => new PCatalogEntryType(),
  init: () => new PInitType(),
  object: () => new PObjectType(),
  typeset: () => new PObjectType("TypeSet"),
  annotation: () => ANNOTATION_TYPE,
  pcore: () => new PPcoreType(),
  uri: () => new PURIType(),
  error: () => ERROR_TYPE,
  deferred: () => DEFERRED_TYPE,
  data: () => DATA(),
  richdata: () => RICH_DATA(),
  richdatakey: () => RICH_DATA_KEY(),
  "puppet::lookupkey": () => RICH_DATA_KEY(),
  "puppet::lookupvalue": () => RICH_DATA(),
  typealias: () => new PTypeAliasType("UnresolvedAlias", () => ANY),
  typereference: () => new PTypeReferenceType("UnresolvedReference"),
};

/** The built-in type named `name` (any case: Puppet compares type names in lower case), unparameterised. */
export function typeByName(name: string): PType | undefined {
  const f = BUILTINS[name.toLowerCase()];
  return f ? f() : undefined;
}

/** Ruby's class name of a value, as Puppet's access-operator messages print it. */
export function rubyClassName(v: PValue): string {
  switch (typeof v) {
    case "undefined":
      return "NilClass";
    case "symbol":
      return "Symbol";
    case "bigint":
      return "Integer";
    case "number":
      return "Float";
    case "string":
      return "String";
    case "boolean":
      return v ? "TrueClass" : "FalseClass";
  }
  if (Array.isArray(v)) return "Array";
  if (isHash(v)) return "Hash";
  if (v instanceof PRegexp) return "Regexp";
  if (isType(v)) return `Puppet::Pops::Types::P${v.kind}Type`;
  return "Object";
}

/** The generalised type of a value for messages: `Integer`, `String`, `Undef`, `Default`. */
export function badKeyTypeName(v: PValue): string {
  if (v === undefined) return "Undef";
  if (v === DEFAULT) return "Default";
  return inferType(v).generalize().toString();
}

function article(text: string): string {
  let c = text.charAt(0);
  if (c === "'" || c === '"') c = text.charAt(1);
  return "aeiouAEIOU".includes(c) && c !== "" ? "an" : "a";
}
export function aAn(text: string): string {
  return `${article(text)} ${text}`;
}
function aAnUc(text: string): string {
  const a = article(text);
  return `${a.charAt(0).toUpperCase()}${a.slice(1)} ${text}`;
}
function typeLabel(t: PType): string {
  if (t instanceof PResourceType && t.title !== undefined) return `${t} Resource-Reference`;
  return `${t}-Type`;
}

function arity(base: PType | string, min: number, max: number | undefined, actual: number): never {
  const label = typeof base === "string" ? base : aAnUc(typeLabel(base));
  if (max === -1 || max === Number.POSITIVE_INFINITY)
    throw new TypeSystemError(`${label}[] accepts ${min} or more arguments. Got ${actual}`);
  if (max !== undefined && max !== min)
    throw new TypeSystemError(`${label}[] accepts ${min} to ${max} arguments. Got ${actual}`);
  throw new TypeSystemError(
    `${label}[] accepts ${min} ${min === 1 ? "argument" : "arguments"}. Got ${actual}`,
  );
}

/** A key of `T[...]` that is not a type; Puppet places the error at that key (`index`). */
export class SliceTypeError extends TypeSystemError {
  constructor(
    message: string,
    readonly index: number,
  ) {
    super(message);
  }
}

function sliceType(base: string, actual: PValue, index = 0): never {
  throw new SliceTypeError(`${base}[] arguments must be types. Got ${rubyClassName(actual)}`, index);
}

function specialization(t: PType, message: string): never {
  throw new TypeSystemError(`Error creating type specialization of ${aAn(typeLabel(t))}, ${message}`);
}

function badKey(t: PType, actual: PValue, expected: string[]): never {
  specialization(t, `Cannot use ${badKeyTypeName(actual)} where ${expected.join(" or ")} is expected`);
}

function flatten(args: readonly PValue[]): PValue[] {
  const out: PValue[] = [];
  for (const a of args)
    if (Array.isArray(a)) out.push(...flatten(a));
    else out.push(a);
  return out;
}

const isRangeParam = (v: PValue): boolean => typeof v === "bigint" || v === DEFAULT || v === "default";

function collectionSize(keys: PValue[]): PIntegerType {
  if (keys.length === 1 && keys[0] instanceof PIntegerType) return keys[0];
  for (const k of keys) {
    if (!(typeof k === "bigint" || k === DEFAULT))
      throw new TypeSystemError(
        `A Type's size constraint arguments must be a single Integer type, or 1-2 integers (or default). Got ${aAn(rubyClassName(k))}`,
      );
  }
  return intRange(keys[0], keys[1]);
}

function intRange(from: PValue, to: PValue): PIntegerType {
  const f = typeof from === "bigint" ? from : undefined;
  const t = typeof to === "bigint" ? to : undefined;
  if (f !== undefined && t !== undefined && t < f)
    throw new TypeSystemError(`'from' must be less or equal to 'to'. Got (${f}, ${t}`);
  return new PIntegerType(f, t);
}

function assertKeys(
  t: PType,
  keys: PValue[],
  min: number,
  max: number,
  expected: string[],
  ok: (k: PValue) => boolean,
): void {
  if (keys.length < min || keys.length > max) arity(t, 1, max, keys.length);
  for (const k of keys) if (!ok(k)) badKey(t, k, expected);
}

/** `T[args]`: parameterise a type. Resource and Class with several titles give several types. */
export function parameterize(t: PType, args: readonly PValue[]): PType | PType[] {
  const object = t instanceof PTypeAliasType ? resolvedQuietly(t) : t;
  if (object instanceof PUserObjectType) return parameterizeObject(object, args);
  if (t instanceof PTypeAliasType || t instanceof PTypeReferenceType) {
    if (t instanceof PTypeReferenceType)
      throw new TypeSystemError(`Resource type not found: ${t.typeString}`);
    throw new TypeSystemError(`Operator '[]' is not applicable to ${aAn(typeLabel(t))}.`);
  }
  if (t instanceof PResourceType) return accessResource(t, args);
  if (t instanceof PClassType) return accessClass(t, args);
  if (t instanceof PCallableType) return accessCallable(t, args);
  if (t instanceof PStructType) {
    assertKeys(t, [...args], 1, 1, ["Hash"], isHash);
    return structOf(args[0] as never);
  }
  if (t instanceof PInitType) {
    if (!isType(args[0])) sliceType("Init-Type", args[0]);
    return new PInitType(args[0], args.slice(1));
  }
  const keys = flatten(args);
  const n = keys.length;
  const k0 = keys[0];
  switch (t.kind) {
    case "Integer": {
      if (n < 1 || n > 2)
        throw new TypeSystemError(`Integer-Type supports [] with one or two arguments (from, to). Got ${n}`);
      for (const k of keys)
        if (!(typeof k === "bigint" || k === DEFAULT))
          throw new TypeSystemError(
            `Integer-Type [] requires all arguments to be integers (or default). Got ${rubyClassName(k)}`,
          );
      return intRange(keys[0], keys[1]);
    }
    case "Float": {
      if (n < 1 || n > 2)
        throw new TypeSystemError(`Float-Type supports [] with one or two arguments (from, to). Got ${n}`);
      for (const k of keys)
        if (!(typeof k === "bigint" || typeof k === "number" || k === DEFAULT))
          throw new TypeSystemError(
            `Float-Type [] requires all arguments to be floats, or integers (or default). Got ${rubyClassName(k)}`,
          );
      const f = typeof keys[0] === "bigint" || typeof keys[0] === "number" ? Number(keys[0]) : undefined;
      const to = typeof keys[1] === "bigint" || typeof keys[1] === "number" ? Number(keys[1]) : undefined;
      if (f !== undefined && to !== undefined && to < f)
        throw new TypeSystemError(
          `'from' must be less or equal to 'to'. Got (${rubyFloat(f)}, ${rubyFloat(to)}`,
        );
      return new PFloatType(f, to);
    }
    case "String": {
      if (n < 1 || n > 2) throw new TypeSystemError(`String supports [] with one or two arguments. Got ${n}`);
      return new PStringType(collectionSize(keys));
    }
    case "Collection":
      if (n < 1 || n > 2) arity("Collection-Type", 1, 2, n);
      return new PCollectionType(collectionSize(keys));
    case "Array": {
      if (n === 1) {
        if (!isType(k0)) sliceType("Array-Type", k0);
        return new PArrayType(k0);
      }
      if (n === 2) {
        if (isType(k0)) return new PArrayType(k0, collectionSize([keys[1]]));
        return new PArrayType(undefined, collectionSize(keys));
      }
      if (n === 3) {
        if (!isType(k0)) sliceType("Array-Type", k0);
        return new PArrayType(k0, collectionSize(keys.slice(1)));
      }
      return arity("Array-Type", 1, 3, n);
    }
    case "Hash": {
      if (n === 2 && typeof k0 === "bigint" && typeof keys[1] === "bigint")
        return new PHashType(undefined, undefined, intRange(k0, keys[1]));
      for (const [i, k] of keys.slice(0, 2).entries()) if (!isType(k)) sliceType("Hash-Type", k, i);
      let size: PIntegerType | undefined;
      if (n === 3) size = keys[2] instanceof PIntegerType ? keys[2] : intRange(keys[2], undefined);
      else if (n === 4) size = collectionSize(keys.slice(2));
      else if (n !== 2) arity("Hash-Type", 2, 4, n);
      return new PHashType(k0 as PType, keys[1] as PType, size);
    }
    case "Tuple": {
      let size: PIntegerType | undefined;
      let types = keys;
      if (n >= 2 && isRangeParam(keys[n - 2] as PValue) && isRangeParam(keys[n - 1] as PValue)) {
        size = intRange(keys[n - 2] === DEFAULT ? 0n : keys[n - 2], keys[n - 1]);
        types = keys.slice(0, n - 2);
      } else if (n >= 1 && isRangeParam(keys[n - 1] as PValue)) {
        size = intRange(keys[n - 1] === DEFAULT ? 0n : keys[n - 1], undefined);
        types = keys.slice(0, n - 1);
      }
      assertKeys(t, types, 1, Number.POSITIVE_INFINITY, ["Any-Type"], isType);
      return new PTupleType(types as PType[], size);
    }
    case "Boolean":
      assertKeys(t, keys, 1, 1, ["TrueClass", "FalseClass"], (k) => typeof k === "boolean");
      return new PBooleanType(k0 as boolean);
    case "Enum": {
      let values = keys;
      let ci = false;
      const last = keys[n - 1];
      if (typeof last === "boolean") {
        values = keys.slice(0, -1);
        ci = last;
      }
      assertKeys(t, values, 1, Number.POSITIVE_INFINITY, ["String"], (k) => typeof k === "string");
      return new PEnumType(values as string[], ci);
    }
    case "Pattern": {
      assertKeys(
        t,
        keys,
        1,
        Number.POSITIVE_INFINITY,
        ["String", "Regexp", "Pattern-Type", "Regexp-Type"],
        (k) =>
          typeof k === "string" ||
          k instanceof PRegexp ||
          k instanceof PPatternType ||
          k instanceof PRegexpType,
      );
      const pats: PRegexpType[] = [];
      for (const k of keys) {
        if (typeof k === "string") {
          const r = new PRegexpType(k);
          void r.regexp;
          pats.push(r);
        } else if (k instanceof PRegexp) pats.push(new PRegexpType(k.source));
        else if (k instanceof PRegexpType) pats.push(k);
        else pats.push(...(k as PPatternType).patterns);
      }
      return new PPatternType(pats.filter((p, i) => pats.findIndex((q) => q.pattern === p.pattern) === i));
    }
    case "Regexp": {
      if (n !== 1) arity(t, 1, 1, n);
      if (k0 instanceof PRegexp) return new PRegexpType(k0.source);
      if (typeof k0 === "string") {
        const r = new PRegexpType(k0);
        void r.regexp;
        return r;
      }
      return badKey(t, k0, ["String", "Regexp"]);
    }
    case "Variant":
      assertKeys(t, keys, 1, Number.POSITIVE_INFINITY, ["Any-Type"], isType);
      return new PVariantType(keys as PType[]);
    case "Optional": {
      if (n !== 1) arity("Optional-Type", 1, undefined, n);
      if (typeof k0 === "string") return new POptionalType(new PStringType(undefined, k0));
      if (!isType(k0)) sliceType("Optional-Type", k0);
      return new POptionalType(k0);
    }
    case "NotUndef": {
      if (n === 0) return new PNotUndefType();
      if (n !== 1) arity("NotUndef-Type", 0, 1, n);
      if (typeof k0 === "string") return new PNotUndefType(new PStringType(undefined, k0));
      if (!isType(k0))
        throw new TypeSystemError(
          `NotUndef-Type[] argument must be a Type or a String. Got ${rubyClassName(k0)}`,
        );
      return new PNotUndefType(k0);
    }
    case "Sensitive":
      if (n !== 1) arity("Sensitive-Type", 1, undefined, n);
      if (!isType(k0)) sliceType("Sensitive-Type", k0);
      return new PSensitiveType(k0);
    case "Type":
      if (n !== 1) arity("Type-Type", 1, undefined, n);
      if (!isType(k0)) sliceType("Type-Type", k0);
      return new PTypeType(k0);
    case "Iterable":
      if (n !== 1) arity("Iterable-Type", 1, undefined, n);
      if (!isType(k0)) sliceType("Iterable-Type", k0);
      return new PIterableType(k0);
    case "Iterator":
      if (n !== 1) arity("Iterator-Type", 1, undefined, n);
      if (!isType(k0)) sliceType("Iterator-Type", k0);
      return new PIteratorType(k0);
    case "Runtime":
      assertKeys(t, keys, 2, 2, ["String", "String"], (k) => typeof k === "string");
      return new PRuntimeType(k0 as string, keys[1] as string);
    case "Timespan":
    case "Timestamp": {
      if (n > 2) arity(t, 0, 2, n);
      const conv = t.kind === "Timespan" ? parseTimespanArg : parseTimestampArg;
      const from = k0 === undefined || k0 === DEFAULT ? undefined : conv(k0);
      const to = n < 2 ? from : keys[1] === undefined || keys[1] === DEFAULT ? undefined : conv(keys[1]);
      return t.kind === "Timespan"
        ? new PTimespanType(from as never, to as never)
        : new PTimestampType(from as never, to as never);
    }
    case "SemVer":
      assertKeys(
        t,
        keys,
        1,
        Number.POSITIVE_INFINITY,
        ["String", "SemanticPuppet::VersionRange"],
        (k) => typeof k === "string" || k instanceof PObject,
      );
      return new PSemVerType(keys.map((k) => (typeof k === "string" ? parseSemVerRange(k) : (k as never))));
    case "URI": {
      if (n !== 1) arity("URI-Type", 1, undefined, n);
      if (typeof k0 === "string" || isHash(k0)) return new PURIType(k0);
      return sliceType("URI-Type", k0);
    }
    case "Object":
      if (t instanceof PObjectType && t.typeName === "TypeSet") {
        if (n !== 1) arity("TypeSet-Type", 1, undefined, n);
        return createTypeSet(k0);
      }
      if (t === ERROR_TYPE) return parameterizeError(args);
      if (t instanceof PObjectType && t.typeName !== undefined)
        throw new TypeSystemError(`Not a parameterized type <${t.name}>`);
      if (n !== 1) arity("Object-Type", 1, undefined, n);
      return createObjectType(k0);
  }
  throw new TypeSystemError(`Operator '[]' is not applicable to ${aAn(typeLabel(t))}.`);
}

/** Struct[{...}] from its hash of key => value type. */
export function structOf(h: import("../values.js").PHash): PStructType {
  const elements: PStructElement[] = [];
  for (const [k, v] of h) {
    if (!isType(v)) throw new TypeSystemError("Struct element value_type must be a Type");
    let key: PType;
    if (typeof k === "string") {
      if (k === "") throw new TypeSystemError("Struct element key cannot be an empty String");
      key = new PStringType(undefined, k);
      if (v.isAssignable(UNDEF)) key = new POptionalType(key);
    } else {
      let s: PType | undefined;
      if (k instanceof PNotUndefType) {
        key = k.type ?? ANY;
        s = key;
      } else if (k instanceof POptionalType) {
        key = k;
        s = k.type;
      } else if (k instanceof PStringType) {
        key = k;
        s = k;
      } else if (k instanceof PEnumType) {
        key = k;
        s = k.values.length === 1 ? new PStringType(undefined, k.values[0]) : undefined;
        if (s) key = s;
      } else {
        throw new TypeSystemError(
          `Illegal Struct member key type. Expected NotUndef, Optional, String, or Enum. Got: ${rubyClassName(k)}`,
        );
      }
      if (!(s instanceof PStringType) || s.value === undefined)
        throw new TypeSystemError(
          `Unable to extract a non-empty literal string from Struct member key type ${String(k)}`,
        );
    }
    elements.push(new PStructElement(key, v));
  }
  return new PStructType(elements);
}

function accessCallable(t: PCallableType, args: readonly PValue[]): PType {
  let params = [...args];
  let returnType: PType | undefined;
  if (params.length > 0 && Array.isArray(params[0])) {
    if (params.length !== 2) arity(t, 2, 2, params.length);
    if (!isType(params[1])) badKey(t, params[1], ["Type"]);
    returnType = params[1];
    params = [...(params[0] as PValue[])];
  }
  let block: PType | undefined;
  const last = params[params.length - 1];
  if (isType(last) && isKindOfCallable(last)) {
    block = last;
    params = params.slice(0, -1);
  }
  let size: PIntegerType | undefined;
  const n = params.length;
  if (n >= 2 && isRangeParam(params[n - 2]) && isRangeParam(params[n - 1])) {
    size = intRange(params[n - 2], params[n - 1]);
    params = params.slice(0, -2);
  } else if (n >= 1 && isRangeParam(params[n - 1])) {
    size = intRange(params[n - 1], undefined);
    params = params.slice(0, -1);
  }
  for (const p of params) if (!isType(p)) badKey(t, p, ["Type"]);
  const types = params as PType[];
  if (types.length === 0 && size !== undefined && (size.to === undefined || size.to > 0n)) types.push(UNIT);
  return new PCallableType(new PTupleType(types, size), block, returnType);
}

function isKindOfCallable(t: PType): boolean {
  if (t instanceof PCallableType) return true;
  if (t instanceof POptionalType) return !!t.type && isKindOfCallable(t.type);
  if (t instanceof PVariantType) return t.types.length > 0 && t.types.every(isKindOfCallable);
  return false;
}

const CLASSREF_EXT = /^(?:::)?[A-Z][\w]*(?:::[A-Z][\w]*)*$/;
const NAME = /^(?:(?:::)?[a-z_]\w*)(?:::[a-z]\w*)*$/;

function accessResource(t: PResourceType, args: readonly PValue[]): PType | PType[] {
  // The common case, `File['/x']`: one title of a named type.
  const one = args.length === 1 ? args[0] : undefined;
  if (typeof one === "string" && t.typeName !== undefined && t.title === undefined) {
    const typeName = capitalizeSegments(t.typeName);
    if (CLASSREF_EXT.test(typeName)) return new PResourceType(typeName, one);
  }
  if (args.length === 0) arity(t.toString(), 1, -1, 0);
  const keys = [...args];
  let typeName: PValue = t.typeName ?? keys.shift();
  if (typeName instanceof PResourceType) typeName = typeName.typeName;
  if (typeof typeName !== "string")
    throw new TypeSystemError(
      `First argument to Resource[] must be a resource type or a String. Got ${badKeyTypeName(typeName)}.`,
    );
  typeName = capitalizeSegments(typeName);
  if (!CLASSREF_EXT.test(typeName))
    throw new TypeSystemError(
      `Illegal type reference. The given name '${typeName}' does not conform to the naming rule`,
    );
  if (t.title !== undefined)
    throw new TypeSystemError(
      `${t.toString()} is a reference to one resource: its parameters are the evaluator's business`,
    );
  const asArray = keys.length > 1 || Array.isArray(keys[0]);
  const origSize = keys.length;
  const titles = flatten(keys).filter((k) => k !== undefined);
  if (titles.length === 0 && origSize > 0) {
    throw new TypeSystemError("Arguments to Resource[] are all empty/undefined");
  }
  if (titles.length === 0) return new PResourceType(typeName);
  const result = titles.map((k) => {
    if (typeof k !== "string")
      specialization(t, `Cannot use ${badKeyTypeName(k)} where a resource title String is expected`);
    return new PResourceType(typeName as string, k);
  });
  return asArray ? result : (result[0] as PType);
}

function accessClass(t: PClassType, args: readonly PValue[]): PType | PType[] {
  if (args.length === 0) arity(t.toString(), 1, -1, 0);
  if (t.className !== undefined)
    throw new TypeSystemError(
      `${t.toString()} is a reference to one class: its parameters are the evaluator's business`,
    );
  const asArray = args.length > 1 || Array.isArray(args[0]);
  const names = flatten(args).filter((k) => k !== undefined);
  if (names.length === 0) throw new TypeSystemError("Arguments to Resource[] are all empty/undefined");
  const result = names.map((c, i) => {
    if (typeof c !== "string")
      throw new SliceTypeError(
        `Illegal Class name in class reference. ${aAnUc(isType(c) ? typeLabel(c) : badKeyTypeName(c))} cannot be used where a String is expected`,
        i,
      );
    let name = c.toLowerCase();
    if (name.startsWith("::")) name = name.slice(2);
    if (!NAME.test(name))
      throw new TypeSystemError(
        `Illegal name. The given name '${c}' does not conform to the naming rule /^((::)?[a-z_]\\w*)(::[a-z]\\w*)*$/`,
      );
    return new PClassType(name);
  });
  return asArray ? result : (result[0] as PType);
}
