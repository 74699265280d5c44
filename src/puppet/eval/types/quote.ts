/**
 * Quoting as Puppet's type formatter does it: strings single-quoted when
 * they can be (double-quoted with escapes otherwise), regexps between
 * slashes, values inside type parameters in their literal form.
 */
import { isHash, isType, PBinary, PDeferred, PObject, PRegexp, PSensitive, type PValue } from "../values.js";

/** A string as a Puppet literal: `'it''s'` style escaping, or a double-quoted form for control characters. */
export function puppetQuote(s: string): string {
  let out = "'";
  let escaped = false;
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    if (cp < 0x20) return puppetDoubleQuote(s);
    if (escaped) {
      out += `\\${ch}`;
      escaped = false;
    } else if (cp === 0x27) out += "\\'";
    else if (cp === 0x5c) escaped = true;
    else out += ch;
  }
  if (escaped) out += "\\";
  return `${out}'`;
}

export function puppetDoubleQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    switch (cp) {
      case 0x09:
        out += "\\t";
        break;
      case 0x0a:
        out += "\\n";
        break;
      case 0x0d:
        out += "\\r";
        break;
      case 0x22:
        out += '\\"';
        break;
      case 0x24:
        out += "\\$";
        break;
      case 0x5c:
        out += "\\\\";
        break;
      default:
        out += cp < 0x20 ? `\\u{${cp.toString(16).toUpperCase()}}` : ch;
    }
  }
  return `${out}"`;
}

/** A regexp source between slashes, unescaped slashes escaped (Ruby's Regexp#inspect). */
export function regexpToString(source: string): string {
  let out = "";
  for (let i = 0; i < source.length; i++) {
    const c = source[i] as string;
    if (c === "\\" && i + 1 < source.length) {
      out += c + source[i + 1];
      i++;
    } else if (c === "/") out += "\\/";
    else out += c;
  }
  return `/${out}/`;
}

/** Ruby's Float#to_s. */
export function rubyFloat(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (n === Number.POSITIVE_INFINITY) return "Infinity";
  if (n === Number.NEGATIVE_INFINITY) return "-Infinity";
  if (Object.is(n, -0)) return "-0.0";
  const abs = Math.abs(n);
  if (abs !== 0 && (abs >= 1e16 || abs < 1e-4)) {
    const m = /^(-?\d+)(?:\.(\d+))?e([+-])(\d+)$/.exec(n.toExponential());
    if (m) return `${m[1]}.${m[2] ?? "0"}e${m[3]}${(m[4] ?? "").padStart(2, "0")}`;
  }
  const s = String(n);
  return s.includes(".") || s.includes("e") ? s : `${s}.0`;
}

/** A value as it appears inside a type's parameters or an Object's init hash (TypeFormatter#string). */
export function formatTypeArg(v: PValue): string {
  switch (typeof v) {
    case "undefined":
      return "undef";
    case "symbol":
      return "default";
    case "bigint":
      return v.toString();
    case "number":
      return rubyFloat(v);
    case "boolean":
      return String(v);
    case "string":
      return puppetQuote(v);
  }
  if (Array.isArray(v)) return `[${v.map(formatTypeArg).join(", ")}]`;
  if (isHash(v)) {
    const parts: string[] = [];
    for (const [k, x] of v) parts.push(`${formatTypeArg(k)} => ${formatTypeArg(x)}`);
    return `{${parts.join(", ")}}`;
  }
  if (v instanceof PRegexp) return regexpToString(v.source);
  if (v instanceof PSensitive) return "Sensitive [value redacted]";
  if (v instanceof PBinary) return `Binary('${Buffer.from(v.bytes).toString("base64")}')`;
  if (isType(v)) return v.toString();
  if (v instanceof PDeferred) return deferredText(v);
  if (v instanceof PObject) {
    if (["Timespan", "Timestamp", "SemVer", "SemVerRange"].includes(v.typeName)) return `'${v.toString()}'`;
    if (v.typeName === "URI") return `URI(${puppetQuote(v.toString())})`;
    return v.toString();
  }
  return String(v);
}

/** The smaller of two bigints. */
export function bmin(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
/** The larger of two bigints. */
export function bmax(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

/** A Deferred value as Puppet prints it: `Deferred({'name' => 'f', 'arguments' => [1]})`. */
export function deferredText(d: PDeferred): string {
  const args = d.args.length > 0 ? `, 'arguments' => ${formatTypeArg([...d.args])}` : "";
  return `Deferred({'name' => ${puppetQuote(d.name)}${args}})`;
}
