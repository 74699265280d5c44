/**
 * The type of a value as Puppet's type calculator infers it (`infer`:
 * arrays and hashes by their common element type; `inferSet`: tuples and
 * structs element by element), and the common type of two types.
 */
import { bmax, bmin } from "./quote.js";
import { isHash, isType, PBinary, PIterator, PObject, PRegexp, PSensitive, type PValue } from "../values.js";
import {
  ANY,
  DEFERRED_TYPE,
  errorTypeOf,
  DATA,
  PAnyType,
  PArrayType,
  PBinaryType,
  PBooleanType,
  PCallableType,
  PClassType,
  PDefaultType,
  PEnumType,
  PFloatType,
  PHashType,
  PIntegerType,
  PIteratorType,
  PNumericType,
  PObjectType,
  PPatternType,
  PRegexpType,
  PResourceType,
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
  PTypeType,
  PUndefType,
  PUnitType,
  PURIType,
  PVariantType,
  RICH_DATA,
  setInfer,
  UNDEF,
  UNIT,
  variantOf,
} from "./model.js";

const size = (n: number): PIntegerType => new PIntegerType(BigInt(n), BigInt(n));

/** `type_of(v)` without detail: `Integer[3, 3]`, `Array[Integer, 2, 2]`... */
export function inferType(v: PValue): PType {
  switch (typeof v) {
    case "undefined":
      return UNDEF;
    case "symbol":
      return new PDefaultType();
    case "bigint":
      return new PIntegerType(v, v);
    case "number":
      return new PFloatType(v, v);
    case "string":
      return new PStringType(undefined, v);
    case "boolean":
      return new PBooleanType(v);
  }
  if (Array.isArray(v)) {
    if (v.length === 0) return new PArrayType(UNIT, new PIntegerType(0n, 0n));
    return new PArrayType(reduceType(v.map(inferType)), size(v.length));
  }
  if (isHash(v)) {
    if (v.size === 0) return new PHashType(UNIT, UNIT, new PIntegerType(0n, 0n));
    return new PHashType(
      reduceType([...v.keys()].map(inferType)),
      reduceType([...v.values()].map(inferType)),
      size(v.size),
    );
  }
  return inferOther(v);
}

function inferOther(v: PValue): PType {
  if (v instanceof PRegexp) return new PRegexpType(v.source);
  if (v instanceof PSensitive) return new PSensitiveType(inferType(v.value));
  if (v instanceof PBinary) return new PBinaryType();
  if (v instanceof PIterator) return new PIteratorType(v.elementType);
  if (isType(v)) return new PTypeType(v);
  if (v instanceof PObject) {
    switch (v.typeName) {
      case "Timespan":
        return new PTimespanType(v as never, v as never);
      case "Timestamp":
        return new PTimestampType(v as never, v as never);
      case "SemVer":
        return new PSemVerType();
      case "SemVerRange":
        return new PSemVerRangeType();
      case "URI":
        return new PURIType(v.toString());
    }
    const inferred = (v as { inferredType?: () => PType }).inferredType?.();
    if (inferred) return inferred;
    const own = (v as { type?: PValue }).type;
    if (isType(own)) return own;
    if (v.typeName === "Error") return errorTypeOf(v);
    if (v.typeName === "Deferred") return DEFERRED_TYPE;
    return new PObjectType(v.typeName);
  }
  if (typeof v === "object" && v !== null && (v as { kind?: unknown }).kind === "callable") {
    const c = v as unknown as {
      minArgs: number;
      maxArgs: number;
      paramTypes?: readonly PType[];
      callableType?: () => PType;
    };
    if (c.callableType) return c.callableType();
    const types = c.paramTypes
      ? [...c.paramTypes]
      : Array.from({ length: Math.min(c.maxArgs, c.minArgs) }, () => ANY);
    const max = c.maxArgs === Number.POSITIVE_INFINITY ? undefined : BigInt(c.maxArgs);
    return new PCallableType(new PTupleType(types, new PIntegerType(BigInt(c.minArgs), max)));
  }
  return new PAnyType();
}

/** `type(v, detailed)`: arrays as tuples, hashes with string keys as structs. */
export function inferSet(v: PValue): PType {
  if (Array.isArray(v)) {
    if (v.length === 0) return new PArrayType(UNIT, new PIntegerType(0n, 0n));
    return new PTupleType(v.map(inferSet));
  }
  if (isHash(v)) {
    if (v.size === 0) return new PHashType(UNIT, UNIT, new PIntegerType(0n, 0n));
    const keys = [...v.keys()];
    if (keys.every((k) => typeof k === "string" && k.length > 0))
      return new PStructType(
        [...v].map(([k, x]) => new PStructElement(new PStringType(undefined, k as string), inferSet(x))),
      );
    return new PHashType(
      variantOf(keys.map(inferSet)),
      variantOf([...v.values()].map(inferSet)),
      size(v.size),
    );
  }
  if (v instanceof PObject && v.typeName === "SemVer") {
    const r = (v as PObject & { asRange?: () => PObject }).asRange?.();
    if (r) return new PSemVerType([r as never]);
  }
  return inferType(v);
}

/** `infer(v).generalize`: the type without value bounds (`Integer`, `Array[String]`). */
export function inferGeneric(v: PValue): PType {
  return inferType(v).generalize();
}

export function reduceType(types: readonly PType[]): PType {
  let memo: PType | undefined;
  for (const t of types) memo = memo === undefined ? t : commonType(memo, t);
  return memo ?? UNIT;
}

/** The narrowest type both `t1` and `t2` are assignable to (Puppet's common_type). */
export function commonType(t1: PType, t2: PType): PType {
  if (t1 instanceof PUndefType) return t2;
  if (t2 instanceof PUndefType) return t1;
  if (t1 instanceof PUnitType) return t2;
  if (t2 instanceof PUnitType) return t1;
  if (t1.isAssignable(t2)) return t1;
  if (t2.isAssignable(t1)) return t2;
  if (t1 instanceof PArrayType && t2 instanceof PArrayType)
    return new PArrayType(commonType(t1.elementType, t2.elementType));
  if (t1 instanceof PHashType && t2 instanceof PHashType)
    return new PHashType(commonType(t1.keyType, t2.keyType), commonType(t1.valueType, t2.valueType));
  if (t1 instanceof PClassType && t2 instanceof PClassType) return new PClassType();
  if (t1 instanceof PResourceType && t2 instanceof PResourceType)
    return t1.typeName === t2.typeName ? new PResourceType(t1.typeName) : new PResourceType();
  if (t1 instanceof PIntegerType && t2 instanceof PIntegerType) {
    const from = t1.from === undefined || t2.from === undefined ? undefined : bmin(t1.from, t2.from);
    const to = t1.to === undefined || t2.to === undefined ? undefined : bmax(t1.to, t2.to);
    return new PIntegerType(from, to);
  }
  if (t1 instanceof PFloatType && t2 instanceof PFloatType) {
    const from = t1.from === undefined || t2.from === undefined ? undefined : Math.min(t1.from, t2.from);
    const to = t1.to === undefined || t2.to === undefined ? undefined : Math.max(t1.to, t2.to);
    return new PFloatType(from, to);
  }
  if (t1 instanceof PStringType && (t2 instanceof PStringType || t2 instanceof PEnumType)) {
    if (t2 instanceof PEnumType)
      return t1.value === undefined ? new PEnumType([]) : new PEnumType([...t2.values, t1.value]);
    if (!t1.sizeType || !t2.sizeType)
      return t1.value === undefined || t2.value === undefined
        ? new PStringType()
        : new PEnumType([t1.value, t2.value]);
    return new PStringType(commonType(t1.sizeType, t2.sizeType) as PIntegerType);
  }
  if (t1 instanceof PPatternType && t2 instanceof PPatternType) {
    const all = [...t1.patterns];
    for (const p of t2.patterns) if (!all.some((q) => q.pattern === p.pattern)) all.push(p);
    return new PPatternType(all);
  }
  if (t1 instanceof PEnumType && (t2 instanceof PStringType || t2 instanceof PEnumType)) {
    if (t2 instanceof PEnumType) return new PEnumType([...t1.values, ...t2.values]);
    return t2.value === undefined ? new PEnumType([]) : new PEnumType([...t1.values, t2.value]);
  }
  if (t1 instanceof PVariantType && t2 instanceof PVariantType) return variantOf([...t1.types, ...t2.types]);
  if (t1 instanceof PRegexpType && t2 instanceof PRegexpType) return new PRegexpType();
  if (t1 instanceof PCallableType && t2 instanceof PCallableType) return new PCallableType();
  const both = (t: PType): boolean => t.isAssignable(t1) && t.isAssignable(t2);
  if (both(new PNumericType())) return new PNumericType();
  if (both(new PScalarDataType())) return new PScalarDataType();
  if (both(new PScalarType())) return new PScalarType();
  if (both(DATA())) return DATA();
  if (t1 instanceof PTypeType && t2 instanceof PTypeType)
    return new PTypeType(commonType(t1.type ?? ANY, t2.type ?? ANY));
  if (both(RICH_DATA())) return RICH_DATA();
  return new PAnyType();
}

setInfer(inferType);
export { PUndefType };
