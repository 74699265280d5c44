/**
 * A small stand-in for the type system (types.ts) used while that is not
 * written: the common built-in types with their instance checks, enough for
 * typed parameters, case/selector matching and `=~ Type`. `typing.ts`
 * prefers the real type system and falls back here.
 */
import { isArr } from "./arr.js";
import { ResourceRef, asResourceRef } from "./refs.js";
import { PType } from "./types.js";
import {
  DEFAULT,
  PBinary,
  PHash,
  PIterator,
  PObject,
  PRegexp,
  PSensitive,
  type PValue,
  equals,
  isType,
} from "./values.js";

const KNOWN = new Set([
  "Any",
  "Undef",
  "Default",
  "Integer",
  "Float",
  "Numeric",
  "String",
  "Boolean",
  "Array",
  "Hash",
  "Tuple",
  "Struct",
  "Optional",
  "NotUndef",
  "Variant",
  "Enum",
  "Pattern",
  "Scalar",
  "ScalarData",
  "Data",
  "RichData",
  "Regexp",
  "Type",
  "Callable",
  "Collection",
  "Iterable",
  "Iterator",
  "Sensitive",
  "Binary",
  "CatalogEntry",
  "Runtime",
  "Object",
  "SemVer",
  "SemVerRange",
  "Timespan",
  "Timestamp",
  "Deferred",
  "Error",
  "Init",
  "Unit",
  "URI",
  "TypeSet",
]);

export class MiniType extends PType {
  constructor(
    readonly name: string,
    readonly params: readonly PValue[] = [],
  ) {
    super();
  }
  isInstance(v: PValue): boolean {
    return miniIsInstance(this, v);
  }
  isAssignable(t: PType): boolean {
    if (this.name === "Any") return true;
    if (t instanceof MiniType) {
      if (this.name === "Type" && this.params.length === 0) return t.name === "Type";
      return t.name === this.name && this.params.length === 0;
    }
    return false;
  }
  toString(): string {
    if (this.params.length === 0) return this.name;
    return `${this.name}[${this.params.map(renderParam).join(", ")}]`;
  }
  equals(other: PType): boolean {
    return other instanceof MiniType && other.toString() === this.toString();
  }
}

function renderParam(v: PValue): string {
  if (typeof v === "string") return `'${v}'`;
  if (v === DEFAULT) return "default";
  if (v instanceof PRegexp) return `/${v.source}/`;
  if (isType(v)) return v.toString();
  if (isArr(v)) return `[${v.map(renderParam).join(", ")}]`;
  if (v instanceof PHash) {
    return `{${[...v].map(([k, x]) => `${renderParam(k)} => ${renderParam(x)}`).join(", ")}}`;
  }
  return String(v);
}

export function miniTypeByName(name: string): PType | undefined {
  return KNOWN.has(name) ? new MiniType(name) : undefined;
}

export function miniParameterize(t: PType, args: readonly PValue[]): PType {
  if (t instanceof MiniType) return new MiniType(t.name, [...t.params, ...args]);
  return t;
}

function isNumber(v: PValue): v is number | bigint {
  return typeof v === "number" || typeof v === "bigint";
}

function inRange(v: number | bigint, lo: PValue, hi: PValue): boolean {
  const n = Number(v);
  if (isNumber(lo) && n < Number(lo)) return false;
  if (isNumber(hi) && n > Number(hi)) return false;
  return true;
}

function typeParam(v: PValue): PType | undefined {
  return isType(v) ? v : undefined;
}

function sizeOk(n: number, params: readonly PValue[], from: number): boolean {
  const lo = params[from];
  const hi = params[from + 1];
  if (isNumber(lo) && n < Number(lo)) return false;
  if (isNumber(hi) && n > Number(hi)) return false;
  return true;
}

function isScalar(v: PValue): boolean {
  return (
    typeof v === "string" ||
    typeof v === "number" ||
    typeof v === "bigint" ||
    typeof v === "boolean" ||
    v instanceof PRegexp
  );
}

function isData(v: PValue): boolean {
  if (v === undefined || (isScalar(v) && !(v instanceof PRegexp))) return true;
  if (isArr(v)) return v.every(isData);
  if (v instanceof PHash) return [...v].every(([k, x]) => typeof k === "string" && isData(x));
  return false;
}

function miniIsInstance(t: MiniType, v: PValue): boolean {
  const p = t.params;
  switch (t.name) {
    case "Any":
      return true;
    case "Undef":
      return v === undefined;
    case "Default":
      return v === DEFAULT;
    case "Integer":
      return (typeof v === "bigint" || (typeof v === "number" && false)) && inRange(v, p[0], p[1]);
    case "Float":
      return typeof v === "number" && inRange(v, p[0], p[1]);
    case "Numeric":
      return isNumber(v) && inRange(v, p[0], p[1]);
    case "String":
      return typeof v === "string" && sizeOk(v.length, p, 0);
    case "Boolean":
      return typeof v === "boolean";
    case "Regexp":
      return v instanceof PRegexp;
    case "Array":
    case "Collection": {
      if (!isArr(v)) return t.name === "Collection" && v instanceof PHash;
      const et = typeParam(p[0]);
      const from = et ? 1 : 0;
      return sizeOk(v.length, p, from) && (!et || v.every((x) => et.isInstance(x)));
    }
    case "Tuple": {
      if (!isArr(v)) return false;
      const types = p.filter(isType) as PType[];
      const nums = p.filter(isNumber);
      const min = nums.length > 0 ? Number(nums[0]) : types.length;
      const max = nums.length > 1 ? Number(nums[1]) : nums.length > 0 ? Number.POSITIVE_INFINITY : types.length;
      if (v.length < min || v.length > max) return false;
      return v.every((x, i) => {
        const ty = types[Math.min(i, types.length - 1)];
        return ty === undefined || ty.isInstance(x);
      });
    }
    case "Hash": {
      if (!(v instanceof PHash)) return false;
      const kt = typeParam(p[0]);
      const vt = typeParam(p[1]);
      const from = kt ? 2 : 0;
      if (!sizeOk(v.size, p, from)) return false;
      for (const [k, x] of v) {
        if (kt && !kt.isInstance(k)) return false;
        if (vt && !vt.isInstance(x)) return false;
      }
      return true;
    }
    case "Struct": {
      if (!(v instanceof PHash)) return false;
      const spec = p[0];
      if (!(spec instanceof PHash)) return true;
      const seen = new Set<string>();
      for (const [k, ty] of spec) {
        let key = k;
        let optional = false;
        if (k instanceof MiniType && (k.name === "Optional" || k.name === "NotUndef")) {
          optional = k.name === "Optional";
          key = k.params[0];
        }
        if (typeof key !== "string") continue;
        seen.add(key);
        const present = v.has(key);
        const tt = typeParam(ty);
        if (!present) {
          if (optional || (tt && tt.isInstance(undefined))) continue;
          return false;
        }
        if (tt && !tt.isInstance(v.get(key))) return false;
      }
      for (const k of v.keys()) if (typeof k !== "string" || !seen.has(k)) return false;
      return true;
    }
    case "Optional": {
      if (v === undefined) return true;
      const inner = p[0];
      if (typeof inner === "string") return v === inner;
      const it = typeParam(inner);
      return it ? it.isInstance(v) : true;
    }
    case "NotUndef": {
      if (v === undefined) return false;
      const it = typeParam(p[0]);
      return it ? it.isInstance(v) : true;
    }
    case "Variant":
      return p.some((x) => isType(x) && x.isInstance(v));
    case "Enum": {
      if (typeof v !== "string") return false;
      const values = p.flat() as PValue[];
      const ci = values[values.length - 1] === true;
      return values.some((x) => typeof x === "string" && (ci ? x.toLowerCase() === v.toLowerCase() : x === v));
    }
    case "Pattern":
      if (typeof v !== "string") return false;
      if (p.length === 0) return true;
      return p.some((x) => (x instanceof PRegexp ? x.re.test(v) : typeof x === "string" ? new RegExp(x).test(v) : false));
    case "Scalar":
      return isScalar(v);
    case "ScalarData":
      return isScalar(v) && !(v instanceof PRegexp);
    case "Data":
      return isData(v);
    case "RichData":
      return true;
    case "Type": {
      if (!isType(v)) return false;
      const it = typeParam(p[0]);
      return it ? it.isAssignable(v) || equals(it, v) : true;
    }
    case "Callable":
      return typeof v === "object" && v !== null && (v as { kind?: unknown }).kind === "callable";
    case "Iterable":
      return isArr(v) || v instanceof PHash || typeof v === "string" || v instanceof PIterator || isNumber(v);
    case "Iterator":
      return v instanceof PIterator;
    case "Sensitive":
      return v instanceof PSensitive;
    case "Binary":
      return v instanceof PBinary;
    case "CatalogEntry":
      return asResourceRef(v) !== undefined;
    default:
      return v instanceof PObject && v.typeName === t.name;
  }
}

/** The type `type_of` would give, roughly (the mini system's `inferType`). */
export function miniInferType(v: PValue): PType {
  if (v === undefined) return new MiniType("Undef");
  if (v === DEFAULT) return new MiniType("Default");
  if (typeof v === "bigint") return new MiniType("Integer", [v, v]);
  if (typeof v === "number") return new MiniType("Float", [v, v]);
  if (typeof v === "string") return new MiniType("String");
  if (typeof v === "boolean") return new MiniType("Boolean");
  if (isArr(v)) return new MiniType("Array");
  if (v instanceof PHash) return new MiniType("Hash");
  if (v instanceof PRegexp) return new MiniType("Regexp");
  if (isType(v)) return new MiniType("Type", [v]);
  if (v instanceof ResourceRef) return new MiniType("Type", [v]);
  return new MiniType("Any");
}
