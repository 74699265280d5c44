/**
 * Ruby's `to_s` and `inspect` of Puppet values, for the functions whose
 * results Ruby's own string conversions make (join, shellquote, sprintf's
 * %s, fqdn_rand's seed, the 3.x functions).
 */
import { DEFAULT, PBinary, PHash, PObject, PRegexp, PSensitive, type PValue, isType } from "../../values.js";
import { rubyFloat } from "./spec.js";

/** Ruby's `Regexp#to_s`: `(?-mix:src)`. */
export function regexpToS(r: PRegexp): string {
  return `(?-mix:${r.source})`;
}

export function rubyToS(v: PValue): string {
  if (v === undefined) return "";
  if (typeof v === "string") return v;
  if (Array.isArray(v) || v instanceof PHash) return rubyInspect(v);
  if (v instanceof PRegexp) return regexpToS(v);
  return scalarText(v);
}

function scalarText(v: PValue): string {
  if (v === DEFAULT) return "default";
  if (typeof v === "bigint" || typeof v === "boolean") return String(v);
  if (typeof v === "number") return rubyFloat(v);
  if (v instanceof PSensitive) return "Sensitive [value redacted]";
  if (v instanceof PBinary) return Buffer.from(v.bytes).toString("base64");
  if (v instanceof PObject || isType(v)) return v.toString();
  return String(v);
}

export function rubyInspect(v: PValue): string {
  if (v === undefined) return "nil";
  if (v === DEFAULT) return ":default";
  if (typeof v === "string") return JSON.stringify(v).replace(/#[{$@]/g, (m) => `\\${m}`);
  if (Array.isArray(v)) return `[${v.map(rubyInspect).join(", ")}]`;
  if (v instanceof PHash)
    return `{${[...v].map(([k, x]) => `${rubyInspect(k)}=>${rubyInspect(x)}`).join(", ")}}`;
  if (v instanceof PRegexp) return `/${v.source}/`;
  return scalarText(v);
}
