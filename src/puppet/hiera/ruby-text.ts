/**
 * Ruby's `to_s` and `inspect` of Hiera's values: what a non-string value
 * becomes when interpolated into a string (`%{facts.processors.count}` is
 * "2", an array is `["a", "b"]`, a hash `{"a"=>1}`, a float `1.0e+16`).
 */
import { PHash, type PValue } from "../eval/values.js";

export function rubyToS(v: PValue): string {
  if (typeof v === "string") return v;
  if (v === undefined) return "";
  if (typeof v === "number") return rubyFloat(v);
  if (typeof v === "bigint" || typeof v === "boolean") return String(v);
  return rubyInspect(v);
}

export function rubyInspect(v: PValue): string {
  if (typeof v === "string") return JSON.stringify(v).replace(/#(?=[{$@])/g, "\\#");
  if (v === undefined) return "nil";
  if (typeof v === "number") return rubyFloat(v);
  if (typeof v === "bigint" || typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return `[${v.map(rubyInspect).join(", ")}]`;
  if (v instanceof PHash)
    return `{${[...v].map(([k, x]) => `${rubyInspect(k)}=>${rubyInspect(x)}`).join(", ")}}`;
  return String(v);
}

/** Ruby's Float#to_s: shortest digits, `1.0`, exponent form below 1e-4 and from 1e16. */
export function rubyFloat(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (!Number.isFinite(n)) return n > 0 ? "Infinity" : "-Infinity";
  if (n === 0) return Object.is(n, -0) ? "-0.0" : "0.0";
  const [mantissa = "", expText = "0"] = n.toExponential().split("e");
  const exp = Number(expText);
  const sign = mantissa.startsWith("-") ? "-" : "";
  const digits = mantissa.replace(/^-/, "").replace(".", "");
  if (exp < -4 || exp >= 16) {
    const frac = digits.slice(1) || "0";
    const e = Math.abs(exp).toString().padStart(2, "0");
    return `${sign}${digits[0]}.${frac}e${exp < 0 ? "-" : "+"}${e}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  const whole = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
  const frac = digits.slice(exp + 1) || "0";
  return `${sign}${whole}.${frac}`;
}
