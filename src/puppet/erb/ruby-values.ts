/**
 * Ruby values as the ERB interpreter holds them, and their conversion from
 * and to Puppet values the way Puppet hands variables to a template:
 * undef is nil, Integer and Float stay numbers, a Hash is a Ruby Hash keyed
 * by the same keys, `default` is the symbol `:default`; everything else
 * (Sensitive, types, objects) is an opaque value that renders as Puppet does.
 *
 * | Ruby    | here                          |
 * |---------|-------------------------------|
 * | nil     | `null`                        |
 * | Integer | `bigint`                      |
 * | Float   | `number`                      |
 * | String  | `string` (`<<` reassigns)     |
 * | Symbol  | `RSymbol` (interned)          |
 * | Array   | `RValue[]` (mutable)          |
 * | Hash    | `RHash`                       |
 * | Range   | `RRange`                      |
 * | Regexp  | `RRegexp`                     |
 * | class   | `RClass` (`Array`, `String`: for `is_a?`) |
 */
import { DEFAULT, isType, PHash, PObject, PRegexp, PSensitive, type PValue } from "../eval/values.js";

export class RSymbol {
  private static readonly table = new Map<string, RSymbol>();
  private constructor(readonly name: string) {}
  static of(name: string): RSymbol {
    let s = RSymbol.table.get(name);
    if (!s) {
      s = new RSymbol(name);
      RSymbol.table.set(name, s);
    }
    return s;
  }
}

export class RRange {
  constructor(
    readonly from: RValue,
    readonly to: RValue,
    readonly exclusive: boolean,
  ) {}
}

export class RRegexp {
  constructor(
    readonly source: string,
    readonly re: RegExp,
  ) {}
}

/** A Ruby class, as a value (`Array`, `Hash`, `String`, `Integer`...). */
export class RClass {
  constructor(readonly name: string) {}
}

/** The template's own objects: `scope` (Puppet's scope) and `self` (the template wrapper). */
export class RSpecial {
  constructor(readonly kind: "scope" | "template") {}
}

/** A Puppet value with no Ruby counterpart in the subset (Sensitive, a type, an object). */
export class RForeign {
  constructor(readonly value: PValue) {}
}

/** An insertion-ordered Ruby Hash; keys compared with Ruby's `eql?` (1 and 1.0 differ). */
export class RHash {
  readonly map = new Map<string, [RValue, RValue]>();
  default: RValue = null;
  get size(): number {
    return this.map.size;
  }
  get(k: RValue): RValue {
    const e = this.map.get(keyOf(k));
    return e ? e[1] : this.default;
  }
  has(k: RValue): boolean {
    return this.map.has(keyOf(k));
  }
  set(k: RValue, v: RValue): void {
    const key = keyOf(k);
    const e = this.map.get(key);
    if (e) e[1] = v;
    else this.map.set(key, [typeof k === "string" ? k : k, v]);
  }
  delete(k: RValue): RValue {
    const key = keyOf(k);
    const e = this.map.get(key);
    this.map.delete(key);
    return e ? e[1] : null;
  }
  entries(): [RValue, RValue][] {
    return [...this.map.values()].map((e) => [e[0], e[1]]);
  }
  static from(entries: Iterable<[RValue, RValue]>): RHash {
    const h = new RHash();
    for (const [k, v] of entries) h.set(k, v);
    return h;
  }
}

export type RValue =
  | null
  | boolean
  | bigint
  | number
  | string
  | RSymbol
  | RValue[]
  | RHash
  | RRange
  | RRegexp
  | RClass
  | RSpecial
  | RForeign;

/** The key under which an RHash stores `k`: equal for `eql?` values. */
export function keyOf(k: RValue): string {
  if (typeof k === "string") return `s${k}`;
  if (k === null) return "n";
  if (typeof k === "boolean") return k ? "t" : "f";
  if (typeof k === "bigint") return `i${k}`;
  if (typeof k === "number") return `d${k}`;
  if (k instanceof RSymbol) return `y${k.name}`;
  if (Array.isArray(k)) return `[${k.map(keyOf).join(",")}]`;
  if (k instanceof RHash)
    return `{${k
      .entries()
      .map(([a, b]) => `${keyOf(a)}=>${keyOf(b)}`)
      .join(",")}}`;
  if (k instanceof RRange) return `r${keyOf(k.from)}${k.exclusive ? "..." : ".."}${keyOf(k.to)}`;
  if (k instanceof RRegexp) return `/${k.source}`;
  if (k instanceof RClass) return `c${k.name}`;
  if (k instanceof RSpecial) return `o${k.kind}`;
  return `?${String(k.value)}`;
}

/** A Puppet value as a template sees it. */
export function fromPuppet(v: PValue): RValue {
  if (v === undefined) return null;
  if (v === DEFAULT) return RSymbol.of("default");
  if (typeof v === "string" || typeof v === "bigint" || typeof v === "number" || typeof v === "boolean")
    return v;
  if (Array.isArray(v)) return v.map(fromPuppet);
  if (v instanceof PHash) {
    const h = new RHash();
    for (const [k, x] of v) h.set(fromPuppet(k), fromPuppet(x));
    return h;
  }
  if (v instanceof PRegexp) return new RRegexp(v.source, v.re);
  return new RForeign(v);
}

/** A template's value handed back to Puppet (a function's arguments). */
export function toPuppet(v: RValue): PValue {
  if (v === null) return undefined;
  if (typeof v === "string" || typeof v === "bigint" || typeof v === "number" || typeof v === "boolean")
    return v;
  if (v instanceof RSymbol) return v.name === "default" ? DEFAULT : v.name;
  if (Array.isArray(v)) return v.map(toPuppet);
  if (v instanceof RHash) return PHash.from(v.entries().map(([k, x]) => [toPuppet(k), toPuppet(x)] as const));
  if (v instanceof RRegexp) return new PRegexp(v.source, v.re);
  if (v instanceof RRange) return rangeToArray(v).map(toPuppet);
  if (v instanceof RClass) return v.name;
  if (v instanceof RSpecial) return undefined;
  return v.value;
}

/** The elements of an integer or string range. */
export function rangeToArray(r: RRange): RValue[] {
  const out: RValue[] = [];
  if (typeof r.from === "bigint" && typeof r.to === "bigint") {
    const end = r.exclusive ? r.to : r.to + 1n;
    for (let i = r.from; i < end; i++) out.push(i);
    return out;
  }
  if (typeof r.from === "string" && typeof r.to === "string") {
    // Ruby's String#succ over single characters and simple alphanumerics.
    let s = r.from;
    for (let n = 0; n < 100000; n++) {
      if (s === r.to) {
        if (!r.exclusive) out.push(s);
        return out;
      }
      if (s.length > r.to.length) return out;
      out.push(s);
      s = succ(s);
    }
  }
  return out;
}

/** Ruby's String#succ for alphanumeric strings. */
export function succ(s: string): string {
  if (s === "") return "";
  const chars = [...s];
  let i = chars.length - 1;
  for (;;) {
    const c = chars[i] as string;
    if (c === "z" || c === "Z" || c === "9") {
      chars[i] = c === "z" ? "a" : c === "Z" ? "A" : "0";
      if (i === 0) {
        chars.unshift(c === "9" ? "1" : c === "z" ? "a" : "A");
        return chars.join("");
      }
      i--;
    } else if (/[a-yA-Y0-8]/.test(c)) {
      chars[i] = String.fromCharCode(c.charCodeAt(0) + 1);
      return chars.join("");
    } else {
      chars[i] = String.fromCharCode(c.charCodeAt(0) + 1);
      return chars.join("");
    }
  }
}

/** Ruby's truthiness: only nil and false are false. */
export function truthy(v: RValue): boolean {
  return v !== null && v !== false;
}

/** Ruby's Float#to_s. */
export function floatToS(f: number): string {
  if (Number.isNaN(f)) return "NaN";
  if (!Number.isFinite(f)) return f > 0 ? "Infinity" : "-Infinity";
  if (f === 0) return Object.is(f, -0) ? "-0.0" : "0.0";
  const [mant, exp] = f.toExponential().split("e") as [string, string];
  const e = Number(exp);
  // Ruby writes a decimal point form for exponents -4..14.
  if (e >= 15 || e < -4) {
    const m = mant.includes(".") ? mant : `${mant}.0`;
    return `${m}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  const s = String(f);
  return s.includes(".") ? s : `${s}.0`;
}

/** Ruby's `to_s`. */
export function toS(v: RValue): string {
  if (v === null) return "";
  if (typeof v === "string") return v;
  if (typeof v === "bigint" || typeof v === "boolean") return String(v);
  if (typeof v === "number") return floatToS(v);
  if (v instanceof RSymbol) return v.name;
  if (v instanceof RClass) return v.name;
  if (v instanceof RRegexp) return regexpToS(v);
  if (v instanceof RSpecial) return v.kind === "scope" ? "Scope()" : "template";
  if (v instanceof RForeign) return foreignToS(v.value);
  return inspect(v);
}

/** Ruby's Regexp#to_s: `(?-mix:source)` with the flags that are on before the dash. */
export function regexpToS(r: RRegexp): string {
  const has = { m: r.re.flags.includes("s"), i: r.re.flags.includes("i"), x: false };
  const on = (["m", "i", "x"] as const).filter((f) => has[f]).join("");
  const off = (["m", "i", "x"] as const).filter((f) => !has[f]).join("");
  return `(?${on}${off ? `-${off}` : ""}:${r.source})`;
}

function foreignToS(v: PValue): string {
  if (v instanceof PSensitive) return "Sensitive [value redacted]";
  if (v instanceof PObject || isType(v)) return v.toString();
  return String(v);
}

/** Ruby's `inspect` (Ruby 3.1 forms: `{"a"=>1}`, `[1, nil]`, `:sym`). */
export function inspect(v: RValue): string {
  if (v === null) return "nil";
  if (typeof v === "string") return inspectString(v);
  if (typeof v === "bigint" || typeof v === "boolean") return String(v);
  if (typeof v === "number") return floatToS(v);
  if (v instanceof RSymbol)
    return /^[A-Za-z_][A-Za-z0-9_]*[?!=]?$/.test(v.name) ? `:${v.name}` : `:${inspectString(v.name)}`;
  if (Array.isArray(v)) return `[${v.map(inspect).join(", ")}]`;
  if (v instanceof RHash) {
    if (v.size === 0) return "{}";
    return `{${v
      .entries()
      .map(([k, x]) => `${inspect(k)}=>${inspect(x)}`)
      .join(", ")}}`;
  }
  if (v instanceof RRange) return `${inspect(v.from)}${v.exclusive ? "..." : ".."}${inspect(v.to)}`;
  if (v instanceof RRegexp) return `/${v.source}/`;
  if (v instanceof RClass) return v.name;
  if (v instanceof RSpecial) return toS(v);
  return foreignToS(v.value);
}

const ESCAPES: Record<string, string> = {
  "\n": "\\n",
  "\t": "\\t",
  "\r": "\\r",
  "\f": "\\f",
  "\v": "\\v",
  "\b": "\\b",
  "\u0007": "\\a",
  "\u001b": "\\e",
  '"': '\\"',
  "\\": "\\\\",
};

export function inspectString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    const e = ESCAPES[c];
    if (e) out += e;
    else if (c === "#" && (s[i + 1] === "{" || s[i + 1] === "$" || s[i + 1] === "@")) out += "\\#";
    else if (c < " " || c === "\u007f")
      out += `\\x${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`;
    else out += c;
  }
  return `${out}"`;
}

/** The Ruby class name of a value, for messages and `class`. */
export function className(v: RValue): string {
  if (v === null) return "NilClass";
  if (v === true) return "TrueClass";
  if (v === false) return "FalseClass";
  if (typeof v === "string") return "String";
  if (typeof v === "bigint") return "Integer";
  if (typeof v === "number") return "Float";
  if (v instanceof RSymbol) return "Symbol";
  if (Array.isArray(v)) return "Array";
  if (v instanceof RHash) return "Hash";
  if (v instanceof RRange) return "Range";
  if (v instanceof RRegexp) return "Regexp";
  if (v instanceof RClass) return "Class";
  if (v instanceof RSpecial)
    return v.kind === "scope" ? "Puppet::Parser::Scope" : "Puppet::Parser::TemplateWrapper";
  return "Object";
}

/** Ruby's `==`. */
export function requal(a: RValue, b: RValue): boolean {
  if (a === b) return true;
  if ((typeof a === "bigint" || typeof a === "number") && (typeof b === "bigint" || typeof b === "number"))
    return Number(a) === Number(b);
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => requal(x, b[i] as RValue));
  if (a instanceof RHash) {
    if (!(b instanceof RHash) || a.size !== b.size) return false;
    return a.entries().every(([k, v]) => b.has(k) && requal(v, b.get(k)));
  }
  if (a instanceof RRange)
    return b instanceof RRange && a.exclusive === b.exclusive && requal(a.from, b.from) && requal(a.to, b.to);
  if (a instanceof RRegexp) return b instanceof RRegexp && a.source === b.source;
  if (a instanceof RClass) return b instanceof RClass && a.name === b.name;
  if (a instanceof RForeign) return b instanceof RForeign && a.value === b.value;
  return false;
}
