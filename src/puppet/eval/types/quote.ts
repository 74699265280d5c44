/**
 * Quoting as Puppet's type formatter does it: strings single-quoted when
 * they can be (double-quoted with escapes otherwise), regexps between
 * slashes, values inside type parameters in their literal form.
 */
import {
  isHash,
  isType,
  PBinary,
  PDeferred,
  PHash,
  PObject,
  PRegexp,
  PSensitive,
  type PValue,
  setDeferredArguments,
} from "../values.js";

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

setDeferredArguments(formatTypeArg);

/** A Deferred value as Puppet prints it: `Deferred({'name' => 'f', 'arguments' => [1]})`. */
export function deferredText(d: PDeferred): string {
  const args = d.hasArguments ? `, 'arguments' => ${formatTypeArg([...d.args])}` : "";
  return `Deferred({'name' => ${puppetQuote(d.name)}${args}})`;
}

/**
 * An Object value with its init hash laid out as Puppet's TypeFormatter
 * does when indenting (`%#p`, or inside an indenting array): each hash
 * entry on its own line, arrays too unless short, nested Deferred and
 * Error values the same way; `indent` is the level (2 spaces each).
 */
export function indentedObjectText(v: PDeferred | PObject, indent: number): string {
  const out = { s: "" };
  appendIndented(out, v, indent);
  return out.s;
}

/** The init hash of the Objects printed indented (Deferred, Error), or undefined. */
function initHashOf(v: PValue): PHash | undefined {
  if (v instanceof PDeferred) {
    const h = new PHash();
    h.set("name", v.name);
    if (v.hasArguments) h.set("arguments", [...v.args]);
    return h;
  }
  if (v instanceof PObject && v.typeName === "Error")
    return (v as PObject & { initHash(): PHash }).initHash();
  return undefined;
}

function newline(out: { s: string }, indent: number): void {
  out.s = `${out.s.trimEnd()}\n${" ".repeat(indent * 2)}`;
}

function chompList(out: { s: string }): void {
  if (out.s.endsWith(", ")) out.s = out.s.slice(0, -2);
}

/** TypeFormatter#is_short_array?: fits in the line left at this indentation. */
function isShortArray(a: readonly PValue[], indent: number): boolean {
  if (a.length === 0) return true;
  let sum = 0;
  for (const e of a) {
    if (e === undefined) sum += 3;
    else if (typeof e === "boolean" || typeof e === "bigint") sum += String(e).length;
    else if (typeof e === "number") sum += rubyFloat(e).length;
    else if (typeof e === "symbol") sum += ":default".length;
    else if (typeof e === "string") sum += 2 + e.length;
    else if (Array.isArray(e)) sum += e.length === 0 ? 2 : 1000;
    else if (isHash(e)) sum += e.size === 0 ? 2 : 1000;
    else sum += 1000;
  }
  return 100 - indent * 2 > sum;
}

function appendIndented(out: { s: string }, v: PValue, indent: number): void {
  const init = initHashOf(v);
  if (init !== undefined) {
    out.s += `${(v as PObject).typeName}(`;
    appendIndented(out, init, indent);
    out.s += ")";
    return;
  }
  if (isHash(v)) {
    out.s += "{";
    for (const [k, x] of v) {
      newline(out, indent + 1);
      appendIndented(out, k, indent + 1);
      out.s += " => ";
      appendIndented(out, x, indent + 1);
      out.s += ", ";
    }
    chompList(out);
    newline(out, indent);
    out.s += "}";
    return;
  }
  if (Array.isArray(v)) {
    out.s += "[";
    if (isShortArray(v, indent)) {
      v.forEach((e, i) => {
        if (i > 0) out.s += ", ";
        appendIndented(out, e, indent);
      });
    } else {
      for (const e of v) {
        newline(out, indent + 1);
        appendIndented(out, e, indent + 1);
        out.s += ", ";
      }
      chompList(out);
      newline(out, indent);
    }
    out.s += "]";
    return;
  }
  out.s += formatTypeArg(v);
}
