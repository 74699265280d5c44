/**
 * The compiler's door to the type system: each operation uses types.ts and,
 * while that answers "not written yet" (a TypeSystemError thrown by the
 * stub), the small stand-in of mini-types.ts. Resource and class references
 * are always the compiler's own (refs.ts).
 */
import { isArr } from "./arr.js";
import { MiniType, miniInferType, miniParameterize, miniTypeByName } from "./mini-types.js";
import { ResourceRef, asResourceRef, capitalizeTypeName } from "./refs.js";
import * as T from "./types.js";
import { DEFAULT, PBinary, PHash, PObject, PRegexp, PSensitive, type PValue, isType } from "./values.js";

let realTypes: boolean | undefined;

/** Whether types.ts is implemented (probed once). */
function useReal(): boolean {
  if (realTypes === undefined) {
    try {
      T.typeByName("Integer");
      realTypes = true;
    } catch {
      realTypes = false;
    }
  }
  return realTypes;
}

export function typeByName(name: string): T.PType | undefined {
  return useReal() ? T.typeByName(name) : miniTypeByName(name);
}

export function parameterize(t: T.PType, args: readonly PValue[]): T.PType | T.PType[] {
  if (t instanceof MiniType || !useReal()) return miniParameterize(t, args);
  return T.parameterize(t, args);
}

export function inferType(v: PValue): T.PType {
  return useReal() ? T.inferType(v) : miniInferType(v);
}

export function isInstance(t: T.PType, v: PValue): boolean {
  return t.isInstance(v);
}

export function newInstance(t: T.PType, args: readonly PValue[]): PValue {
  if (useReal()) return T.newInstance(t, args);
  return miniNew(t, args);
}

function miniNew(t: T.PType, args: readonly PValue[]): PValue {
  const v = args[0];
  switch (t.name) {
    case "String":
      return formatValue(v);
    case "Integer":
      if (typeof v === "string") return BigInt(v.trim());
      if (typeof v === "number") return BigInt(Math.trunc(v));
      if (typeof v === "boolean") return v ? 1n : 0n;
      return v;
    case "Float":
    case "Numeric":
      if (typeof v === "string") return Number(v);
      return v;
    case "Array":
      if (isArr(v)) return v;
      if (v instanceof PHash) return [...v].map(([k, x]) => [k, x]);
      return [v];
    case "Boolean":
      return v === true || v === "true" || v === "yes";
    case "Sensitive":
      return new PSensitive(v);
    default:
      return v;
  }
}

export function describeMismatch(subject: string, expected: T.PType, actual: PValue): string {
  if (useReal()) return T.describeMismatch(subject, expected, actual);
  return `${subject} expects ${article(expected.toString())} value, got ${inferType(actual).name}`;
}

function article(name: string): string {
  return /^[AEIOU]/.test(name) ? `an ${name}` : `a ${name}`;
}

/** Puppet's text for a value in interpolation and `String(v)`. */
export function formatValue(v: PValue): string {
  if (v instanceof ResourceRef) return v.title === undefined ? v.typeName : v.refString();
  if (useReal()) return T.formatValue(v);
  return formatMini(v, false);
}

function quoteString(s: string): string {
  return `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

/** Ruby's Float#to_s. */
export function formatFloat(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e16) return `${n}.0`;
  if (!Number.isFinite(n)) return n > 0 ? "Infinity" : n < 0 ? "-Infinity" : "NaN";
  const s = String(n);
  if (s.includes("e")) {
    const [m, e] = s.split("e") as [string, string];
    const mant = m.includes(".") ? m : `${m}.0`;
    const exp = e.startsWith("-") ? e : `+${e.replace("+", "")}`;
    return `${mant}e${exp.length === 2 ? `${exp[0]}0${exp[1]}` : exp}`;
  }
  return s;
}

function formatMini(v: PValue, nested: boolean): string {
  if (v === undefined) return nested ? "undef" : "";
  if (v === DEFAULT) return "default";
  if (typeof v === "string") return nested ? quoteString(v) : v;
  if (typeof v === "bigint" || typeof v === "boolean") return String(v);
  if (typeof v === "number") return formatFloat(v);
  if (isArr(v)) return `[${v.map((x) => formatMini(x, true)).join(", ")}]`;
  if (v instanceof PHash) {
    if (v.size === 0) return "{}";
    return `{${[...v].map(([k, x]) => `${formatMini(k, true)} => ${formatMini(x, true)}`).join(", ")}}`;
  }
  if (v instanceof PRegexp) return `/${v.source}/`;
  if (v instanceof PSensitive) return "Sensitive [value redacted]";
  if (v instanceof PBinary) return Buffer.from(v.bytes).toString("base64");
  if (v instanceof PObject) return v.toString();
  const ref = asResourceRef(v);
  if (ref) return ref.title === undefined ? ref.typeName : ref.refString();
  if (isType(v)) return v.toString();
  return String(v);
}

export { ResourceRef, asResourceRef, capitalizeTypeName };
