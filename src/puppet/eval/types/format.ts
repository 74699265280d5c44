/**
 * A value as string interpolation gives it (`"${v}"`): strings bare, also
 * inside arrays and hashes (`[1, a, {b => 2}]`), undef as the empty
 * string, floats as Ruby prints them, types and regexps in their literal
 * form, Sensitive redacted.
 */
import { isHash, isType, PBinary, PDeferred, PObject, PRegexp, PSensitive, type PValue } from "../values.js";
import { deferredText, regexpToString, rubyFloat } from "./quote.js";

export function formatValue(v: PValue): string {
  switch (typeof v) {
    case "undefined":
      return "";
    case "string":
      return v;
    case "bigint":
      return v.toString();
    case "number":
      return rubyFloat(v);
    case "boolean":
      return v ? "true" : "false";
    case "symbol":
      return "default";
  }
  if (Array.isArray(v)) return `[${v.map(formatValue).join(", ")}]`;
  if (isHash(v)) {
    const parts: string[] = [];
    for (const [k, x] of v) parts.push(`${formatValue(k)} => ${formatValue(x)}`);
    return `{${parts.join(", ")}}`;
  }
  if (v instanceof PRegexp) return regexpToString(v.source);
  if (v instanceof PSensitive) return "Sensitive [value redacted]";
  if (v instanceof PBinary) return Buffer.from(v.bytes).toString("base64");
  if (isType(v)) return v.toString();
  if (v instanceof PDeferred) return deferredText(v);
  if (v instanceof PObject) return v.toString();
  return String(v);
}
