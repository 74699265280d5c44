/**
 * Puppet's texts for a value that does not match a type (the
 * TypeMismatchDescriber): "parameter 'x' expects an Integer value, got
 * String", "expects a match for Enum['a', 'b'], got 'c'", struct keys,
 * sizes, and variants merged into one line when they agree.
 */
import { bmax, bmin } from "./quote.js";
import type { PValue } from "../values.js";
import { inferSet } from "./infer.js";
import {
  PObjectType,
  ANY,
  PAnyType,
  PArrayType,
  PCallableType,
  PCollectionType,
  PEnumType,
  PHashType,
  PIntegerType,
  PNotUndefType,
  POptionalType,
  PPatternType,
  PSensitiveType,
  PStringType,
  PStructType,
  PTupleType,
  type PType,
  PTypeAliasType,
  PTypeReferenceType,
  PTypeType,
  PUndefType,
  PVariantType,
  UNDEF,
  variantOf,
} from "./model.js";

type PathKind = "subject" | "entry" | "key" | "index" | "variant" | "signature" | "return" | "block";
interface PathElement {
  kind: PathKind;
  key: string | number;
}
function pathText(p: PathElement): string {
  switch (p.kind) {
    case "entry":
      return `entry '${p.key}'`;
    case "key":
      return `key of entry '${p.key}'`;
    case "index":
      return `index ${p.key}`;
    case "variant":
      return `variant ${p.key}`;
    case "signature":
      return `${Number(p.key) + 1}.`;
    case "return":
      return "return";
    case "block":
      return "block";
  }
  return String(p.key);
}

abstract class Mismatch {
  constructor(public path: PathElement[]) {}
  canonicalPath(): string {
    return this.path
      .filter((e) => e.kind !== "variant")
      .map(pathText)
      .join(" ");
  }
  abstract message(variant: string, position: string): string;
  merge(path: PathElement[], _o: Mismatch): Mismatch {
    return this.withPath(path);
  }
  withPath(path: PathElement[]): Mismatch {
    const c = Object.create(Object.getPrototypeOf(this)) as Mismatch;
    Object.assign(c, this);
    c.path = path;
    return c;
  }
  chopPath(i: number): Mismatch {
    if (i >= this.path.length) return this;
    const p = [...this.path];
    p.splice(i, 1);
    return this.withPath(p);
  }
  format(): string {
    let p = this.path;
    let variant = "";
    let position = "";
    if (p.length > 0) {
      const f = p[0] as PathElement;
      if (f.kind === "signature") {
        variant = ` ${pathText(f)}`;
        p = p.slice(1);
      }
      if (p.length > 0) position = ` ${p.map(pathText).join(" ")}`;
    }
    return this.message(variant, position);
  }
  same(o: Mismatch): boolean {
    return (
      this.constructor === o.constructor && this.canonicalPath() === o.canonicalPath() && this.sameDetail(o)
    );
  }
  sameDetail(_o: Mismatch): boolean {
    return true;
  }
}

class MissingKey extends Mismatch {
  constructor(
    path: PathElement[],
    readonly key: string,
  ) {
    super(path);
  }
  message(v: string, p: string): string {
    return `${v}${p} expects a value for key '${this.key}'`;
  }
  override sameDetail(o: Mismatch): boolean {
    return (o as MissingKey).key === this.key;
  }
}

class ExtraneousKey extends Mismatch {
  constructor(
    path: PathElement[],
    readonly key: string,
  ) {
    super(path);
  }
  message(v: string, p: string): string {
    return `${v}${p} unrecognized key '${this.key}'`;
  }
  override sameDetail(o: Mismatch): boolean {
    return (o as ExtraneousKey).key === this.key;
  }
}

class UnresolvedTypeReference extends Mismatch {
  constructor(
    path: PathElement[],
    readonly unresolved: string,
  ) {
    super(path);
  }
  message(v: string, p: string): string {
    return `${v}${p} references an unresolved type '${this.unresolved}'`;
  }
}

function labelA(text: string): string {
  let c = text.charAt(0);
  if (c === "'" || c === '"') c = text.charAt(1);
  return `${"aeiouAEIOU".includes(c) && c !== "" ? "an" : "a"} ${text}`;
}

/** An alias defining an Object type: Puppet names the Object type itself. */
function objectAlias(t: PTypeAliasType): boolean {
  try {
    const r = t.resolvedType();
    return r instanceof PObjectType && r.typeName === t.aliasName;
  } catch {
    return false;
  }
}

const BUILTIN_ALIASES = new Set([
  "Data",
  "RichDataKey",
  "RichData",
  "Puppet::LookupKey",
  "Puppet::LookupValue",
]);
function aliasExpanded(t: PType): string {
  if (t instanceof PTypeAliasType && objectAlias(t)) return t.aliasName;
  if (t instanceof PTypeAliasType && !BUILTIN_ALIASES.has(t.aliasName))
    return `${t.aliasName} = ${t.resolvedType().toString()}`;
  return t.toString();
}

function shortName(t: PType): string {
  if (
    (t instanceof POptionalType ||
      t instanceof PNotUndefType ||
      t instanceof PSensitiveType ||
      t instanceof PTypeType) &&
    t.type !== undefined &&
    t.type.constructor !== PAnyType
  )
    return `${t.name}[${t.type.name}]`;
  return t.name;
}

/** The kind used for "same class" tests: Ruby compares classes, aliases and variants apart. */
function cls(t: PType): unknown {
  return t.constructor;
}

function resolved(t: PType): PType {
  return t instanceof PTypeAliasType ? resolved(t.resolvedType()) : t;
}

function defaultOf(t: PType): PType {
  const c = t.constructor as new () => PType;
  switch (t.kind) {
    case "Enum":
      return new PEnumType([]);
    case "Pattern":
      return new PPatternType([]);
    case "Tuple":
      return new PTupleType([]);
    case "Struct":
      return new PStructType([]);
    case "Variant":
      return new PVariantType([]);
  }
  try {
    return new c();
  } catch {
    return ANY;
  }
}

class TypeMismatch extends Mismatch {
  readonly expected: PType;
  readonly actual: PType;
  constructor(path: PathElement[], expected: PType | PType[], actual: PType) {
    super(path);
    this.expected = (Array.isArray(expected) ? variantOf(expected) : expected).normalize();
    this.actual = actual.normalize();
  }
  override merge(path: PathElement[], o: Mismatch): Mismatch {
    const oe = (o as TypeMismatch).expected;
    const list: PType[] = [];
    for (const t of [this.expected, oe]) if (!list.some((x) => x.equals(t))) list.push(t);
    return new (this.constructor as typeof TypeMismatch)(path, list, this.actual);
  }
  override sameDetail(o: Mismatch): boolean {
    const m = o as TypeMismatch;
    return m.expected.equals(this.expected) && m.actual.equals(this.actual);
  }
  message(variant: string, position: string): string {
    let e: PType | PType[] = this.expected;
    let a: PType | string = this.actual;
    let multi = false;
    let optional = false;
    if (e instanceof POptionalType) {
      e = e.type ?? ANY;
      optional = true;
    }
    if (e instanceof PVariantType) e = [...e.types];
    let text: string;
    if (Array.isArray(e)) {
      let names: string[];
      if (reportDetailed(e, a)) {
        a = detailedActual(e, a);
        names = e.map(aliasExpanded);
      } else {
        names = [...new Set(e.map(shortName))];
        a = shortName(a);
      }
      if (optional) names.unshift("Undef");
      if (names.length === 1) text = names[0] as string;
      else if (names.length === 2) {
        text = `${names[0]} or ${names[1]}`;
        multi = true;
      } else {
        text = `${names.slice(0, -1).join(", ")}, or ${names[names.length - 1]}`;
        multi = true;
      }
    } else {
      if (reportDetailed(e, a)) {
        a = detailedActual(e, a);
        text = aliasExpanded(e);
      } else {
        text = shortName(e);
        a = shortName(a);
      }
      if (optional) {
        text = `Undef or ${text}`;
        multi = true;
      }
    }
    const got = typeof a === "string" ? a : String(a);
    return multi
      ? `${variant}${position} expects a value of type ${text}, got ${got}`
      : `${variant}${position} expects ${labelA(text)} value, got ${got}`;
  }
}

function specializationOf(e: PType, a: PType): boolean {
  if (e instanceof PStructType) return a instanceof PHashType;
  if (e instanceof PTupleType) return a instanceof PArrayType;
  return false;
}
function alwaysFullyDetailed(e: PType | PType[], a: PType): boolean {
  if (Array.isArray(e)) return e.some((t) => alwaysFullyDetailed(t, a));
  return (
    cls(e) === cls(a) || e instanceof PTypeAliasType || a instanceof PTypeAliasType || specializationOf(e, a)
  );
}
function anyAssignable(e: PType | PType[], a: PType): boolean {
  return Array.isArray(e) ? e.some((t) => t.isAssignable(a)) : e.isAssignable(a);
}
function assignableToDefault(e: PType | PType[], a: PType): boolean {
  if (Array.isArray(e)) return e.some((t) => assignableToDefault(t, a));
  return defaultOf(resolved(e)).isAssignable(a);
}
function reportDetailed(e: PType | PType[], a: PType): boolean {
  return alwaysFullyDetailed(e, a) || assignableToDefault(e, a);
}
function allResolved(e: PType | PType[]): PType | PType[] {
  return Array.isArray(e) ? e.map(resolved) : resolved(e);
}
function detailedActual(e: PType | PType[], a: PType): string {
  const r = allResolved(e);
  if (alwaysFullyDetailed(r, a)) return aliasExpanded(a);
  return anyAssignable(r, a.generalize()) ? aliasExpanded(a) : a.name;
}

class PatternMismatch extends TypeMismatch {
  override message(variant: string, position: string): string {
    let e = this.expected;
    let pfx = "";
    if (e instanceof POptionalType) {
      e = e.type ?? ANY;
      pfx = "an undef value or ";
    }
    const a = this.actual;
    const got = a instanceof PStringType && a.value !== undefined ? `'${a.value}'` : shortName(a);
    return `${variant}${position} expects ${pfx}a match for ${aliasExpanded(e)}, got ${got}`;
  }
}

class SizeMismatch extends Mismatch {
  constructor(
    path: PathElement[],
    readonly expected: PIntegerType,
    readonly actual: PIntegerType,
  ) {
    super(path);
  }
  get from(): bigint {
    return this.expected.from ?? 0n;
  }
  get to(): bigint | undefined {
    return this.expected.to;
  }
  override merge(path: PathElement[], o: Mismatch): Mismatch {
    const m = o as SizeMismatch;
    const from = bmin(this.from, m.from);
    const to = this.to === undefined || m.to === undefined ? undefined : bmax(this.to, m.to);
    return new (this.constructor as typeof SizeMismatch)(path, new PIntegerType(from, to), this.actual);
  }
  message(v: string, p: string): string {
    return `${v}${p} expects size to be ${rangeText(this.expected, "0")}, got ${rangeText(this.actual, "0")}`;
  }
}

/** A callable's parameters: "expects 2 arguments, got at least 1". */
class CountMismatch extends SizeMismatch {
  override message(v: string, p: string): string {
    const min = this.from;
    const max = this.to;
    const one = (min === 1n && (max === 1n || max === undefined)) || (min === 0n && max === 1n);
    return `${v}${p} expects ${rangeText(this.expected, "no")} argument${one ? "" : "s"}, got ${rangeText(this.actual, "none")}`;
  }
}

function rangeText(r: PIntegerType, zero: string): string {
  const min = r.from ?? 0n;
  const max = r.to;
  if (max !== undefined && min === max) return min === 0n ? zero : min.toString();
  if (min === 0n) return max === undefined ? "unlimited" : `at most ${max}`;
  if (max === undefined) return `at least ${min}`;
  return `between ${min} and ${max}`;
}

const DEFAULT_SIZE = (): PIntegerType => new PIntegerType(0n);

function findUnresolved(t: PType, seen = new Set<PType>()): string | undefined {
  if (seen.has(t)) return undefined;
  seen.add(t);
  if (t instanceof PTypeReferenceType) return t.typeString;
  const kids: PType[] = [];
  if (t instanceof PVariantType || t instanceof PTupleType) kids.push(...t.types);
  else if (t instanceof PArrayType) kids.push(t.elementType);
  else if (t instanceof PHashType) kids.push(t.keyType, t.valueType);
  else if (t instanceof PStructType) for (const e of t.elements) kids.push(e.keyType, e.valueType);
  else if ("type" in t && (t as { type?: unknown }).type instanceof Object)
    kids.push((t as unknown as { type: PType }).type);
  for (const k of kids) {
    const u = findUnresolved(k, seen);
    if (u) return u;
  }
  return undefined;
}

function describe(expected: PType, actual: PType, path: PathElement[]): Mismatch[] {
  const u = findUnresolved(expected);
  if (u) return [new UnresolvedTypeReference(path, u)];
  return internalDescribe(expected.normalize(), expected, actual, path);
}

function internalDescribe(expected: PType, original: PType, actual: PType, path: PathElement[]): Mismatch[] {
  if (expected instanceof PVariantType) return describeVariant(expected, original, actual, path);
  if (expected instanceof PStructType) return describeStruct(expected, original, actual, path);
  if (expected instanceof PHashType) return describeHash(expected, original, actual, path);
  if (expected instanceof PTupleType) return describeTuple(expected, original, actual, path);
  if (expected instanceof PArrayType) return describeArray(expected, original, actual, path);
  if (expected instanceof PCallableType) return describeCallable(expected, original, actual, path);
  if (expected instanceof POptionalType) {
    if (actual instanceof PUndefType || !expected.type) return [];
    return internalDescribe(
      expected.type,
      original instanceof PTypeAliasType ? original : expected,
      actual,
      path,
    );
  }
  if (expected instanceof PPatternType || expected instanceof PEnumType)
    return [new PatternMismatch(path, original, actual)];
  if (expected instanceof PTypeAliasType)
    return internalDescribe(expected.resolvedType().normalize(), expected, actual, path);
  return expected.isAssignable(actual) ? [] : [new TypeMismatch(path, original, actual)];
}

function describeVariant(
  expected: PVariantType,
  original: PType,
  actual: PType,
  path: PathElement[],
): Mismatch[] {
  const all: Mismatch[][] = [];
  const types = original instanceof POptionalType ? [UNDEF, ...expected.types] : expected.types;
  for (let i = 0; i < types.length; i++) {
    const d = describe(types[i] as PType, actual, [...path, { kind: "variant", key: i }]);
    if (d.length === 0) return [];
    all.push(d);
  }
  const descriptions = mergeDescriptions(path.length, all);
  if (original instanceof PTypeAliasType && descriptions.length === 1)
    return [new TypeMismatch(path, original, actual)];
  return descriptions;
}

function mergeDescriptions(varying: number, variants: Mismatch[][]): Mismatch[] {
  let descriptions = variants.flat();
  for (const c of [SizeMismatch, TypeMismatch] as const) {
    const ms = descriptions.filter((d) => d instanceof c);
    if (ms.length === variants.length) {
      let generic: Mismatch | undefined = ms[0];
      for (const m of ms.slice(1)) {
        if (!generic || generic.canonicalPath() !== m.canonicalPath()) {
          generic = undefined;
          break;
        }
        generic = generic.merge(generic.path, m);
      }
      if (generic) {
        descriptions = [generic];
        break;
      }
    }
  }
  const uniq: Mismatch[] = [];
  for (const d of descriptions) if (!uniq.some((u) => u.same(d))) uniq.push(d);
  return uniq.length === 1 ? [(uniq[0] as Mismatch).chopPath(varying)] : uniq;
}

function describeArray(
  expected: PArrayType,
  original: PType,
  actual: PType,
  path: PathElement[],
): Mismatch[] {
  const out: Mismatch[] = [];
  const et = expected.elementType;
  if (actual instanceof PTupleType) {
    const n = BigInt(actual.types.length);
    const es = expected.sizeType ?? DEFAULT_SIZE();
    const as = actual.sizeType ?? new PIntegerType(n, n);
    if (es.isAssignable(as)) {
      actual.types.forEach((t, i) => {
        if (!et.isAssignable(t)) out.push(...describe(et, t, [...path, { kind: "index", key: i }]));
      });
    } else out.push(new SizeMismatch(path, es, as));
  } else if (actual instanceof PArrayType) {
    const es = expected.sizeType;
    const as = actual.sizeType ?? DEFAULT_SIZE();
    if (!es || es.isAssignable(as))
      out.push(new TypeMismatch(path, original, new PArrayType(actual.elementType)));
    else out.push(new SizeMismatch(path, es, as));
  } else out.push(new TypeMismatch(path, original, actual));
  return out;
}

function describeHash(expected: PHashType, original: PType, actual: PType, path: PathElement[]): Mismatch[] {
  const out: Mismatch[] = [];
  if (actual instanceof PStructType) {
    const es = expected.sizeType ?? DEFAULT_SIZE();
    const req = actual.elements.filter((a) => !a.keyType.isAssignable(UNDEF)).length;
    const as = new PIntegerType(BigInt(req), BigInt(actual.elements.length));
    if (es.isAssignable(as)) {
      for (const a of actual.elements) {
        if (!expected.keyType.isAssignable(a.keyType))
          out.push(...describe(expected.keyType, a.keyType, [...path, { kind: "key", key: a.name }]));
        if (!expected.valueType.isAssignable(a.valueType))
          out.push(...describe(expected.valueType, a.valueType, [...path, { kind: "entry", key: a.name }]));
      }
    } else out.push(new SizeMismatch(path, es, as));
  } else if (actual instanceof PHashType) {
    const es = expected.sizeType;
    const as = actual.sizeType ?? DEFAULT_SIZE();
    if (!es || es.isAssignable(as))
      out.push(new TypeMismatch(path, original, new PHashType(actual.keyType, actual.valueType)));
    else out.push(new SizeMismatch(path, es, as));
  } else out.push(new TypeMismatch(path, original, actual));
  return out;
}

function describeStruct(
  expected: PStructType,
  original: PType,
  actual: PType,
  path: PathElement[],
): Mismatch[] {
  const out: Mismatch[] = [];
  if (actual instanceof PStructType) {
    const h2 = new Map(actual.hashedElements);
    for (const e1 of expected.elements) {
      const key = e1.name;
      const e2 = h2.get(key);
      h2.delete(key);
      if (!e2) {
        if (!e1.keyType.isAssignable(UNDEF)) out.push(new MissingKey(path, key));
      } else {
        if (!e1.keyType.isAssignable(e2.keyType))
          out.push(...describe(e1.keyType, e2.keyType, [...path, { kind: "key", key }]));
        if (!e1.valueType.isAssignable(e2.valueType))
          out.push(...describe(e1.valueType, e2.valueType, [...path, { kind: "entry", key }]));
      }
    }
    for (const k of h2.keys()) out.push(new ExtraneousKey(path, k));
  } else if (actual instanceof PHashType) {
    const as = actual.sizeType ?? DEFAULT_SIZE();
    const req = expected.elements.filter((e) => !e.keyType.isAssignable(UNDEF)).length;
    const es = new PIntegerType(BigInt(req), BigInt(expected.elements.length));
    if (es.isAssignable(as))
      out.push(new TypeMismatch(path, original, new PHashType(actual.keyType, actual.valueType)));
    else out.push(new SizeMismatch(path, es, as));
  } else out.push(new TypeMismatch(path, original, actual));
  return out;
}

/**
 * As Puppet's describer: the callable's parameters are compared the other
 * way round from its assignability (each expected parameter type must be
 * assignable to the actual one's), then the return type, then the block.
 */
function describeCallable(
  expected: PCallableType,
  original: PType,
  actual: PType,
  path: PathElement[],
): Mismatch[] {
  if (!(actual instanceof PCallableType)) return [new TypeMismatch(path, original, actual)];
  if (expected.paramTypes === undefined && expected.returnType === undefined) return [];
  if (expected.paramTypes !== undefined) {
    if (actual.paramTypes === undefined) return [new TypeMismatch(path, original, actual)];
    const errors = describeTuple(expected.paramTypes, expected.paramTypes, actual.paramTypes, path, true);
    if (errors.length > 0) return errors;
  }
  const er = expected.returnType ?? ANY;
  const ar = actual.returnType ?? ANY;
  if (!er.isAssignable(ar)) return [new TypeMismatch([...path, { kind: "return", key: "" }], er, ar)];
  const eb = expected.blockType ?? UNDEF;
  const ab = actual.blockType ?? UNDEF;
  return ab.isAssignable(eb) ? [] : [new TypeMismatch([...path, { kind: "block", key: "" }], eb, ab)];
}

function describeTuple(
  expected: PTupleType,
  original: PType,
  actual: PType,
  path: PathElement[],
  counts = false,
): Mismatch[] {
  if (expected.equals(actual) || (expected.types.length === 0 && actual instanceof PArrayType)) return [];
  const es = expected.sizeAsType();
  if (actual instanceof PTupleType) {
    const as = actual.sizeAsType();
    if (!es.isAssignable(as)) return [new (counts ? CountMismatch : SizeMismatch)(path, es, as)];
    const out: Mismatch[] = [];
    const et = expected.types;
    if (et.length > 0)
      actual.types.forEach((t, i) => {
        const adx = i >= et.length ? et.length - 1 : i;
        out.push(...describe(et[adx] as PType, t, [...path, { kind: "index", key: adx }]));
      });
    return out;
  }
  if (actual instanceof PArrayType) {
    const as = actual.sizeType ?? DEFAULT_SIZE();
    if (!es.isAssignable(as)) return [new SizeMismatch(path, es, as)];
    const out: Mismatch[] = [];
    expected.types.forEach((t, i) => {
      out.push(...describe(t, actual.elementType, [...path, { kind: "index", key: i }]));
    });
    return out;
  }
  return [new TypeMismatch(path, original, actual)];
}

/** Puppet's text for a value of the wrong type: `subject` is e.g. "parameter 'x'" or "Class[Foo]: parameter 'x'". */
export function describeMismatch(subject: string, expected: PType, actual: PValue): string {
  return describeTypeMismatch(subject, expected, inferSet(actual));
}

/** Each problem the describer finds with `actual` as a `expected` (" entry 'x' expects ..."), in its order. */
export function describeValueMismatches(expected: PType, actual: PValue): string[] {
  return describe(expected, inferSet(actual), []).map((m) => m.format());
}

/**
 * Why a block of type `actual` does not fit a function signature's block
 * type `expected`, as Puppet's describer words each problem: " block
 * expects 2 arguments, got 1", " block index 0 expects a Type value, got
 * Integer" (none: the describer finds nothing, though the block is refused).
 */
export function describeBlockMismatch(
  expected: PType,
  actual: PType,
): { count?: { expected: PIntegerType; actual: PIntegerType }; text: string }[] {
  return describe(expected, actual, [{ kind: "block", key: "" }]).map((m) => ({
    ...(m instanceof CountMismatch ? { count: { expected: m.expected, actual: m.actual } } : {}),
    text: m.format(),
  }));
}

/**
 * A resource's parameter of the wrong type, as Puppet's validate_parameters
 * words it: `Foo[bar]: parameter 'a' expects ...`, or with several
 * problems, `Foo[bar]:` and one indented line each.
 */
export function describeParameterMismatch(
  subject: string,
  name: string,
  expected: PType,
  actual: PValue,
): string {
  const errors = describe(expected, inferSet(actual), [{ kind: "subject", key: `parameter '${name}'` }]);
  if (errors.length === 1) return `${subject}:${(errors[0] as Mismatch).format()}`;
  return `${subject}:\n ${errors.map((e) => e.format()).join("\n ")}`;
}

/** The same, for an actual type rather than a value. */
export function describeTypeMismatch(subject: string, expected: PType, actual: PType): string {
  const errors = describe(expected, actual, [{ kind: "subject", key: subject }]);
  if (errors.length === 0) return "";
  if (errors.length === 1) return (errors[0] as Mismatch).format().trim();
  return errors.map((e) => e.format()).join("\n ");
}

export { PCollectionType };
