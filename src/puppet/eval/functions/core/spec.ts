/**
 * Parameter types of the core functions' signatures, small and local: each
 * knows how to test a value and how Puppet names it in a mismatch message
 * ("expects a value of type Numeric or String, got Tuple"). The full type
 * system (types.ts) is richer; these cover exactly what the signatures use.
 */
import { inferSet } from "../../types.js";
import {
  DEFAULT,
  PBinary,
  type PCallable,
  PHash,
  PIterator,
  PObject,
  PRegexp,
  PSensitive,
  type PValue,
  isType,
} from "../../values.js";

/** A parameter type. */
export interface Spec {
  /** The type's class, compared with the actual value's class to choose the detailed wording. */
  readonly cls: string;
  /** Puppet's full rendering (`Integer[1]`, `Enum['detailed']`). */
  readonly full: string;
  /** Puppet's short name (`Integer`, `Sensitive[String]`). */
  readonly short: string;
  test(v: PValue): boolean;
  /** Whether the unparameterised type of this class accepts `v` (Puppet then words the mismatch in detail). */
  kindTest(v: PValue): boolean;
  /** A Variant's members (flattened into the message). */
  readonly members?: readonly Spec[];
  /** An Optional's type. */
  readonly optionalOf?: Spec;
  /** A custom explanation of a mismatch (" entry 'x' expects ..."), for struct-like types. */
  explain?(v: PValue): string | undefined;
  /** Pattern and Enum mismatches have their own wording. */
  readonly isPattern?: boolean;
  /** An Enum's values. */
  readonly enumValues?: readonly string[];
  /** An Array's element type: mismatches then name the failing index. */
  readonly elementOf?: Spec;
  /**
   * Every problem with `v` (" variant 0 expects ...", " unrecognized key
   * 'x'"): listed one per line when there are several.
   */
  explainEach?(v: PValue): string[] | undefined;
  /** Values Puppet rejects without being able to say why (no "rejected:" line). */
  quietFor?(v: PValue): boolean;
}

function spec(cls: string, full: string, test: (v: PValue) => boolean, kindTest = test, short = cls): Spec {
  return { cls, full, short, test, kindTest };
}

export const isInteger = (v: PValue): v is bigint => typeof v === "bigint";
export const isFloat = (v: PValue): v is number => typeof v === "number";
export const isNumeric = (v: PValue): v is bigint | number => typeof v === "bigint" || typeof v === "number";
export const isString = (v: PValue): v is string => typeof v === "string";
export const isArray = (v: PValue): v is PValue[] => Array.isArray(v);
export const isHashValue = (v: PValue): v is PHash => v instanceof PHash;
export const isCallable = (v: PValue): v is PCallable =>
  typeof v === "object" && v !== null && (v as { kind?: unknown }).kind === "callable";
export function isObjectOf(v: PValue, typeName: string): v is PObject {
  return v instanceof PObject && v.typeName === typeName;
}
/** Whether Puppet can iterate `v` (Array, Hash, String, Integer, Iterator, and iterable types). */
export function isIterableValue(v: PValue): boolean {
  if (isArray(v) || isHashValue(v) || isString(v) || v instanceof PIterator) return true;
  if (isInteger(v)) return v >= 0n;
  return isType(v) && typeElements(v) !== undefined;
}

/** The instances of an iterable type: a finite `Integer[a, b]` or an `Enum`. */
export function typeElements(t: PValue): PValue[] | undefined {
  if (!isType(t)) return undefined;
  const x = t as unknown as { name: string; from?: bigint; to?: bigint; values?: readonly string[] };
  if (x.name === "Enum" && x.values) return [...x.values];
  if (x.name === "Integer" && typeof x.from === "bigint" && typeof x.to === "bigint") {
    const out: PValue[] = [];
    for (let i = x.from; i <= x.to; i++) out.push(i);
    return out;
  }
  return undefined;
}

export const T = {
  any: spec("Any", "Any", () => true),
  numeric: spec("Numeric", "Numeric", isNumeric),
  integer: spec("Integer", "Integer", isInteger),
  float: spec("Float", "Float", isFloat),
  string: spec("String", "String", isString),
  boolean: spec("Boolean", "Boolean", (v) => typeof v === "boolean"),
  regexp: spec("Regexp", "Regexp", (v) => v instanceof PRegexp),
  binary: spec("Binary", "Binary", (v) => v instanceof PBinary),
  undef: spec("Undef", "Undef", (v) => v === undefined),
  type: spec("Type", "Type", isType),
  array: spec("Array", "Array", isArray),
  hash: spec("Hash", "Hash", isHashValue),
  collection: spec("Collection", "Collection", (v) => isArray(v) || isHashValue(v)),
  iterable: spec("Iterable", "Iterable", isIterableValue),
  iterator: spec("Iterator", "Iterator", (v) => v instanceof PIterator),
  sensitive: spec("Sensitive", "Sensitive", (v) => v instanceof PSensitive),
  timespan: spec("Timespan", "Timespan", (v) => isObjectOf(v, "Timespan")),
  timestamp: spec("Timestamp", "Timestamp", (v) => isObjectOf(v, "Timestamp")),
  semver: spec("SemVer", "SemVer", (v) => isObjectOf(v, "SemVer")),
  object: spec("Object", "Object", (v) => v instanceof PObject),
  /** `Integer[min, max]` (max undefined: unbounded). */
  intRange(min: bigint, max?: bigint): Spec {
    const full = max === undefined ? `Integer[${min}]` : `Integer[${min}, ${max}]`;
    return spec(
      "Integer",
      full,
      (v) => isInteger(v) && v >= min && (max === undefined || v <= max),
      isInteger,
    );
  },
  /** `Array[elem]`. */
  arrayOf(elem: Spec, full = `Array[${elem.full}]`): Spec {
    return {
      ...spec("Array", full, (v) => isArray(v) && v.every((x) => elem.test(x)), isArray),
      elementOf: elem,
    };
  },
  /** `Hash[key, value]`. */
  hashOf(
    key: Spec,
    value: Spec,
    full = key.cls === "Any" && value.cls === "Any" ? "Hash" : `Hash[${key.full}, ${value.full}]`,
  ): Spec {
    const test = (v: PValue) => {
      if (!isHashValue(v)) return false;
      for (const [k, x] of v) if (!key.test(k) || !value.test(x)) return false;
      return true;
    };
    return spec("Hash", full, test, isHashValue);
  },
  /** `Iterable[elem]`: checked on arrays and hashes' entries as Puppet does for the common cases. */
  iterableOf(elem: Spec): Spec {
    // Puppet checks an array by the common type of its elements: strings
    // mixed with numbers make Scalar, which a Variant[String, Numeric] rejects.
    const members = elem.members ?? [elem];
    const arrayFits = (a: PValue[]) => members.some((m) => a.every((x) => m.test(x)));
    const test = (v: PValue) => {
      if (isArray(v)) return arrayFits(v);
      if (isString(v)) return elem.test("a");
      if (isInteger(v)) return elem.test(0n);
      if (isHashValue(v)) return [...v].every(([k, x]) => elem.test([k, x]));
      return isIterableValue(v);
    };
    const quietFor = (v: PValue) => isArray(v) && v.every((x) => elem.test(x));
    return {
      ...spec("Iterable", `Iterable[${elem.full}]`, test, isIterableValue, `Iterable[${elem.cls}]`),
      quietFor,
    };
  },
  sensitiveOf(inner: Spec): Spec {
    const full = `Sensitive[${inner.full}]`;
    const s = spec(
      "Sensitive",
      full,
      (v) => v instanceof PSensitive && inner.test(v.value),
      (v) => v instanceof PSensitive,
      full,
    );
    return s;
  },
  typeOf(inner: string, test: (t: PValue) => boolean): Spec {
    const full = `Type[${inner}]`;
    return spec("Type", full, (v) => isType(v) && test(v), isType, full);
  },
  enumOf(...values: string[]): Spec {
    const full = `Enum[${[...values]
      .sort()
      .map((x) => `'${x}'`)
      .join(", ")}]`;
    return {
      ...spec("Enum", full, (v) => isString(v) && values.includes(v), isString),
      isPattern: true,
      enumValues: values,
    };
  },
  pattern(re: RegExp, source: string): Spec {
    return {
      ...spec("Pattern", `Pattern[/${source}/]`, (v) => isString(v) && re.test(v), isString),
      isPattern: true,
    };
  },
  variant(...members: Spec[]): Spec {
    const full = `Variant[${members.map((m) => m.full).join(", ")}]`;
    const test = (v: PValue) => members.some((m) => m.test(v));
    return { ...spec("Variant", full, test), members };
  },
  optional(inner: Spec): Spec {
    const test = (v: PValue) => v === undefined || inner.test(v);
    return { ...spec("Optional", `Optional[${inner.full}]`, test), optionalOf: inner };
  },
  /** A named alias (`StringData`): rendered by its name, expanded in mismatch messages. */
  alias(name: string, inner: Spec, expanded = name): Spec {
    return spec("Alias", expanded, inner.test, inner.kindTest, name);
  },
};

/** The class name of the type Puppet infers for `v`, as mismatch messages show it ("got Tuple"). */
export function actualClass(v: PValue): string {
  if (v === undefined) return "Undef";
  if (v === DEFAULT) return "Default";
  if (isInteger(v)) return "Integer";
  if (isFloat(v)) return "Float";
  if (isString(v)) return "String";
  if (typeof v === "boolean") return "Boolean";
  if (isArray(v)) return v.length === 0 ? "Array" : "Tuple";
  if (isHashValue(v)) {
    if (v.size === 0) return "Hash";
    for (const k of v.keys()) if (!isString(k)) return "Hash";
    return "Struct";
  }
  if (v instanceof PRegexp) return "Regexp";
  if (v instanceof PSensitive || v instanceof PIterator || isType(v)) return containerName(v);
  if (v instanceof PBinary) return "Binary";
  if (v instanceof PObject) return v.typeName;
  if (isCallable(v)) return "Callable";
  return "Any";
}

/** Puppet's short name of a container's type: `Sensitive[String]`, `Type[Integer]`, `Iterator[Integer]`. */
function containerName(v: PValue): string {
  const fallback = v instanceof PSensitive ? "Sensitive" : v instanceof PIterator ? "Iterator" : "Type";
  try {
    const t = inferSet(v) as unknown as { name: string; type?: { name: string } };
    return t.type && t.type.name !== "Any" ? `${t.name}[${t.type.name}]` : t.name;
  } catch {
    return fallback;
  }
}

/** Puppet's rendering of the type inferred for `v` with its details (`Integer[0, 0]`), as `infer_set` gives it. */
export function actualDetailed(v: PValue): string {
  // The describer shows booleans without their value.
  if (typeof v === "boolean") return "Boolean";
  try {
    return inferSet(v).toString();
  } catch {
    return localDetailed(v);
  }
}

function localDetailed(v: PValue): string {
  if (isInteger(v)) return `Integer[${v}, ${v}]`;
  if (isFloat(v)) return `Float[${rubyFloat(v)}, ${rubyFloat(v)}]`;
  if (isString(v)) return "String";
  if (isArray(v)) return v.length === 0 ? "Array[0, 0]" : `Tuple[${v.map(localDetailed).join(", ")}]`;
  if (isHashValue(v)) {
    if (v.size === 0) return "Hash[0, 0]";
    const cls = actualClass(v);
    if (cls === "Struct") {
      const parts = [...v].map(([k, x]) => `'${String(k)}' => ${localDetailed(x)}`);
      return `Struct[{${parts.join(", ")}}]`;
    }
  }
  return actualClass(v);
}

/** Ruby's `Float#to_s`: shortest digits, `1.0e+20` past 1e16, `1.0e-05` below 1e-4. */
export function rubyFloat(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (!Number.isFinite(n)) return n > 0 ? "Infinity" : "-Infinity";
  if (n === 0) return Object.is(n, -0) ? "-0.0" : "0.0";
  const abs = Math.abs(n);
  if (abs >= 1e16 || abs < 1e-4) {
    const [mant, exp] = n.toExponential().split("e") as [string, string];
    const m = mant.includes(".") ? mant : `${mant}.0`;
    const e = Number(exp);
    return `${m}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  const s = String(n);
  return s.includes(".") ? s : `${s}.0`;
}
