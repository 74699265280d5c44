/**
 * Every Puppet 7 type as a class. Assignability follows Puppet's type
 * calculator (lib/puppet/pops/types/types.rb): the generic cases are in
 * base.ts, each class answers `assignableFrom` for its own kind.
 */
import { bmax, bmin } from "./quote.js";
import { lowerCaseName } from "../lower-case.js";
import { rubyRegExp } from "../../types/ruby-regexp.js";
import {
  DEFAULT,
  equals as pEquals,
  isHash,
  isType,
  PBinary,
  PHash,
  PIterator,
  PObject,
  PRegexp,
  PSensitive,
  type PValue,
} from "../values.js";
import { PType, RecursionGuard, setUndefProbe, TypeSystemError } from "./base.js";
import { formatTypeArg, puppetQuote, regexpToString, rubyFloat } from "./quote.js";

export { PType, RecursionGuard, TypeSystemError };

const isCallableValue = (v: PValue): boolean =>
  typeof v === "object" && v !== null && (v as { kind?: unknown }).kind === "callable" && !isType(v);

/* ---------------------------------------------------------------- simple */

export class PAnyType extends PType {
  get name(): string {
    return "Any";
  }
  isInstance(_v: PValue): boolean {
    return true;
  }
  protected assignableFrom(o: PType): boolean {
    return o instanceof PType;
  }
  toString(): string {
    return this.name;
  }
  equals(other: PType): boolean {
    return other.constructor === this.constructor;
  }
}

export class PUnitType extends PAnyType {
  override get name(): string {
    return "Unit";
  }
  override isAssignable(): boolean {
    return true;
  }
}

export class PUndefType extends PAnyType {
  override get name(): string {
    return "Undef";
  }
  override isInstance(v: PValue): boolean {
    return v === undefined;
  }
  protected override assignableFrom(o: PType): boolean {
    return o instanceof PUndefType;
  }
}

export class PDefaultType extends PAnyType {
  override get name(): string {
    return "Default";
  }
  override isInstance(v: PValue): boolean {
    return v === DEFAULT;
  }
  protected override assignableFrom(o: PType): boolean {
    return o instanceof PDefaultType;
  }
}

export class PScalarType extends PAnyType {
  override get name(): string {
    return "Scalar";
  }
  override isInstance(v: PValue): boolean {
    switch (typeof v) {
      case "string":
      case "bigint":
      case "number":
      case "boolean":
        return true;
    }
    if (v instanceof PRegexp) return true;
    if (v instanceof PObject) return ["Timespan", "Timestamp", "SemVer", "SemVerRange"].includes(v.typeName);
    return false;
  }
  protected override assignableFrom(o: PType): boolean {
    return (
      o instanceof PScalarType ||
      o instanceof PSemVerType ||
      o instanceof PSemVerRangeType ||
      o instanceof PTimespanType ||
      o instanceof PTimestampType
    );
  }
}

export class PScalarDataType extends PScalarType {
  override get name(): string {
    return "ScalarData";
  }
  override isInstance(v: PValue): boolean {
    const t = typeof v;
    return t === "string" || t === "bigint" || t === "number" || t === "boolean";
  }
  protected override assignableFrom(o: PType): boolean {
    return (
      o instanceof PScalarDataType ||
      o instanceof PStringType ||
      o instanceof PEnumType ||
      o instanceof PPatternType ||
      o instanceof PNumericType ||
      o instanceof PBooleanType
    );
  }
}

/* --------------------------------------------------------------- numbers */

/** Integer bounds: undefined is unbounded. */
export class PNumericType extends PScalarDataType {
  constructor(
    readonly from?: bigint | number,
    readonly to?: bigint | number,
  ) {
    super();
  }
  override get name(): string {
    return "Numeric";
  }
  get numericFrom(): number | bigint {
    return this.from ?? Number.NEGATIVE_INFINITY;
  }
  get numericTo(): number | bigint {
    return this.to ?? Number.POSITIVE_INFINITY;
  }
  isUnbounded(): boolean {
    return this.from === undefined && this.to === undefined;
  }
  override isInstance(v: PValue): boolean {
    return (typeof v === "bigint" || typeof v === "number") && inRange(v, this.from, this.to);
  }
  protected override assignableFrom(o: PType): boolean {
    if (!(o instanceof (this.constructor as typeof PNumericType))) return false;
    return le(this.numericFrom, o.numericFrom) && le(o.numericTo, this.numericTo);
  }
  override toString(): string {
    if (this.isUnbounded()) return this.name;
    const parts = [this.from === undefined ? "default" : numText(this.from)];
    if (this.to !== undefined) parts.push(numText(this.to));
    return `${this.name}[${parts.join(", ")}]`;
  }
  override equals(other: PType): boolean {
    return (
      other.constructor === this.constructor &&
      eqNum((other as PNumericType).from, this.from) &&
      eqNum((other as PNumericType).to, this.to)
    );
  }
  override generalize(): PType {
    return new (this.constructor as new () => PNumericType)();
  }
}

function numText(n: bigint | number): string {
  if (typeof n === "bigint") return n.toString();
  return formatFloat(n);
}

/** Ruby's Float#to_s. */
export const formatFloat = rubyFloat;

function eqNum(a: bigint | number | undefined, b: bigint | number | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  // biome-ignore lint/suspicious/noDoubleEquals: bigint vs number compare by value
  return a == b;
}

/** a <= b across bigint, number and the infinities. */
export function le(a: bigint | number, b: bigint | number): boolean {
  return a <= b;
}

function inRange(
  v: bigint | number,
  from: bigint | number | undefined,
  to: bigint | number | undefined,
): boolean {
  return (from === undefined || from <= v) && (to === undefined || v <= to);
}

export class PIntegerType extends PNumericType {
  declare readonly from?: bigint;
  declare readonly to?: bigint;
  constructor(from?: bigint, to?: bigint) {
    super(from, to);
  }
  override get name(): string {
    return "Integer";
  }
  override isInstance(v: PValue): boolean {
    return typeof v === "bigint" && inRange(v, this.from, this.to);
  }
  isFiniteRange(): boolean {
    return this.from !== undefined && this.to !== undefined;
  }
  /** The size range as [from, to] with to possibly infinite. */
  range(): [bigint, bigint | number] {
    return [this.from ?? 0n, this.to ?? Number.POSITIVE_INFINITY];
  }
  override isIterable(): boolean {
    return true;
  }
  override iterableType(): PType | undefined {
    return new PIterableType(new PIntegerType());
  }
  intersects(o: PIntegerType): boolean {
    return le(this.numericFrom, o.numericTo) && le(o.numericFrom, this.numericTo);
  }
  adjacent(o: PIntegerType): boolean {
    return (
      (this.to !== undefined && o.from !== undefined && this.to + 1n === o.from) ||
      (o.to !== undefined && this.from !== undefined && o.to + 1n === this.from)
    );
  }
  merge(o: PIntegerType): PIntegerType | undefined {
    if (!this.intersects(o) && !this.adjacent(o)) return undefined;
    const from = this.from === undefined || o.from === undefined ? undefined : bmin(this.from, o.from);
    const to = this.to === undefined || o.to === undefined ? undefined : bmax(this.to, o.to);
    return new PIntegerType(from, to);
  }
}

export class PFloatType extends PNumericType {
  declare readonly from?: number;
  declare readonly to?: number;
  constructor(from?: number, to?: number) {
    super(from, to);
  }
  override get name(): string {
    return "Float";
  }
  override isInstance(v: PValue): boolean {
    return typeof v === "number" && inRange(v, this.from, this.to);
  }
  merge(o: PFloatType): PFloatType | undefined {
    if (!(le(this.numericFrom, o.numericTo) && le(o.numericFrom, this.numericTo))) return undefined;
    const from = this.from === undefined || o.from === undefined ? undefined : Math.min(this.from, o.from);
    const to = this.to === undefined || o.to === undefined ? undefined : Math.max(this.to, o.to);
    return new PFloatType(from, to);
  }
}

/* --------------------------------------------------------------- strings */

const DEFAULT_SIZE = (): PIntegerType => new PIntegerType(0n);

/** A size constraint: no negative bounds (Puppet's to_size). */
export function toSize(t: PIntegerType | undefined): PIntegerType | undefined {
  if (!t) return t;
  if (t.from !== undefined && t.from >= 0n) return t;
  return new PIntegerType(0n, t.to === undefined ? undefined : t.to < 0n ? 0n : t.to);
}

export class PStringType extends PScalarDataType {
  /** Either a size constraint or the one value (inferred types). */
  readonly sizeType?: PIntegerType;
  constructor(
    sizeType?: PIntegerType,
    readonly value?: string,
  ) {
    super();
    this.sizeType = toSize(sizeType);
  }
  override get name(): string {
    return "String";
  }
  override isInstance(v: PValue): boolean {
    if (typeof v !== "string") return false;
    if (this.sizeType) return this.sizeType.isInstance(BigInt(strLen(v)));
    return this.value === undefined || v === this.value;
  }
  derivedSizeType(): PIntegerType {
    if (this.sizeType) return this.sizeType;
    if (this.value !== undefined) {
      const n = BigInt(strLen(this.value));
      return new PIntegerType(n, n);
    }
    return DEFAULT_SIZE();
  }
  protected override assignableFrom(o: PType): boolean {
    if (this.sizeType) {
      if (o instanceof PStringType) return this.sizeType.isAssignable(o.derivedSizeType());
      if (o instanceof PEnumType) {
        if (o.values.length === 0) return this.sizeType.isAssignable(DEFAULT_SIZE());
        const sizes = o.values.map((s) => BigInt(strLen(s)));
        const min = sizes.reduce(bmin);
        const max = sizes.reduce(bmax);
        const [f, t] = this.sizeType.range();
        return f <= min && max <= t;
      }
      if (o instanceof PPatternType) return this.sizeType.isAssignable(DEFAULT_SIZE());
      return false;
    }
    if (o instanceof PStringType) return this.value === undefined || this.value === o.value;
    if (o instanceof PEnumType)
      return (
        this.value === undefined ||
        (o.values.length === 1 && !o.caseInsensitive && o.values[0] === this.value)
      );
    if (o instanceof PPatternType) return this.value === undefined;
    return false;
  }
  override toString(): string {
    const st = this.sizeType;
    if (!st || st.isUnbounded()) return "String";
    return `String[${rangeParts(st).join(", ")}]`;
  }
  override equals(other: PType): boolean {
    if (!(other instanceof PStringType) || other.constructor !== this.constructor) return false;
    if (this.sizeType || other.sizeType)
      return !!this.sizeType && !!other.sizeType && this.sizeType.equals(other.sizeType);
    return this.value === other.value;
  }
  override generalize(): PType {
    return new PStringType();
  }
  override isIterable(): boolean {
    return true;
  }
  override iterableType(): PType {
    return new PIterableType(new PStringType(new PIntegerType(1n, 1n)));
  }
}

/** Length in characters (code points), as Ruby counts them. */
export function strLen(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

function rangeParts(t: PIntegerType): string[] {
  if (t.isUnbounded()) return [];
  const parts = [t.from === undefined ? "default" : t.from.toString()];
  if (t.to !== undefined) parts.push(t.to.toString());
  return parts;
}

export class PEnumType extends PScalarDataType {
  readonly values: readonly string[];
  constructor(
    values: readonly string[],
    readonly caseInsensitive = false,
  ) {
    super();
    this.values = [...new Set(values)].sort(byteCompare);
  }
  override get name(): string {
    return "Enum";
  }
  override isInstance(v: PValue): boolean {
    if (typeof v !== "string") return false;
    if (this.caseInsensitive) {
      const l = v.toLowerCase();
      return this.values.some((x) => x.toLowerCase() === l);
    }
    return this.values.includes(v);
  }
  protected override assignableFrom(o: PType): boolean {
    if (this.equals(o)) return true;
    if (
      this.values.length === 0 &&
      (o instanceof PStringType || o instanceof PEnumType || o instanceof PPatternType)
    )
      return true;
    if (o instanceof PStringType) return o.value !== undefined && this.isInstance(o.value);
    if (o instanceof PEnumType)
      return (
        o.values.length > 0 &&
        (this.caseInsensitive || !o.caseInsensitive) &&
        o.values.every((s) => this.isInstance(s))
      );
    return false;
  }
  override toString(): string {
    if (this.values.length === 0) return "Enum";
    const parts = this.values.map(puppetQuote);
    if (this.caseInsensitive) parts.push("true");
    return `Enum[${parts.join(", ")}]`;
  }
  override equals(other: PType): boolean {
    return (
      other instanceof PEnumType &&
      other.caseInsensitive === this.caseInsensitive &&
      other.values.length === this.values.length &&
      other.values.every((v, i) => v === this.values[i])
    );
  }
  override generalize(): PType {
    if (this.values.length === 0) return new PStringType();
    const sizes = this.values.map((s) => BigInt(strLen(s)));
    const min = sizes.reduce(bmin);
    const max = sizes.reduce(bmax);
    return new PStringType(new PIntegerType(min, max));
  }
  override isIterable(): boolean {
    return true;
  }
  override iterableType(): PType {
    return new PIterableType(new PStringType(new PIntegerType(1n, 1n)));
  }
}

export function byteCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export class PRegexpType extends PScalarType {
  #re: RegExp | undefined;
  /** `pattern` is the Ruby source; undefined for the unparameterised type. */
  constructor(readonly pattern?: string) {
    super();
  }
  override get name(): string {
    return "Regexp";
  }
  get regexp(): RegExp {
    this.#re ??= compileRubyRegexp(this.pattern ?? "");
    return this.#re;
  }
  override isInstance(v: PValue): boolean {
    return v instanceof PRegexp && (this.pattern === undefined || v.source === this.pattern);
  }
  protected override assignableFrom(o: PType): boolean {
    return o instanceof PRegexpType && (this.pattern === undefined || this.pattern === o.pattern);
  }
  override toString(): string {
    return this.pattern === undefined ? "Regexp" : `Regexp[${regexpToString(this.pattern)}]`;
  }
  override equals(other: PType): boolean {
    return other instanceof PRegexpType && other.pattern === this.pattern;
  }
}

const regexpCache = new Map<string, RegExp>();
/** A Ruby regexp source as a JavaScript RegExp (cached; throws TypeSystemError when invalid). */
export function compileRubyRegexp(source: string): RegExp {
  let re = regexpCache.get(source);
  if (!re) {
    try {
      re = rubyRegExp(source);
    } catch (e) {
      throw new TypeSystemError(`invalid regular expression /${source}/: ${(e as Error).message}`);
    }
    if (regexpCache.size > 5000) regexpCache.clear();
    regexpCache.set(source, re);
  }
  return re;
}

export class PPatternType extends PScalarDataType {
  constructor(readonly patterns: readonly PRegexpType[]) {
    super();
  }
  override get name(): string {
    return "Pattern";
  }
  override isInstance(v: PValue): boolean {
    return (
      typeof v === "string" && (this.patterns.length === 0 || this.patterns.some((p) => p.regexp.test(v)))
    );
  }
  protected override assignableFrom(o: PType): boolean {
    if (this.equals(o)) return true;
    if (o instanceof PStringType) {
      if (o.value === undefined) return this.patterns.length === 0;
      const v = o.value;
      return this.patterns.length === 0 || this.patterns.some((p) => p.regexp.test(v));
    }
    if (o instanceof PEnumType) {
      if (o.values.length === 0) return this.patterns.length === 0;
      return this.patterns.length === 0 || o.values.every((s) => this.patterns.some((p) => p.regexp.test(s)));
    }
    if (o instanceof PPatternType) return this.patterns.length === 0;
    return false;
  }
  override toString(): string {
    if (this.patterns.length === 0) return "Pattern";
    return `Pattern[${this.patterns.map((p) => regexpToString(p.pattern ?? "")).join(", ")}]`;
  }
  override equals(other: PType): boolean {
    return (
      other instanceof PPatternType &&
      other.patterns.length === this.patterns.length &&
      this.patterns.every((p) => other.patterns.some((q) => q.pattern === p.pattern))
    );
  }
}

export class PBooleanType extends PScalarDataType {
  constructor(readonly value?: boolean) {
    super();
  }
  override get name(): string {
    return "Boolean";
  }
  override isInstance(v: PValue): boolean {
    return typeof v === "boolean" && (this.value === undefined || v === this.value);
  }
  protected override assignableFrom(o: PType): boolean {
    return o instanceof PBooleanType && (this.value === undefined || this.value === o.value);
  }
  override toString(): string {
    return this.value === undefined ? "Boolean" : `Boolean[${this.value}]`;
  }
  override equals(other: PType): boolean {
    return other instanceof PBooleanType && other.value === this.value;
  }
  override generalize(): PType {
    return new PBooleanType();
  }
}

/* ----------------------------------------------------------- collections */

export class PCollectionType extends PAnyType {
  readonly sizeType?: PIntegerType;
  constructor(sizeType?: PIntegerType) {
    super();
    this.sizeType = toSize(sizeType);
  }
  override get name(): string {
    return "Collection";
  }
  override isInstance(v: PValue): boolean {
    if (Array.isArray(v)) return !this.sizeType || this.sizeType.isInstance(BigInt(v.length));
    if (isHash(v)) return !this.sizeType || this.sizeType.isInstance(BigInt(v.size));
    return false;
  }
  sizeRange(): [bigint, bigint | number] {
    return (this.sizeType ?? DEFAULT_SIZE()).range();
  }
  hasEmptyRange(): boolean {
    const [f, t] = this.sizeRange();
    return f === 0n && t === 0n;
  }
  protected override assignableFrom(o: PType): boolean {
    const s = this.sizeType ?? DEFAULT_SIZE();
    if (o instanceof PCollectionType) return s.isAssignable(o.sizeType ?? DEFAULT_SIZE());
    if (o instanceof PTupleType) {
      const n = BigInt(o.types.length);
      return s.isAssignable(o.sizeType ?? new PIntegerType(n, n));
    }
    if (o instanceof PStructType) {
      const n = BigInt(o.elements.length);
      return s.isAssignable(new PIntegerType(n, n));
    }
    return false;
  }
  override toString(): string {
    const parts = this.sizeType ? rangeParts(this.sizeType) : [];
    return parts.length ? `Collection[${parts.join(", ")}]` : "Collection";
  }
  override equals(other: PType): boolean {
    return (
      other.constructor === this.constructor && sameOpt(this.sizeType, (other as PCollectionType).sizeType)
    );
  }
  override generalize(): PType {
    return new PCollectionType();
  }
  override normalize(): PType {
    return new PCollectionType();
  }
  override isIterable(): boolean {
    return true;
  }
  override iterableType(): PType | undefined {
    return new PIterableType();
  }
}

function sameOpt(a: PType | undefined, b: PType | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.equals(b);
}

export class PArrayType extends PCollectionType {
  readonly elementType: PType;
  constructor(elementType?: PType, sizeType?: PIntegerType) {
    super(sizeType);
    if (sizeType && sizeType.from === 0n && sizeType.to === 0n) this.elementType = UNIT;
    else this.elementType = elementType ?? ANY;
  }
  override get name(): string {
    return "Array";
  }
  override isInstance(v: PValue, guard?: RecursionGuard): boolean {
    if (!Array.isArray(v)) return false;
    if (this.sizeType && !this.sizeType.isInstance(BigInt(v.length))) return false;
    return v.every((e) => this.elementType.isInstance(e, guard));
  }
  protected override assignableFrom(o: PType, guard?: RecursionGuard): boolean {
    if (o instanceof PTupleType) {
      const s = this.sizeType ?? DEFAULT_SIZE();
      const n = BigInt(o.types.length);
      return (
        s.isAssignable(o.sizeType ?? new PIntegerType(n, n)) &&
        o.types.every((t) => this.elementType.isAssignable(t, guard))
      );
    }
    if (o instanceof PArrayType)
      return super.assignableFrom(o) && this.elementType.isAssignable(o.elementType, guard);
    return false;
  }
  override toString(): string {
    if (this.hasEmptyRange()) return "Array[0, 0]";
    const isAny = this.elementType instanceof PAnyType && this.elementType.constructor === PAnyType;
    if (isAny && !this.sizeType) return "Array";
    const parts = [this.elementType.toString(), ...(this.sizeType ? rangeParts(this.sizeType) : [])];
    return `Array[${parts.join(", ")}]`;
  }
  override equals(other: PType): boolean {
    return other instanceof PArrayType && super.equals(other) && this.elementType.equals(other.elementType);
  }
  override generalize(): PType {
    if (this.elementType.constructor === PAnyType) return new PArrayType();
    return new PArrayType(this.elementType.generalize());
  }
  override normalize(): PType {
    if (this.elementType.constructor === PAnyType) return new PArrayType();
    return new PArrayType(this.elementType.normalize(), this.sizeType);
  }
  override iterableType(): PType {
    return this.elementType.constructor === PAnyType
      ? new PIterableType()
      : new PIterableType(this.elementType);
  }
}

export class PHashType extends PCollectionType {
  readonly keyType: PType;
  readonly valueType: PType;
  constructor(keyType?: PType, valueType?: PType, sizeType?: PIntegerType) {
    super(sizeType);
    if (sizeType && sizeType.from === 0n && sizeType.to === 0n) {
      this.keyType = UNIT;
      this.valueType = UNIT;
    } else {
      this.keyType = keyType ?? ANY;
      this.valueType = valueType ?? ANY;
    }
  }
  override get name(): string {
    return "Hash";
  }
  override isInstance(v: PValue, guard?: RecursionGuard): boolean {
    if (!isHash(v)) return false;
    if (this.sizeType && !this.sizeType.isInstance(BigInt(v.size))) return false;
    for (const [k, x] of v) {
      if (!this.keyType.isInstance(k, guard) || !this.valueType.isInstance(x, guard)) return false;
    }
    return true;
  }
  isTheEmptyHash(): boolean {
    return this.hasEmptyRange() && this.keyType instanceof PUnitType && this.valueType instanceof PUnitType;
  }
  protected override assignableFrom(o: PType, guard?: RecursionGuard): boolean {
    if (o instanceof PHashType) {
      const s = this.sizeType;
      if ((!s || s.from === 0n || s.from === undefined) && o.isTheEmptyHash()) return true;
      if (!this.keyType.isAssignable(o.keyType, guard) || !this.valueType.isAssignable(o.valueType, guard))
        return false;
      return super.assignableFrom(o);
    }
    if (o instanceof PStructType) {
      return (
        (this.sizeType ?? DEFAULT_SIZE()).isInstance(BigInt(o.elements.length)) &&
        o.elements.every(
          (e) => this.keyType.isInstance(e.name, guard) && this.valueType.isAssignable(e.valueType, guard),
        )
      );
    }
    return false;
  }
  override toString(): string {
    if (this.hasEmptyRange()) return "Hash[0, 0]";
    const isAny = this.keyType.constructor === PAnyType && this.valueType.constructor === PAnyType;
    if (isAny && !this.sizeType) return "Hash";
    const parts = [
      this.keyType.toString(),
      this.valueType.toString(),
      ...(this.sizeType ? rangeParts(this.sizeType) : []),
    ];
    return `Hash[${parts.join(", ")}]`;
  }
  override equals(other: PType): boolean {
    return (
      other instanceof PHashType &&
      super.equals(other) &&
      this.keyType.equals(other.keyType) &&
      this.valueType.equals(other.valueType)
    );
  }
  override generalize(): PType {
    if (this.isTheEmptyHash()) return this;
    if (this.keyType.constructor === PAnyType && this.valueType.constructor === PAnyType)
      return new PHashType();
    return new PHashType(this.keyType.generalize(), this.valueType.generalize());
  }
  override normalize(): PType {
    if (this.keyType.constructor === PAnyType && this.valueType.constructor === PAnyType)
      return new PHashType();
    return new PHashType(this.keyType.normalize(), this.valueType.normalize(), this.sizeType);
  }
  override iterableType(): PType {
    if (this.keyType.constructor === PAnyType && this.valueType.constructor === PAnyType)
      return new PIterableType();
    return new PIterableType(new PTupleType([this.keyType, this.valueType], new PIntegerType(2n, 2n)));
  }
}

function sameRange(a: [bigint, bigint | number], b: [bigint, bigint | number]): boolean {
  return a[0] === b[0] && a[1] === b[1];
}

export class PTupleType extends PAnyType {
  readonly sizeType?: PIntegerType;
  constructor(
    readonly types: readonly PType[],
    sizeType?: PIntegerType,
  ) {
    super();
    this.sizeType = toSize(sizeType);
  }
  override get name(): string {
    return "Tuple";
  }
  override isInstance(v: PValue, guard?: RecursionGuard): boolean {
    if (!Array.isArray(v)) return false;
    if (this.sizeType) {
      if (!this.sizeType.isInstance(BigInt(v.length))) return false;
    } else if (this.types.length > 0 && this.types.length !== v.length) return false;
    if (this.types.length === 0) return true;
    const last = this.types[this.types.length - 1] as PType;
    return v.every((e, i) => (this.types[i] ?? last).isInstance(e, guard));
  }
  sizeRange(): [bigint, bigint | number] {
    if (!this.sizeType) {
      const n = BigInt(this.types.length);
      return n === 0n ? [0n, Number.POSITIVE_INFINITY] : [n, n];
    }
    return this.sizeType.range();
  }
  sizeAsType(): PIntegerType {
    if (this.sizeType) return this.sizeType;
    const [f, t] = this.sizeRange();
    return new PIntegerType(f, typeof t === "bigint" ? t : undefined);
  }
  protected override assignableFrom(o: PType, guard?: RecursionGuard): boolean {
    if (this.equals(o)) return true;
    if (!(o instanceof PTupleType) && !(o instanceof PArrayType)) return false;
    const sTypes = this.types;
    const sizeS = this.sizeAsType();
    const at = (i: number): PType => (sTypes[i] ?? sTypes[sTypes.length - 1]) as PType;
    if (o instanceof PTupleType) {
      if (!sizeS.isAssignable(o.sizeAsType(), guard)) return false;
      if (sTypes.length > 0) {
        if (o.types.length === 0) return (sizeS.from ?? 0n) === 0n;
        for (let i = 0; i < o.types.length; i++)
          if (!at(i).isAssignable(o.types[i] as PType, guard)) return false;
      }
      return true;
    }
    const sizeO = o.sizeType ?? DEFAULT_SIZE();
    if (!sizeS.isAssignable(sizeO, guard)) return false;
    if (sTypes.length > 0) {
      const n = Math.min(sTypes.length, Number(sizeO.range()[1]));
      for (let i = 0; i < n; i++) if (!at(i).isAssignable(o.elementType, guard)) return false;
    }
    return true;
  }
  override toString(): string {
    if (this.types.length === 0 && !this.sizeType) return "Tuple";
    const parts = [...this.types.map(String), ...(this.sizeType ? rangeParts(this.sizeType) : [])];
    return `Tuple[${parts.join(", ")}]`;
  }
  override equals(other: PType): boolean {
    return (
      other instanceof PTupleType &&
      // Puppet: `Tuple[String]` equals `Tuple[String, 1, 1]`.
      sameRange(this.sizeRange(), other.sizeRange()) &&
      other.types.length === this.types.length &&
      other.types.every((t, i) => t.equals(this.types[i] as PType))
    );
  }
  override generalize(): PType {
    if (this.types.length === 0 && !this.sizeType) return this;
    return new PTupleType(
      this.types.map((t) => t.generalize()),
      this.sizeType,
    );
  }
  override normalize(): PType {
    if (this.types.length === 0 && !this.sizeType) return this;
    return new PTupleType(
      this.types.map((t) => t.normalize()),
      this.sizeType,
    );
  }
  override isIterable(): boolean {
    return true;
  }
  override iterableType(): PType {
    return new PIterableType(variantOf(this.types));
  }
}

export class PStructElement {
  constructor(
    readonly keyType: PType,
    readonly valueType: PType,
  ) {}
  /** The key's literal name. */
  get name(): string {
    let k = this.keyType;
    if (k instanceof POptionalType && k.type) k = k.type;
    return (k as PStringType).value ?? "";
  }
  equals(o: PStructElement): boolean {
    return this.keyType.equals(o.keyType) && this.valueType.equals(o.valueType);
  }
}

export class PStructType extends PAnyType {
  #byName: Map<string, PStructElement> | undefined;
  constructor(readonly elements: readonly PStructElement[]) {
    super();
  }
  override get name(): string {
    return "Struct";
  }
  get hashedElements(): Map<string, PStructElement> {
    this.#byName ??= new Map(this.elements.map((e) => [e.name, e]));
    return this.#byName;
  }
  override isInstance(v: PValue, guard?: RecursionGuard): boolean {
    if (!isHash(v)) return false;
    let matched = 0;
    for (const e of this.elements) {
      const key = e.name;
      if (!v.has(key)) {
        if (!e.keyType.isAssignable(UNDEF)) return false;
      } else {
        matched++;
        if (!e.valueType.isInstance(v.get(key), guard)) return false;
      }
    }
    return matched === v.size;
  }
  protected override assignableFrom(o: PType, guard?: RecursionGuard): boolean {
    if (o instanceof PStructType) {
      const h2 = o.hashedElements;
      let matched = 0;
      for (const e1 of this.elements) {
        const e2 = h2.get(e1.name);
        if (!e2) {
          if (!e1.keyType.isAssignable(UNDEF, guard)) return false;
        } else {
          matched++;
          if (!e1.keyType.isAssignable(e2.keyType, guard) || !e1.valueType.isAssignable(e2.valueType, guard))
            return false;
        }
      }
      return matched === h2.size;
    }
    if (o instanceof PHashType) {
      let required = 0;
      for (const e of this.elements) {
        if (e.keyType.isAssignable(UNDEF)) continue;
        required++;
        if (!e.valueType.isAssignable(o.valueType, guard)) return false;
        if (!e.keyType.generalize().isAssignable(o.keyType)) return false;
      }
      return new PIntegerType(BigInt(required), BigInt(this.elements.length)).isAssignable(
        o.sizeType ?? DEFAULT_SIZE(),
        guard,
      );
    }
    return false;
  }
  override toString(): string {
    if (this.elements.length === 0) return "Struct";
    const parts = this.elements.map((e) => {
      const optionalValue = e.valueType.isAssignable(UNDEF);
      let key: string;
      if (e.keyType instanceof POptionalType)
        key = optionalValue ? puppetQuote(e.name) : e.keyType.toString();
      else key = optionalValue ? `NotUndef[${puppetQuote(e.name)}]` : puppetQuote(e.name);
      return `${key} => ${e.valueType.toString()}`;
    });
    return `Struct[{${parts.join(", ")}}]`;
  }
  override equals(other: PType): boolean {
    return (
      other instanceof PStructType &&
      other.elements.length === this.elements.length &&
      other.elements.every((e, i) => e.equals(this.elements[i] as PStructElement))
    );
  }
  override generalize(): PType {
    if (this.elements.length === 0) return this;
    return new PStructType(this.elements.map((e) => new PStructElement(e.keyType, e.valueType.generalize())));
  }
  override normalize(): PType {
    if (this.elements.length === 0) return this;
    return new PStructType(this.elements.map((e) => new PStructElement(e.keyType, e.valueType.normalize())));
  }
  override isIterable(): boolean {
    return true;
  }
  override iterableType(): PType {
    if (this.elements.length === 0)
      return new PIterableType(new PTupleType([UNIT, UNIT], new PIntegerType(2n, 2n)));
    return new PIterableType(
      new PTupleType(
        [variantOf(this.elements.map((e) => e.keyType)), variantOf(this.elements.map((e) => e.valueType))],
        new PIntegerType(2n, 2n),
      ),
    );
  }
}

/* ------------------------------------------------------------- wrappers */

abstract class PContainerType extends PAnyType {
  constructor(readonly type?: PType) {
    super();
  }
  override toString(): string {
    return this.type ? `${this.name}[${this.type.toString()}]` : this.name;
  }
  override equals(other: PType): boolean {
    return other.constructor === this.constructor && sameOpt(this.type, (other as PContainerType).type);
  }
}

export class PVariantType extends PAnyType {
  constructor(readonly types: readonly PType[]) {
    super();
  }
  override get name(): string {
    return "Variant";
  }
  override isInstance(v: PValue, guard?: RecursionGuard): boolean {
    return this.types.some((t) => t.isInstance(v, guard));
  }
  override isAssignable(o: PType, guard?: RecursionGuard): boolean {
    if (o instanceof PUndefType && this.types.length === 0) return false;
    if (!(o instanceof PVariantType)) return super.isAssignable(o, guard);
    if (this.types.length === 0) return true;
    return o.types.length > 0 && o.types.every((t) => super.isAssignable(t, guard));
  }
  protected override assignableFrom(o: PType, guard?: RecursionGuard): boolean {
    return this.types.some((t) => t.isAssignable(o, guard));
  }
  override toString(): string {
    return this.types.length === 0 ? "Variant" : `Variant[${this.types.map(String).join(", ")}]`;
  }
  override equals(other: PType): boolean {
    return (
      other instanceof PVariantType &&
      other.types.length === this.types.length &&
      this.types.every((t) => other.types.some((u) => u.equals(t)))
    );
  }
  override generalize(): PType {
    if (this.types.length === 0) return this;
    return variantOf(this.types.map((t) => t.generalize()));
  }
  override normalize(): PType {
    if (this.types.length === 0) return this;
    let types = this.types.map((t) => t.normalize());
    if (types.length === 1) return types[0] as PType;
    if (types.some((t) => t instanceof PUndefType || t instanceof POptionalType)) {
      const inner = types
        .filter((t) => !(t instanceof PUndefType))
        .map((t) => (t instanceof POptionalType ? (t.type ?? ANY) : t));
      return new POptionalType(variantOf(inner)).normalize();
    }
    types = flattenVariants(types);
    const before = types.length;
    types = swapNotUndefs(types);
    types = mergeEnums(types);
    types = mergePatterns(types);
    types = mergeRanges(types, PIntegerType);
    types = mergeRanges(types, PFloatType);
    if (types.length === 1) return types[0] as PType;
    return types.length !== before || types.some((t, i) => t !== this.types[i]) ? variantOf(types) : this;
  }
}

function flattenVariants(types: readonly PType[]): PType[] {
  const out: PType[] = [];
  for (const t of types) {
    if (t instanceof PVariantType) out.push(...t.types);
    else out.push(t);
  }
  return out;
}

function uniqTypes(types: readonly PType[]): PType[] {
  const out: PType[] = [];
  for (const t of types) if (!out.some((u) => u.equals(t))) out.push(t);
  return out;
}

/** Variant of the types, or the one type when only one is left (Puppet's maybe_create). */
export function variantOf(types: readonly PType[]): PType {
  const u = uniqTypes(flattenVariants(types));
  return u.length === 1 ? (u[0] as PType) : new PVariantType(u);
}

function swapNotUndefs(types: PType[]): PType[] {
  if (types.length < 2) return types;
  const nu = types.filter((t) => t instanceof PNotUndefType) as PNotUndefType[];
  if (nu.length < 2) return types;
  const others = types.filter((t) => !(t instanceof PNotUndefType));
  others.push(new PNotUndefType(variantOf(nu.map((n) => n.type ?? ANY)).normalize()));
  return others;
}

function mergeEnums(types: PType[]): PType[] {
  let array = types;
  if (array.length > 1) {
    const isE = (t: PType): boolean =>
      (t instanceof PEnumType && t.values.length > 0 && !t.caseInsensitive) ||
      (t instanceof PStringType && t.value !== undefined);
    const enums = array.filter(isE);
    if (enums.length > 1) {
      const others = array.filter((t) => !isE(t));
      const values: string[] = [];
      for (const e of enums)
        values.push(...(e instanceof PStringType ? [e.value as string] : (e as PEnumType).values));
      others.push(new PEnumType(values));
      array = others;
    }
  }
  if (array.length > 1) {
    const isE = (t: PType): boolean => t instanceof PEnumType && t.values.length > 0 && t.caseInsensitive;
    const enums = array.filter(isE) as PEnumType[];
    if (enums.length > 1) {
      const others = array.filter((t) => !isE(t));
      others.push(
        new PEnumType(
          enums.flatMap((e) => e.values.map((v) => v.toLowerCase())),
          true,
        ),
      );
      array = others;
    }
  }
  return array;
}

function mergePatterns(types: PType[]): PType[] {
  if (types.length < 2) return types;
  const pats = types.filter((t) => t instanceof PPatternType) as PPatternType[];
  if (pats.length < 2) return types;
  const others = types.filter((t) => !(t instanceof PPatternType));
  const all: PRegexpType[] = [];
  for (const p of pats)
    for (const r of p.patterns) if (!all.some((x) => x.pattern === r.pattern)) all.push(r);
  others.push(new PPatternType(all));
  return others;
}

function mergeRanges(types: PType[], cls: typeof PIntegerType | typeof PFloatType): PType[] {
  if (types.length < 2) return types;
  let ranges = types.filter((t) => t.constructor === cls) as (PIntegerType | PFloatType)[];
  if (ranges.length < 2) return types;
  const others = types.filter((t) => t.constructor !== cls);
  const result: PType[] = [];
  while (ranges.length > 0) {
    const unmerged: (PIntegerType | PFloatType)[] = [];
    let memo = ranges.pop() as PIntegerType | PFloatType;
    for (const y of ranges) {
      const merged = (memo as PIntegerType).merge(y as PIntegerType);
      if (merged) memo = merged;
      else unmerged.push(y);
    }
    result.push(memo);
    ranges = unmerged;
  }
  return [...result, ...others];
}

export class POptionalType extends PContainerType {
  override get name(): string {
    return "Optional";
  }
  override isInstance(v: PValue, guard?: RecursionGuard): boolean {
    return v === undefined || this.type?.isInstance(v, guard) === true;
  }
  protected override assignableFrom(o: PType, guard?: RecursionGuard): boolean {
    if (o instanceof PUndefType) return true;
    if (!this.type) return true;
    if (o instanceof POptionalType) return o.type ? this.type.isAssignable(o.type, guard) : false;
    return this.type.isAssignable(o, guard);
  }
  override toString(): string {
    if (!this.type) return "Optional";
    if (this.type instanceof PStringType && this.type.value !== undefined)
      return `Optional[${puppetQuote(this.type.value)}]`;
    return `Optional[${this.type.toString()}]`;
  }
  override normalize(): PType {
    if (!this.type) return this;
    const n = this.type.normalize();
    if (n instanceof PNotUndefType) return new POptionalType(n.type).normalize();
    if (n.isAssignable(UNDEF)) return n;
    return n === this.type ? this : new POptionalType(n);
  }
  override generalize(): PType {
    return this.type ? new POptionalType(this.type.generalize()) : this;
  }
}

export class PNotUndefType extends PContainerType {
  constructor(type?: PType) {
    super(type && type.constructor === PAnyType ? undefined : type);
  }
  override get name(): string {
    return "NotUndef";
  }
  override isInstance(v: PValue, guard?: RecursionGuard): boolean {
    return v !== undefined && (this.type === undefined || this.type.isInstance(v, guard));
  }
  protected override assignableFrom(o: PType, guard?: RecursionGuard): boolean {
    return !o.isAssignable(UNDEF, guard) && (this.type === undefined || this.type.isAssignable(o, guard));
  }
  override toString(): string {
    if (!this.type) return "NotUndef";
    if (this.type instanceof PStringType && this.type.value !== undefined)
      return `NotUndef[${puppetQuote(this.type.value)}]`;
    return `NotUndef[${this.type.toString()}]`;
  }
  override normalize(): PType {
    if (!this.type) return this;
    const n = this.type.normalize();
    if (n instanceof POptionalType) return new PNotUndefType(n.type).normalize();
    if (!n.isAssignable(UNDEF)) return n;
    return n === this.type ? this : new PNotUndefType(n);
  }
}

export class PTypeType extends PContainerType {
  override get name(): string {
    return "Type";
  }
  override isInstance(v: PValue, guard?: RecursionGuard): boolean {
    if (!isType(v)) return false;
    return this.type === undefined || this.type.isAssignable(v, guard);
  }
  protected override assignableFrom(o: PType, guard?: RecursionGuard): boolean {
    if (!(o instanceof PTypeType)) return false;
    if (!this.type) return true;
    if (!o.type) return false;
    return this.type.isAssignable(o.type, guard);
  }
  override generalize(): PType {
    return this.type ? new PTypeType(this.type.generalize()) : this;
  }
  override isIterable(): boolean {
    const t = this.type;
    return (t instanceof PIntegerType && t.isFiniteRange()) || t instanceof PEnumType;
  }
  override iterableType(): PType | undefined {
    const t = this.type;
    if (t instanceof PEnumType) return new PIterableType(t);
    if (t instanceof PIntegerType && t.isFiniteRange()) return new PIterableType(t);
    return undefined;
  }
}

export class PSensitiveType extends PContainerType {
  constructor(type?: PType) {
    super(type && type.constructor === PAnyType ? undefined : type?.generalize());
  }
  override get name(): string {
    return "Sensitive";
  }
  override isInstance(v: PValue, guard?: RecursionGuard): boolean {
    return v instanceof PSensitive && (this.type === undefined || this.type.isInstance(v.value, guard));
  }
  protected override assignableFrom(o: PType, guard?: RecursionGuard): boolean {
    return (
      o instanceof PSensitiveType &&
      (this.type === undefined || (o.type ?? ANY).constructor === PAnyType
        ? this.type === undefined
        : this.type.isAssignable(o.type ?? ANY, guard))
    );
  }
  override generalize(): PType {
    return this;
  }
}

export class PIterableType extends PContainerType {
  override get name(): string {
    return "Iterable";
  }
  get elementType(): PType | undefined {
    return this.type;
  }
  override isInstance(v: PValue, guard?: RecursionGuard): boolean {
    if (!this.type || this.type.constructor === PAnyType) {
      if (typeof v === "string" || Array.isArray(v) || isHash(v) || v instanceof PIterator) return true;
      if (typeof v === "bigint") return v >= 0n;
      if (v instanceof PIntegerType) return v.isFiniteRange();
      if (v instanceof PEnumType) return true;
      if (v instanceof PTypeAliasType) return this.isInstance(v.resolvedType(), guard);
      return false;
    }
    return this.isAssignable(inferType(v), guard);
  }
  protected override assignableFrom(o: PType, guard?: RecursionGuard): boolean {
    if (!this.type || this.type.isAssignable(ANY, guard)) return o.isIterable();
    const it = o.iterableType() as PIterableType | undefined;
    return it?.type ? this.type.isAssignable(it.type, guard) : false;
  }
  override isIterable(): boolean {
    return true;
  }
  override iterableType(): PType {
    return this;
  }
}

export class PIteratorType extends PContainerType {
  override get name(): string {
    return "Iterator";
  }
  override isInstance(v: PValue, guard?: RecursionGuard): boolean {
    return (
      v instanceof PIterator &&
      (this.type === undefined || (v.elementType ? this.type.isAssignable(v.elementType, guard) : false))
    );
  }
  protected override assignableFrom(o: PType, guard?: RecursionGuard): boolean {
    return (
      o instanceof PIteratorType &&
      (this.type === undefined || (o.type !== undefined && this.type.isAssignable(o.type, guard)))
    );
  }
  override isIterable(): boolean {
    return true;
  }
  override iterableType(): PType {
    return new PIterableType(this.type);
  }
}

/* -------------------------------------------------------------- callables */

export class PCallableType extends PAnyType {
  constructor(
    readonly paramTypes?: PTupleType,
    readonly blockType?: PType,
    readonly returnType?: PType,
  ) {
    super();
  }
  override get name(): string {
    return "Callable";
  }
  override isInstance(v: PValue): boolean {
    if (!isCallableValue(v)) return false;
    const c = v as unknown as { minArgs: number; maxArgs: number; callableType?: () => PType };
    // A lambda: its Callable type (parameter and return types, counts) must be assignable.
    if (c.callableType) return this.isAssignable(c.callableType());
    if (!this.paramTypes) return true;
    const [f, t] = this.paramTypes.sizeRange();
    // The callable must accept every argument count the signature allows.
    return c.minArgs <= Number(f) && (c.maxArgs === Number.POSITIVE_INFINITY || c.maxArgs >= Number(t));
  }
  protected override assignableFrom(o: PType, guard?: RecursionGuard): boolean {
    if (!(o instanceof PCallableType)) return false;
    if (this.returnType && !this.returnType.isAssignable(o.returnType ?? ANY, guard)) return false;
    if (!this.paramTypes) return true;
    if (!o.paramTypes?.isAssignable(this.paramTypes, guard)) return false;
    return (o.blockType ?? UNDEF).isAssignable(this.blockType ?? UNDEF, guard);
  }
  override toString(): string {
    const params = (): string[] => {
      const p = this.paramTypes as PTupleType;
      const parts = p.types.filter((t) => !(t instanceof PUnitType)).map(String);
      if (p.types.length === 0) parts.push("0", "0");
      else if (p.sizeType) parts.push(...rangeParts(p.sizeType));
      if (this.blockType) parts.push(this.blockType.toString());
      return parts;
    };
    if (!this.returnType) return this.paramTypes ? `Callable[${params().join(", ")}]` : "Callable";
    if (!this.paramTypes) return `Callable[[], ${this.returnType.toString()}]`;
    return `Callable[[${params().join(", ")}], ${this.returnType.toString()}]`;
  }
  override equals(other: PType): boolean {
    return (
      other instanceof PCallableType &&
      sameOpt(this.paramTypes, other.paramTypes) &&
      sameOpt(this.blockType, other.blockType) &&
      sameOpt(this.returnType, other.returnType)
    );
  }
}

/* ---------------------------------------------------------- catalog types */

export class PCatalogEntryType extends PAnyType {
  override get name(): string {
    return "CatalogEntry";
  }
  override isInstance(v: PValue): boolean {
    return isType(v) ? false : this.isAssignable(inferType(v));
  }
  protected override assignableFrom(o: PType): boolean {
    return o instanceof PCatalogEntryType;
  }
}

// References are made by the thousand: fields set in the constructor, no initialiser function.
export class PClassType extends PCatalogEntryType {
  declare readonly className?: string;
  constructor(className?: string) {
    super();
    this.className = className;
  }
  override get name(): string {
    return "Class";
  }
  protected override assignableFrom(o: PType): boolean {
    return o instanceof PClassType && (this.className === undefined || this.className === o.className);
  }
  override toString(): string {
    return this.className === undefined ? "Class" : `Class[${this.className}]`;
  }
  override equals(other: PType): boolean {
    return other instanceof PClassType && other.className === this.className;
  }
}

export class PResourceType extends PCatalogEntryType {
  /** Capitalised per segment (`Concat::Fragment`). */
  declare readonly typeName?: string;
  /** Set when a reference to one resource. */
  declare readonly title?: string;
  declare readonly downcasedName?: string;
  constructor(typeName?: string, title?: string) {
    super();
    this.typeName = typeName;
    this.title = title;
    this.downcasedName = typeName === undefined ? undefined : lowerCaseName(typeName);
  }
  override get name(): string {
    return "Resource";
  }
  protected override assignableFrom(o: PType): boolean {
    return (
      o instanceof PResourceType &&
      (this.downcasedName === undefined ||
        (this.downcasedName === o.downcasedName && (this.title === undefined || this.title === o.title)))
    );
  }
  override toString(): string {
    if (this.typeName === undefined) return "Resource";
    const n = capitalizeSegments(this.typeName);
    return this.title === undefined ? n : `${n}[${puppetQuote(this.title)}]`;
  }
  override equals(other: PType): boolean {
    return (
      other instanceof PResourceType &&
      other.downcasedName === this.downcasedName &&
      other.title === this.title
    );
  }
}

/** `concat::fragment` as `Concat::Fragment` (names already starting with a capital are kept). */
export function capitalizeSegments(name: string): string {
  if (/^[A-Z]/.test(name)) return name;
  return name
    .split("::")
    .map((s) => (s.length ? s.charAt(0).toUpperCase() + s.slice(1).toLowerCase() : s))
    .join("::");
}

/* ------------------------------------------------------------------ misc */

export class PRuntimeType extends PAnyType {
  constructor(
    readonly runtime?: string,
    readonly nameOrPattern?: string,
  ) {
    super();
  }
  override get name(): string {
    return "Runtime";
  }
  override isInstance(_v: PValue): boolean {
    return false;
  }
  protected override assignableFrom(o: PType): boolean {
    if (!(o instanceof PRuntimeType)) return false;
    if (this.runtime !== undefined && this.runtime !== o.runtime) return false;
    return this.nameOrPattern === undefined || this.nameOrPattern === o.nameOrPattern;
  }
  override toString(): string {
    if (this.runtime === undefined && this.nameOrPattern === undefined) return "Runtime";
    const name = this.nameOrPattern === undefined ? "undef" : puppetQuote(this.nameOrPattern);
    return `Runtime[${this.runtime ?? "undef"}, ${name}]`;
  }
  override equals(other: PType): boolean {
    return (
      other instanceof PRuntimeType &&
      other.runtime === this.runtime &&
      other.nameOrPattern === this.nameOrPattern
    );
  }
}

export class PBinaryType extends PAnyType {
  override get name(): string {
    return "Binary";
  }
  override isInstance(v: PValue): boolean {
    return v instanceof PBinary;
  }
  protected override assignableFrom(o: PType): boolean {
    return o instanceof PBinaryType;
  }
}

/** Types whose instances are PObject values with a given typeName and an ordering (Timespan, Timestamp). */
interface Ordered extends PObject {
  compare(o: PObject): number;
}

abstract class PRangedObjectType extends PScalarType {
  constructor(
    readonly from?: Ordered,
    readonly to?: Ordered,
  ) {
    super();
  }
  override isInstance(v: PValue): boolean {
    if (!(v instanceof PObject) || v.typeName !== this.name) return false;
    const o = v as Ordered;
    return (!this.from || this.from.compare(o) <= 0) && (!this.to || o.compare(this.to) <= 0);
  }
  protected override assignableFrom(o: PType): boolean {
    if (o.constructor !== this.constructor) return false;
    const r = o as PRangedObjectType;
    const fromOk = !this.from || (r.from !== undefined && this.from.compare(r.from) <= 0);
    const toOk = !this.to || (r.to !== undefined && r.to.compare(this.to) <= 0);
    return fromOk && toOk;
  }
  override toString(): string {
    if (!this.from && !this.to) return this.name;
    const parts = [this.from ? `'${this.from.toString()}'` : "default"];
    if (this.to && !this.from?.equals(this.to)) parts.push(`'${this.to.toString()}'`);
    return `${this.name}[${parts.join(", ")}]`;
  }
  override equals(other: PType): boolean {
    if (other.constructor !== this.constructor) return false;
    const r = other as PRangedObjectType;
    const eq = (a?: Ordered, b?: Ordered): boolean => (a && b ? a.equals(b) : a === b);
    return eq(this.from, r.from) && eq(this.to, r.to);
  }
  override generalize(): PType {
    return new (this.constructor as new () => PType)();
  }
  merge(o: PRangedObjectType): PRangedObjectType | undefined {
    return o.equals(this) ? this : undefined;
  }
}

export class PTimespanType extends PRangedObjectType {
  override get name(): string {
    return "Timespan";
  }
}

export class PTimestampType extends PRangedObjectType {
  override get name(): string {
    return "Timestamp";
  }
}

/** A SemVer value's range test, supplied by the SemVerRange value class. */
export interface VersionRangeLike extends PObject {
  includes(v: PObject): boolean;
}

export class PSemVerType extends PScalarType {
  constructor(readonly ranges: readonly VersionRangeLike[] = []) {
    super();
  }
  override get name(): string {
    return "SemVer";
  }
  override isInstance(v: PValue): boolean {
    return (
      v instanceof PObject &&
      v.typeName === "SemVer" &&
      (this.ranges.length === 0 || this.ranges.some((r) => r.includes(v)))
    );
  }
  protected override assignableFrom(o: PType): boolean {
    if (!(o instanceof PSemVerType)) return false;
    if (this.ranges.length === 0) return true;
    if (o.ranges.length === 0) return false;
    return o.ranges.every((r) => this.ranges.some((s) => s.equals(r)));
  }
  override toString(): string {
    return this.ranges.length === 0
      ? "SemVer"
      : `SemVer[${this.ranges.map((r) => `'${r.toString()}'`).join(", ")}]`;
  }
  override equals(other: PType): boolean {
    return (
      other instanceof PSemVerType &&
      other.ranges.length === this.ranges.length &&
      this.ranges.every((r) => other.ranges.some((s) => s.equals(r)))
    );
  }
}

export class PSemVerRangeType extends PScalarType {
  override get name(): string {
    return "SemVerRange";
  }
  override isInstance(v: PValue): boolean {
    return v instanceof PObject && v.typeName === "SemVerRange";
  }
  protected override assignableFrom(o: PType): boolean {
    return o instanceof PSemVerRangeType;
  }
}

/** An Object type: enough of Puppet's Object to describe Error, URI, Deferred and the value classes. */
export class PObjectType extends PAnyType {
  constructor(
    readonly typeName?: string,
    readonly parent?: PObjectType,
    /** Attribute names with their types and whether they are optional. */
    readonly attributes: readonly { name: string; type: PType; optional: boolean }[] = [],
    /** How Puppet prints the type itself (its definition, for Error and Deferred). */
    readonly expanded?: string,
  ) {
    super();
  }
  override get name(): string {
    return this.typeName ?? "Object";
  }
  override get kind(): string {
    return "Object";
  }
  override isInstance(v: PValue): boolean {
    if (this.typeName === undefined) {
      if (isType(v)) return true;
      return (
        v instanceof PObject &&
        !["Timespan", "Timestamp", "SemVer", "SemVerRange", "URI"].includes(v.typeName)
      );
    }
    return v instanceof PObject && v.typeName === this.typeName;
  }
  protected override assignableFrom(o: PType): boolean {
    if (!(o instanceof PObjectType)) return false;
    if (this.typeName === undefined) return true;
    for (let t: PObjectType | undefined = o; t; t = t.parent) if (t.typeName === this.typeName) return true;
    return false;
  }
  override toString(): string {
    if (this.expanded !== undefined) return this.expanded;
    return this.typeName === undefined ? "Object[{}]" : this.name;
  }
  override equals(other: PType): boolean {
    return (
      other instanceof PObjectType &&
      other.typeName === this.typeName &&
      other.constructor === this.constructor
    );
  }
}

export class PURIType extends PAnyType {
  constructor(readonly parameters?: PHash | string) {
    super();
  }
  override get name(): string {
    return "URI";
  }
  override isInstance(v: PValue): boolean {
    if (!(v instanceof PObject) || v.typeName !== "URI") return false;
    if (this.parameters === undefined) return true;
    const parts = (v as PObject & { parts(): Record<string, string | undefined> }).parts();
    const want = typeof this.parameters === "string" ? uriParts(this.parameters) : this.parameters;
    for (const [k, x] of want instanceof PHash ? want : Object.entries(want)) {
      if (x !== undefined && parts[String(k)] !== x) return false;
    }
    return true;
  }
  protected override assignableFrom(o: PType): boolean {
    return o instanceof PURIType && (this.parameters === undefined || this.equals(o));
  }
  override toString(): string {
    if (this.parameters === undefined) return "URI";
    const h =
      typeof this.parameters === "string" ? PHash.fromRecord(uriParts(this.parameters)) : this.parameters;
    const parts: string[] = [];
    for (const [k, x] of h) parts.push(`${formatTypeArg(k)} => ${formatTypeArg(x)}`);
    return `URI[{${parts.join(", ")}}]`;
  }
  override equals(other: PType): boolean {
    return other instanceof PURIType && other.toString() === this.toString();
  }
  override generalize(): PType {
    return new PURIType();
  }
}

/** The parts of a URI string, as Ruby's URI splits it (scheme, userinfo, host, port, path, query, fragment). */
export function uriParts(s: string): Record<string, string> {
  const m =
    /^(?:([A-Za-z][A-Za-z0-9+.-]*):)?(?:\/\/(?:([^@/?#]*)@)?(\[[^\]]*\]|[^:/?#]*)(?::(\d*))?)?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(
      s,
    );
  const out: Record<string, string> = {};
  if (!m) return out;
  const names = ["scheme", "userinfo", "host", "port", "path", "query", "fragment"];
  names.forEach((n, i) => {
    const x = m[i + 1];
    if (x !== undefined && !(n === "path" && x === "" && m[3] !== undefined)) out[n] = x;
  });
  return out;
}

export class PInitType extends PAnyType {
  #ready = false;
  /** The types of one argument `new` accepts alone (the contained type first). */
  #single?: PType;
  /** The other parameter tuples of `new` (without init args). */
  #other?: PType;
  #optionalSingle = false;
  #busy = false;
  constructor(
    readonly type?: PType,
    readonly initArgs: readonly PValue[] = [],
  ) {
    super();
    if (!type && initArgs.length > 0)
      throw new TypeSystemError(
        "Init cannot be parameterized with an undefined type and additional arguments",
      );
  }
  override get name(): string {
    return "Init";
  }
  /**
   * What Puppet's Init derives from the signatures of the type's `new`: the
   * single-argument types, the other tuples (an Array argument may be spread
   * over them) and whether one of those also takes a single argument.
   */
  initialized(): { single: PType; other?: PType; optionalSingle: boolean } {
    const t = this.type as PType;
    if (!this.#ready) {
      const unsupported = () =>
        new TypeSystemError(`Creation of new instance of type '${t.toString()}' is not supported`);
      if (
        t instanceof PInitType ||
        t instanceof POptionalType ||
        t instanceof PNotUndefType ||
        !signaturesHook
      )
        throw unsupported();
      const tuples = signaturesHook(t);
      if (!tuples) throw unsupported();
      const singles: PType[] = [t];
      let others: PTupleType[] = [];
      if (this.initArgs.length === 0) {
        for (const tuple of tuples) {
          const [min, max] = tuple.sizeRange();
          if (min === 1n && max === 1n) singles.push(tuple.types[0] as PType);
          else others.push(tuple);
        }
      } else {
        const argTypes = this.initArgs.map((a) => inferSetHook(a));
        const count = 1 + argTypes.length;
        const fit = tuples.filter((tuple) => {
          const [min, max] = tuple.sizeRange();
          if (count < Number(min) || count > Number(max)) return false;
          return tuple.isAssignable(new PTupleType([...tuple.types.slice(0, 1), ...argTypes]));
        });
        if (fit.length === 0)
          throw new TypeSystemError(
            `The type '${this.toString()}' does not represent a valid set of parameters for ${t.name}.new()`,
          );
        for (const tuple of fit) singles.push(tuple.types[0] as PType);
        others = [];
      }
      this.#single = singles.length === 1 ? singles[0] : new PVariantType(singles);
      if (others.length > 0) {
        this.#other = others.length === 1 ? others[0] : new PVariantType(others);
        this.#optionalSingle = others.some((tuple) => tuple.sizeRange()[0] === 1n);
      }
      this.#ready = true;
    }
    return { single: this.#single as PType, other: this.#other, optionalSingle: this.#optionalSingle };
  }
  override isInstance(v: PValue, guard?: RecursionGuard): boolean {
    if (!this.type) return RICH_DATA().isInstance(v, guard);
    const { single, other, optionalSingle } = this.initialized();
    // A type whose `new` takes this Init again (`Object[attributes => {x =>
    // Variant[Init[Self], String]}]`): the inner check answers no, as
    // Puppet's recursion guard does.
    if (this.#busy) return false;
    this.#busy = true;
    try {
      if (this.type.isInstance(v, guard) || single.isInstance(v, guard)) return true;
      if (!other) return false;
      return other.isInstance(v, guard) || (optionalSingle && other.isInstance([v], guard));
    } finally {
      this.#busy = false;
    }
  }
  protected override assignableFrom(o: PType, guard?: RecursionGuard): boolean {
    if (this.type) this.initialized();
    if (o instanceof PInitType) return !this.type || (!!o.type && this.type.isAssignable(o.type, guard));
    if (!this.type) return RICH_DATA().isAssignable(o, guard);
    const { single, other, optionalSingle } = this.initialized();
    if (this.#busy) return false;
    this.#busy = true;
    try {
      if (this.type.isAssignable(o, guard) || single.isAssignable(o, guard)) return true;
      if (!other) return false;
      return (
        other.isAssignable(o, guard) || (optionalSingle && other.isAssignable(new PTupleType([o]), guard))
      );
    } finally {
      this.#busy = false;
    }
  }
  override toString(): string {
    if (!this.type) return "Init";
    return `Init[${[this.type.toString(), ...this.initArgs.map(formatTypeArg)].join(", ")}]`;
  }
  override equals(other: PType): boolean {
    return (
      other instanceof PInitType &&
      sameOpt(this.type, other.type) &&
      other.initArgs.length === this.initArgs.length
    );
  }
}

let signaturesHook: ((t: PType) => readonly PTupleType[] | undefined) | undefined;
let inferSetHook: (v: PValue) => PType = () => ANY;
/**
 * Registered by parse.ts: the parameter tuples of `T.new`'s signatures
 * (undefined when T has no `new`), and the type inference Init's init
 * arguments need.
 */
export function setInitSignatures(
  signatures: (t: PType) => readonly PTupleType[] | undefined,
  inferSet: (v: PValue) => PType,
): void {
  signaturesHook = signatures;
  inferSetHook = inferSet;
}

export class PTypeReferenceType extends PAnyType {
  constructor(readonly typeString: string) {
    super();
  }
  override get name(): string {
    return "TypeReference";
  }
  override isInstance(_v: PValue): boolean {
    return false;
  }
  protected override assignableFrom(o: PType): boolean {
    return this.equals(o);
  }
  override toString(): string {
    return `TypeReference[${puppetQuote(this.typeString)}]`;
  }
  override equals(other: PType): boolean {
    return other instanceof PTypeReferenceType && other.typeString === this.typeString;
  }
}

/**
 * How an alias of an Object type prints (as that type's definition): set
 * once by user-objects.ts, which this module cannot import.
 */
let aliasPrinter: ((t: PTypeAliasType) => string | undefined) | undefined;
export function setAliasPrinter(f: (t: PTypeAliasType) => string | undefined): void {
  aliasPrinter = f;
}

/** A named alias (`type My::T = ...`, `Data`), resolved lazily: recursive aliases are allowed. */
export class PTypeAliasType extends PAnyType {
  #resolved: PType | undefined;
  #resolving = false;
  constructor(
    readonly aliasName: string,
    readonly resolver: () => PType,
  ) {
    super();
  }
  override get name(): string {
    return this.aliasName;
  }
  override get kind(): string {
    return "TypeAlias";
  }
  /** Whether the alias is being resolved now (a reference from its own definition). */
  get resolving(): boolean {
    return this.#resolving;
  }
  resolvedType(): PType {
    if (this.#resolved) return this.#resolved;
    if (this.#resolving)
      throw new TypeSystemError(`Type alias '${this.aliasName}' cannot be resolved to a real type`);
    this.#resolving = true;
    try {
      this.#resolved = this.resolver();
    } finally {
      this.#resolving = false;
    }
    return this.#resolved;
  }
  override isInstance(v: PValue, guard?: RecursionGuard): boolean {
    const g = guard ?? new RecursionGuard();
    if (!g.enterInstance(this, v)) return false;
    try {
      return this.resolvedType().isInstance(v, g);
    } finally {
      g.leaveInstance(this, v);
    }
  }

  override isAssignable(o: PType, guard?: RecursionGuard): boolean {
    const g = guard ?? new RecursionGuard();
    return g.withThis(this, (state) => (state === RecursionGuard.IN_BOTH ? true : super.isAssignable(o, g)));
  }
  protected override assignableFrom(o: PType, guard?: RecursionGuard): boolean {
    return this.resolvedType().isAssignable(o, guard);
  }
  override toString(): string {
    return aliasPrinter?.(this) ?? this.aliasName;
  }
  override equals(other: PType): boolean {
    if (other instanceof PTypeAliasType) return other.aliasName === this.aliasName;
    // `type T = Object[...]` defines the Object type T itself, as in Puppet.
    const r = this.#resolved;
    return r !== undefined && r.kind === "Object" && r.name === this.aliasName && r.equals(other);
  }
  override isIterable(): boolean {
    return this.resolvedType().isIterable();
  }
  override iterableType(): PType | undefined {
    return this.resolvedType().iterableType();
  }
}

/* ------------------------------------------------------------- constants */

export const ANY = new PAnyType();
export const UNIT = new PUnitType();
export const UNDEF = new PUndefType();
setUndefProbe(UNDEF);

let dataAlias: PTypeAliasType | undefined;
let richDataAlias: PTypeAliasType | undefined;
let richDataKeyAlias: PTypeAliasType | undefined;

export function DATA(): PTypeAliasType {
  dataAlias ??= new PTypeAliasType("Data", () => {
    const d = DATA();
    return new PVariantType([
      new PScalarDataType(),
      UNDEF,
      new PHashType(new PStringType(), d),
      new PArrayType(d),
    ]);
  });
  return dataAlias;
}

export function RICH_DATA_KEY(): PTypeAliasType {
  richDataKeyAlias ??= new PTypeAliasType(
    "RichDataKey",
    () => new PVariantType([new PStringType(), new PNumericType()]),
  );
  return richDataKeyAlias;
}

export function RICH_DATA(): PTypeAliasType {
  richDataAlias ??= new PTypeAliasType("RichData", () => {
    const r = RICH_DATA();
    return new PVariantType([
      new PScalarType(),
      new PSemVerRangeType(),
      new PBinaryType(),
      new PSensitiveType(),
      new PTypeType(),
      new PObjectType("TypeSet"),
      new PURIType(),
      new PObjectType(),
      UNDEF,
      new PDefaultType(),
      new PHashType(RICH_DATA_KEY(), r),
      new PArrayType(r),
    ]);
  });
  return richDataAlias;
}

/* ------------------------------------------------------------- inference */

let inferHook: ((v: PValue) => PType) | undefined;
/** Set by infer.ts (kept separate to keep this file about the types). */
export function setInfer(f: (v: PValue) => PType): void {
  inferHook = f;
}
function inferType(v: PValue): PType {
  if (!inferHook) throw new TypeSystemError("type inference not initialised");
  return inferHook(v);
}

export const ERROR_TYPE = new PObjectType(
  "Error",
  undefined,
  [
    { name: "message", type: new PStringType(), optional: false },
    { name: "kind", type: new PStringType(), optional: true },
    { name: "issue_code", type: new PStringType(), optional: true },
    { name: "partial_result", type: DATA(), optional: true },
    { name: "details", type: new PHashType(new PStringType(new PIntegerType(1n))), optional: true },
  ],
  "Object[{name => 'Error', type_parameters => {'kind' => Variant[String, Regexp, Type[Enum], Type[Pattern], Type[NotUndef], Type[Undef]], 'issue_code' => Variant[String, Regexp, Type[Enum], Type[Pattern], Type[NotUndef], Type[Undef]]}, attributes => {'msg' => String[1], 'kind' => {type => Optional[String[1]], value => undef}, 'details' => {type => Optional[Hash[String[1], Data]], value => undef}, 'issue_code' => {type => Optional[String[1]], value => undef}}, functions => {'message' => Callable[[0, 0], String[1]]}}]",
);
/** The values an Error type parameter may take (Puppet's Error type_parameters). */
let errorParamType: PType | undefined;
function errorParameterType(): PType {
  errorParamType ??= new POptionalType(
    new PVariantType([
      new PStringType(),
      new PRegexpType(),
      new PTypeType(new PEnumType([])),
      new PTypeType(new PPatternType([])),
      new PTypeType(new PNotUndefType()),
      new PTypeType(UNDEF),
    ]),
  );
  return errorParamType;
}

/** A value matching a type parameter, as a case expression matches it. */
function caseMatch(v: PValue, pattern: PValue): boolean {
  if (isType(pattern)) return pattern.isInstance(v);
  if (pattern instanceof PRegexp) return typeof v === "string" && pattern.re.test(v);
  return pEquals(v, pattern);
}

/**
 * `Error[kind, issue_code]`: the Error type constrained by its type
 * parameters (Puppet's PObjectTypeExtension of Error): each given one is
 * matched against the Error's attribute as a case expression matches.
 * Unset parameters (default) are absent; an inferred Error has both.
 */
export class PErrorExtensionType extends PObjectType {
  constructor(readonly parameters: ReadonlyMap<"kind" | "issue_code", PValue>) {
    super("Error");
  }
  override generalize(): PType {
    return ERROR_TYPE;
  }
  override isInstance(v: PValue): boolean {
    if (!ERROR_TYPE.isInstance(v)) return false;
    const attrs = v as unknown as { kind?: string; issueCode?: string };
    for (const [n, p] of this.parameters)
      if (!caseMatch(n === "kind" ? attrs.kind : attrs.issueCode, p)) return false;
    return true;
  }
  protected override assignableFrom(o: PType, guard?: RecursionGuard): boolean {
    if (!ERROR_TYPE.isAssignable(o, guard)) return false;
    const other = o instanceof PErrorExtensionType ? o.parameters : new Map<string, PValue>();
    for (const [n, b] of this.parameters) {
      if (!other.has(n)) return false;
      const a = other.get(n);
      if (!(caseMatch(a, b) || (isType(a) && isType(b) && b.isAssignable(a, guard)))) return false;
    }
    return true;
  }
  override equals(other: PType): boolean {
    if (!(other instanceof PErrorExtensionType) || other.parameters.size !== this.parameters.size)
      return false;
    for (const [n, v] of this.parameters)
      if (!other.parameters.has(n) || !pEquals(v, other.parameters.get(n))) return false;
    return true;
  }
  override toString(): string {
    const args: PValue[] = (["kind", "issue_code"] as const).map((n) =>
      this.parameters.has(n) ? this.parameters.get(n) : DEFAULT,
    );
    while (args.length > 0 && args[args.length - 1] === DEFAULT) args.pop();
    return `Error[${args.map(formatTypeArg).join(", ")}]`;
  }
}

/** `Error[...]`: by position (kind, issue_code; more are ignored) or by name in one hash. */
export function parameterizeError(args: readonly PValue[]): PType {
  const params = new Map<"kind" | "issue_code", PValue>();
  const names = ["kind", "issue_code"] as const;
  const given: [string, PValue][] =
    args.length === 1 && isHash(args[0])
      ? [...args[0]].map(([k, v]) => [String(k), v])
      : args.slice(0, 2).map((v, i) => [names[i] as string, v]);
  for (const [n, v] of given) {
    if (n !== "kind" && n !== "issue_code")
      throw new TypeSystemError(
        `Error while evaluating a '[]' expression, '${n}' is not a known type parameter for Error-Type`,
      );
    if (v === DEFAULT) continue;
    const t = errorParameterType();
    if (!t.isInstance(v))
      throw new TypeSystemError(
        `Error while evaluating a '[]' expression, type_parameter Error[${n}] has wrong type, expects a value of type Undef, String, Regexp, Type[Enum], Type[Pattern], Type[NotUndef], or Type[Undef], got ${inferType(v).generalize().toString()}`,
      );
    params.set(n, v);
  }
  return new PErrorExtensionType(params);
}

/** The type of an Error value: Error[its kind, its issue_code]. */
export function errorTypeOf(v: PObject): PType {
  const attrs = v as unknown as { kind?: string; issueCode?: string };
  return new PErrorExtensionType(
    new Map<"kind" | "issue_code", PValue>([
      ["kind", attrs.kind],
      ["issue_code", attrs.issueCode],
    ]),
  );
}

export const DEFERRED_TYPE = new PObjectType(
  "Deferred",
  undefined,
  [
    {
      name: "name",
      type: new PPatternType([new PRegexpType("\\A[$]?[a-z][a-z0-9_]*(?:::[a-z][a-z0-9_]*)*\\z")]),
      optional: false,
    },
    { name: "arguments", type: new PArrayType(), optional: true },
  ],
  "Object[{name => 'Deferred', attributes => {'name' => Pattern[/\\A[$]?[a-z][a-z0-9_]*(?:::[a-z][a-z0-9_]*)*\\z/], 'arguments' => {type => Optional[Array], value => undef}}}]",
);
