/**
 * Puppet 7 runtime values as the evaluator, the type system, the functions,
 * Hiera and the templates share them. The mapping:
 *
 * | Puppet    | TypeScript                                  |
 * |-----------|---------------------------------------------|
 * | undef     | `undefined`                                 |
 * | default   | `DEFAULT`                                   |
 * | Integer   | `bigint` (64-bit range checked by arithmetic)|
 * | Float     | `number`                                    |
 * | String    | `string`                                    |
 * | Boolean   | `boolean`                                   |
 * | Array     | `PValue[]` (treated as immutable once built) |
 * | Hash      | `PHash` (insertion ordered, any key)        |
 * | Regexp    | `PRegexp`                                   |
 * | Sensitive | `PSensitive`                                |
 * | Binary    | `PBinary`                                   |
 * | Type      | `PType` (types.ts): also resource and class references |
 * | Callable  | `PCallable` (lambdas and function references) |
 * | Iterator  | `PIterator`                                 |
 * | others    | `PObject` subclasses (Timespan, Timestamp, SemVer, Deferred, URI...) |
 */
import type { PType } from "./types.js";

export const DEFAULT: unique symbol = Symbol("default");
export type PDefault = typeof DEFAULT;

export type PValue =
  | undefined
  | PDefault
  | bigint
  | number
  | string
  | boolean
  | PValue[]
  | PHash
  | PRegexp
  | PSensitive
  | PBinary
  | PType
  | PCallable
  | PIterator
  | PObject;

/** A Hash: insertion ordered; keys compared by Puppet's equality (strings case-sensitively). */
export class PHash {
  readonly #map = new Map<unknown, [PValue, PValue]>();

  static from(entries: Iterable<readonly [PValue, PValue]>): PHash {
    const h = new PHash();
    for (const [k, v] of entries) h.set(k, v);
    return h;
  }
  /** A hash of a plain string-keyed record. */
  static fromRecord(record: Readonly<Record<string, PValue>>): PHash {
    const h = new PHash();
    for (const k of Object.keys(record)) h.set(k, record[k]);
    return h;
  }
  get size(): number {
    return this.#map.size;
  }
  get(key: PValue): PValue {
    return this.#map.get(hashKey(key))?.[1];
  }
  has(key: PValue): boolean {
    return this.#map.has(hashKey(key));
  }
  /** Sets in place: only while building a new hash (values are immutable once shared). */
  set(key: PValue, value: PValue): this {
    const k = hashKey(key);
    const existing = this.#map.get(k);
    if (existing) existing[1] = value;
    else this.#map.set(k, [key, value]);
    return this;
  }
  delete(key: PValue): boolean {
    return this.#map.delete(hashKey(key));
  }
  *entries(): IterableIterator<[PValue, PValue]> {
    for (const e of this.#map.values()) yield [e[0], e[1]];
  }
  *keys(): IterableIterator<PValue> {
    for (const e of this.#map.values()) yield e[0];
  }
  *values(): IterableIterator<PValue> {
    for (const e of this.#map.values()) yield e[1];
  }
  [Symbol.iterator](): IterableIterator<[PValue, PValue]> {
    return this.entries();
  }
  clone(): PHash {
    return PHash.from(this.entries());
  }
}

/** A Regexp value: the Ruby source as written, and its JavaScript translation. */
export class PRegexp {
  constructor(
    readonly source: string,
    readonly re: RegExp,
  ) {}
}

export class PSensitive {
  constructor(readonly value: PValue) {}
}

export class PBinary {
  constructor(readonly bytes: Uint8Array) {}
}

/** A lambda or a function reference, called with already evaluated arguments. */
export interface PCallable {
  readonly kind: "callable";
  /** Parameter counts, for functions whose behaviour depends on the block's arity (`each`). */
  readonly minArgs: number;
  /** `Infinity` when the last parameter captures the rest. */
  readonly maxArgs: number;
  /** The declared parameter types, when known (`Callable` assignability). */
  readonly paramTypes?: readonly PType[];
  /** A lambda's Callable type (its parameters' types, counts and return type), made when asked. */
  readonly callableType?: () => PType;
  call(args: readonly PValue[]): PValue;
}

/** An Iterator (`reverse_each`, `step` without a block): produced lazily, on demand. */
export class PIterator {
  constructor(
    readonly produce: () => Iterable<PValue>,
    /** The element type, when known (for `type_of` and error messages). */
    readonly elementType?: PType,
  ) {}
}

/**
 * A value of an Object type (Timespan, Timestamp, SemVer, SemVerRange,
 * Deferred, URI, Error...): each subclass names its type and can render,
 * compare and hash itself.
 */
export abstract class PObject {
  abstract readonly typeName: string;
  /** The text Puppet's `String(v)` and interpolation give. */
  abstract toString(): string;
  /** Puppet's `==`. */
  abstract equals(other: PValue): boolean;
  /** A key equal for equal values. */
  abstract hashKey(): string;
}

let deferredArguments: ((args: PValue[]) => string) | undefined;
/** How a Deferred's arguments print (set by the type system, which this module cannot import). */
export function setDeferredArguments(f: (args: PValue[]) => string): void {
  deferredArguments = f;
}

/** A Deferred value: a function call resolved on the agent. */
export class PDeferred extends PObject {
  readonly typeName = "Deferred";
  constructor(
    readonly name: string,
    readonly args: readonly PValue[],
    /** Arguments were given (even none: `Deferred('f', [])` prints them). */
    readonly hasArguments = args.length > 0,
  ) {
    super();
  }
  toString(): string {
    if (!this.hasArguments || deferredArguments === undefined) return `Deferred({'name' => '${this.name}'})`;
    return `Deferred({'name' => '${this.name}', 'arguments' => ${deferredArguments([...this.args])}})`;
  }
  equals(other: PValue): boolean {
    return (
      other instanceof PDeferred &&
      other.name === this.name &&
      other.args.length === this.args.length &&
      other.args.every((a, i) => equals(a, this.args[i]))
    );
  }
  hashKey(): string {
    return `D${this.name}(${this.args.map(hashKey).join(",")})`;
  }
}

/** Duck-typed check for a PType without importing the type system's runtime. */
export function isType(v: PValue): v is PType {
  return typeof v === "object" && v !== null && (v as { isPuppetType?: unknown }).isPuppetType === true;
}

export function isHash(v: PValue): v is PHash {
  return v instanceof PHash;
}

/**
 * The key a hash stores `v` under: strings by themselves (the common case),
 * everything else by a canonical text that is equal for Puppet-equal values.
 * Puppet's `==` compares strings case-insensitively, but hash keys are
 * case-sensitive: this key is case-sensitive.
 */
export function hashKey(v: PValue): unknown {
  if (typeof v === "string") return v;
  return canonical(v);
}

function canonical(v: PValue): string {
  switch (typeof v) {
    case "undefined":
      return "\u0000u";
    case "symbol":
      return "\u0000d";
    case "bigint":
      return `\u0000i${v}`;
    case "number":
      // 1 == 1.0 in Puppet: hash them together.
      return Number.isInteger(v) ? `\u0000i${v}` : `\u0000f${v}`;
    case "boolean":
      return v ? "\u0000t" : "\u0000F";
    case "string":
      return `\u0000s${v}`;
  }
  if (Array.isArray(v)) return `\u0000[${v.map(canonical).join(",")}]`;
  if (v instanceof PHash) {
    const parts: string[] = [];
    for (const [k, x] of v) parts.push(`${canonical(k)}:${canonical(x)}`);
    return `\u0000{${parts.join(",")}}`;
  }
  if (v instanceof PRegexp) return `\u0000r${v.source}`;
  if (v instanceof PSensitive) return `\u0000S${canonical(v.value)}`;
  if (v instanceof PBinary) return `\u0000b${Buffer.from(v.bytes).toString("base64")}`;
  if (v instanceof PObject) return `\u0000o${v.hashKey()}`;
  if (isType(v)) return `\u0000T${v.toString()}`;
  return `\u0000?${String(v)}`;
}

/**
 * Puppet's `==`: strings case-insensitively, numbers by value (1 == 1.0),
 * arrays and hashes deeply, types by equality.
 */
export function equals(a: PValue, b: PValue): boolean {
  if (a === b) return true;
  if (typeof a === "string")
    return typeof b === "string" && a.length === b.length && a.toLowerCase() === b.toLowerCase();
  if (typeof a === "bigint" || typeof a === "number") {
    if (typeof b !== "bigint" && typeof b !== "number") return false;
    if (typeof a === "bigint" && typeof b === "bigint") return a === b;
    return Number(a) === Number(b);
  }
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => equals(x, b[i]));
  if (a instanceof PHash) {
    if (!(b instanceof PHash) || a.size !== b.size) return false;
    for (const [k, v] of a) {
      if (!b.has(k) || !equals(v, b.get(k))) return false;
    }
    return true;
  }
  if (a instanceof PRegexp) return b instanceof PRegexp && a.source === b.source;
  if (a instanceof PBinary) return b instanceof PBinary && Buffer.from(a.bytes).equals(Buffer.from(b.bytes));
  if (a instanceof PObject) return a.equals(b);
  if (isType(a)) return isType(b) && a.equals(b);
  return false;
}

/**
 * A key equal for values Ruby's `eql?` finds equal, as `uniq`, merges and
 * set operations compare them: unlike Puppet's `==`, 1 and 1.0 differ and
 * strings compare by case; hashes are equal whatever their order.
 */
export function rubyEqlKey(v: PValue): string {
  if (typeof v === "string") return `s${v}`;
  if (typeof v === "bigint") return `i${v}`;
  if (typeof v === "number") return `f${v}`;
  if (v === undefined) return "n";
  if (typeof v === "boolean") return v ? "t" : "F";
  if (Array.isArray(v)) return `[${v.map(rubyEqlKey).join(",")}]`;
  if (v instanceof PHash) {
    const parts = [...v].map(([k, x]) => `${rubyEqlKey(k)}=>${rubyEqlKey(x)}`).sort();
    return `{${parts.join(",")}}`;
  }
  return `o${canonical(v)}`;
}
