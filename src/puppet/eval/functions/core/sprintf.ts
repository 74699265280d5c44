/**
 * Ruby's Kernel#format as Puppet's sprintf uses it: flags (`-+ 0#`),
 * width and precision (also `*`), positional (`%1$s`) and named
 * (`%<name>s`, `%{name}`) arguments, and the conversions b B d i u o x X
 * e E f g G c p s %. Floats are rounded from their exact binary value,
 * half to even, as C's printf does.
 */
import { FunctionArgumentError, FunctionError } from "../registry.js";
import { PHash, type PValue } from "../../values.js";
import { rubyFloatParse } from "./numbers.js";
import { rubyInspect, rubyToS } from "./ruby-text.js";

interface Spec {
  flags: string;
  width?: number;
  precision?: number;
  conv: string;
}

/** The exact decimal digits of a finite double: value = 0.digits × 10^exp10 (digits without leading zeros). */
function exactDecimal(x: number): { digits: string; point: number } {
  if (x === 0) return { digits: "0", point: 1 };
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, Math.abs(x));
  const bits = buf.getBigUint64(0);
  const expBits = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  let e2: number;
  if (expBits === 0) e2 = -1074;
  else {
    mant |= 1n << 52n;
    e2 = expBits - 1075;
  }
  if (e2 >= 0) {
    const digits = (mant << BigInt(e2)).toString();
    return { digits, point: digits.length };
  }
  const digits = (mant * 5n ** BigInt(-e2)).toString();
  return { digits, point: digits.length + e2 };
}

/** Rounds digit string `d` to `n` digits, half to even (exact values: a tie is exactly 5000...). */
function roundDigits(d: string, n: number, tieDown = false): { digits: string; carry: boolean } {
  if (n < 0) return { digits: "", carry: false };
  if (d.length <= n) return { digits: d.padEnd(n, "0"), carry: false };
  const head = d.slice(0, n);
  const rest = d.slice(n);
  const first = rest.charCodeAt(0) - 48;
  const tie = first === 5 && /^50*$/.test(rest);
  const last = n > 0 ? head.charCodeAt(n - 1) - 48 : 0;
  const up = first > 5 || (first === 5 && !tie) || (tie && !tieDown && last % 2 === 1);
  if (!up) return { digits: head, carry: false };
  const inc = (BigInt(head || "0") + 1n).toString();
  if (inc.length > n) return { digits: inc, carry: true };
  return { digits: inc.padStart(n, "0"), carry: false };
}

/** The shortest digits that read back as `x` (what Ruby's and JavaScript's to_s print). */
function shortestDecimal(x: number): { digits: string; point: number } {
  if (x === 0) return { digits: "0", point: 1 };
  const [m, e] = Math.abs(x).toExponential().split("e") as [string, string];
  return { digits: m.replace(".", ""), point: Number(e) + 1 };
}

/**
 * The digits Ruby's format rounds: when fewer digits are asked for than the
 * shortest representation has, Ruby rounds that representation half to even
 * ("%.2f" % 2.675 is 2.68, "%.2f" % 12.345 is 12.34); otherwise the exact
 * binary value.
 */
function digitsFor(x: number, count: (point: number) => number): { digits: string; point: number } {
  const short = shortestDecimal(x);
  return short.digits.length > count(short.point) ? short : exactDecimal(x);
}

function fixed(x: number, prec: number): string {
  // No digit kept before the rounding position: Ruby compares the exact value with a half, a tie rounding down.
  const noDigits = shortestDecimal(x).point + prec <= 0;
  const { digits, point } = noDigits ? exactDecimal(x) : digitsFor(x, (pt) => pt + prec);
  const n = point + prec;
  if (n < 0) return prec > 0 ? `0.${"0".repeat(prec)}` : "0";
  const r = roundDigits(digits, n, noDigits);
  let all = r.digits;
  all = all.padStart(prec + 1, "0");
  const intPart = all.slice(0, all.length - prec) || "0";
  return prec > 0
    ? `${intPart.replace(/^0+(?=\d)/, "")}.${all.slice(all.length - prec)}`
    : intPart.replace(/^0+(?=\d)/, "");
}

function exponential(x: number, prec: number, upper: boolean): string {
  const { digits, point } = digitsFor(x, () => prec + 1);
  let exp = x === 0 ? 0 : point - 1;
  const r = roundDigits(digits, prec + 1);
  let d = r.digits;
  if (r.carry) {
    d = d.slice(0, prec + 1);
    exp++;
  }
  const mant = prec > 0 ? `${d[0]}.${d.slice(1)}` : (d[0] as string);
  const e = `${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  return `${mant}${upper ? "E" : "e"}${e}`;
}

function general(x: number, precIn: number, alt: boolean, upper: boolean): string {
  const prec = precIn === 0 ? 1 : precIn;
  if (x === 0) return alt ? `0.${"0".repeat(prec - 1)}` : "0";
  const e = exponential(x, prec - 1, false);
  const exp = Number(e.slice(e.indexOf("e") + 1));
  let s = exp < -4 || exp >= prec ? exponential(x, prec - 1, upper) : fixed(x, prec - 1 - exp);
  if (!alt) {
    const [m, ex] = s.split(/(?=[eE])/) as [string, string | undefined];
    const mm = m.includes(".") ? m.replace(/\.?0+$/, "") : m;
    s = mm + (ex ?? "");
  }
  return s;
}

function toInt(v: PValue): bigint {
  if (typeof v === "bigint") return v;
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new FunctionError(String(v));
    return BigInt(Math.trunc(v));
  }
  if (typeof v === "string") {
    const t = v.trim().replace(/_/g, "");
    const m = /^([-+]?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO]?[0-7]+|[1-9]\d*|0)$/.exec(t);
    if (m) {
      const sign = m[1] === "-" ? -1n : 1n;
      let body = m[2] as string;
      if (/^0[0-7]/.test(body)) body = `0o${body.slice(1)}`;
      return sign * BigInt(body.replace(/^0[oO]/, "0o"));
    }
    throw new FunctionArgumentError(`invalid value for Integer(): ${rubyInspect(v)}`);
  }
  if (v === undefined) throw new FunctionError("can't convert nil into Integer");
  throw new FunctionError(`can't convert ${rubyInspect(v)} into Integer`);
}

function toFloat(v: PValue): number {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "string") {
    const n = rubyFloatParse(v);
    if (n === undefined) throw new FunctionArgumentError(`invalid value for Float(): ${rubyInspect(v)}`);
    return n;
  }
  if (v === undefined) throw new FunctionError("can't convert nil into Float");
  throw new FunctionError(`can't convert ${rubyInspect(v)} into Float`);
}

/** Digits of a negative number as Ruby shows them without a sign flag: `..f01`. */
function twosComplement(n: bigint, base: number): string {
  const b = BigInt(base);
  const maxDigit = (base - 1).toString(base);
  const d = (-n).toString(base).length + 1;
  const s = (b ** BigInt(d) + n).toString(base).padStart(d, "0");
  return maxDigit + s.replace(new RegExp(`^${maxDigit}+`), "");
}

function pad(body: string, sign: string, prefix: string, spec: Spec, numeric: boolean): string {
  const w = spec.width ?? 0;
  const len = sign.length + prefix.length + body.length;
  if (len >= w) return sign + prefix + body;
  if (spec.flags.includes("-")) return sign + prefix + body + " ".repeat(w - len);
  if (numeric && spec.flags.includes("0") && spec.precision === undefined)
    return sign + prefix + "0".repeat(w - len) + body;
  if (numeric && spec.flags.includes("0") && spec.conv.match(/[eEfgG]/))
    return sign + prefix + "0".repeat(w - len) + body;
  return " ".repeat(w - len) + sign + prefix + body;
}

function signOf(negative: boolean, flags: string): string {
  if (negative) return "-";
  if (flags.includes("+")) return "+";
  if (flags.includes(" ")) return " ";
  return "";
}

function formatInteger(v: PValue, spec: Spec): string {
  const n = toInt(v);
  const c = spec.conv;
  const base = c === "b" || c === "B" ? 2 : c === "o" ? 8 : c === "x" || c === "X" ? 16 : 10;
  const explicitSign = spec.flags.includes("+") || spec.flags.includes(" ");
  let body: string;
  let negative = n < 0n;
  if (negative && base !== 10 && !explicitSign) {
    // Ruby pads the two's complement digits with the top digit, counting the "..".
    const tc = twosComplement(n, base);
    const top = (base - 1).toString(base);
    body = `..${spec.precision !== undefined ? tc.padStart(spec.precision - 2, top) : tc}`;
    negative = false;
  } else {
    body = (negative ? -n : n).toString(base);
    if (spec.precision !== undefined) body = body.padStart(spec.precision, "0");
  }
  if (c === "X") body = body.toUpperCase();
  let prefix = "";
  if (spec.flags.includes("#") && n !== 0n) {
    if (c === "x") prefix = "0x";
    else if (c === "X") prefix = "0X";
    else if (c === "b") prefix = "0b";
    else if (c === "B") prefix = "0B";
    else if (c === "o") prefix = "0";
  }
  return pad(body, signOf(negative, spec.flags), prefix, spec, true);
}

function formatFloat(v: PValue, spec: Spec): string {
  const x = toFloat(v);
  const negative = x < 0 || Object.is(x, -0);
  const ax = Math.abs(x);
  if (!Number.isFinite(x)) {
    const body = Number.isNaN(x) ? "NaN" : "Inf";
    return pad(
      body,
      signOf(negative && !Number.isNaN(x), spec.flags),
      "",
      { ...spec, flags: spec.flags.replace("0", "") },
      true,
    );
  }
  const prec = spec.precision ?? 6;
  const alt = spec.flags.includes("#");
  let body: string;
  switch (spec.conv) {
    case "f":
      body = fixed(ax, prec);
      if (alt && prec === 0) body += ".";
      break;
    case "e":
    case "E":
      body = exponential(ax, prec, spec.conv === "E");
      break;
    default:
      body = general(ax, prec, alt, spec.conv === "G");
  }
  return pad(body, signOf(negative, spec.flags), "", spec, true);
}

/** `%a`: the float in hexadecimal, `0x1.8p+1`. */
function formatHexFloat(v: PValue, spec: Spec): string {
  const x = toFloat(v);
  const negative = x < 0 || Object.is(x, -0);
  let body: string;
  if (x === 0) body = "0x0p+0";
  else {
    const buf = new DataView(new ArrayBuffer(8));
    buf.setFloat64(0, Math.abs(x));
    const bits = buf.getBigUint64(0);
    const expBits = Number((bits >> 52n) & 0x7ffn);
    const frac = (bits & ((1n << 52n) - 1n)).toString(16).padStart(13, "0").replace(/0+$/, "");
    const lead = expBits === 0 ? "0" : "1";
    const exp = expBits === 0 ? -1022 : expBits - 1023;
    body = `0x${lead}${frac ? `.${frac}` : ""}p${exp < 0 ? "-" : "+"}${Math.abs(exp)}`;
  }
  if (spec.conv === "A") body = body.toUpperCase();
  return pad(body, signOf(negative, spec.flags), "", spec, true);
}

function formatChar(v: PValue, spec: Spec): string {
  let ch: string;
  if (typeof v === "string") {
    if (Array.from(v).length !== 1) throw new FunctionArgumentError("%c requires a character");
    ch = v;
  } else ch = String.fromCodePoint(Number(toInt(v)));
  return pad(ch, "", "", spec, false);
}

function formatString(text: string, spec: Spec): string {
  const t = spec.precision !== undefined ? Array.from(text).slice(0, spec.precision).join("") : text;
  return pad(t, "", "", spec, false);
}

function convert(v: PValue, spec: Spec): string {
  switch (spec.conv) {
    case "d":
    case "i":
    case "u":
    case "b":
    case "B":
    case "o":
    case "x":
    case "X":
      return formatInteger(v, spec);
    case "f":
    case "e":
    case "E":
    case "g":
    case "G":
      return formatFloat(v, spec);
    case "a":
    case "A":
      return formatHexFloat(v, spec);
    case "c":
      return formatChar(v, spec);
    case "p":
      return formatString(rubyInspect(v), spec);
    default:
      return formatString(rubyToS(v), spec);
  }
}

type ArgMode = "none" | "unnumbered" | "numbered" | "named";

/** The argument bookkeeping of one format: Ruby refuses to mix unnumbered, numbered and named references. */
class Args {
  #next = 0;
  #mode: ArgMode = "none";
  constructor(readonly list: readonly PValue[]) {}

  next(): PValue {
    if (this.#mode === "numbered")
      throw new FunctionArgumentError(`unnumbered(${this.#next + 1}) mixed with numbered`);
    if (this.#mode === "named")
      throw new FunctionArgumentError(`unnumbered(${this.#next + 1}) mixed with named`);
    this.#mode = "unnumbered";
    if (this.#next >= this.list.length) throw new FunctionArgumentError("too few arguments");
    return this.list[this.#next++];
  }
  at(n: number): PValue {
    if (this.#mode === "unnumbered")
      throw new FunctionArgumentError(`numbered(${n}) after unnumbered(${this.#next})`);
    if (this.#mode === "named") throw new FunctionArgumentError(`numbered(${n}) after named`);
    this.#mode = "numbered";
    if (n < 1 || n > this.list.length) throw new FunctionArgumentError("too few arguments");
    return this.list[n - 1];
  }
  named(name: string): PValue {
    if (this.#mode === "unnumbered")
      throw new FunctionArgumentError(`named<${name}> after unnumbered(${this.#next})`);
    if (this.#mode === "numbered") throw new FunctionArgumentError(`named<${name}> after numbered`);
    this.#mode = "named";
    const h = this.list[0];
    if (this.list.length !== 1 || !(h instanceof PHash)) throw new FunctionArgumentError("one hash required");
    if (!h.has(name)) throw new FunctionError(`key<${name}> not found`);
    return h.get(name);
  }
}

/** Parses one directive from `fmt[start]` (just after '%'); returns the text and the index after it. */
function directiveAt(fmt: string, start: number, args: Args): { text: string; end: number } {
  const spec: Spec = { flags: "", conv: "" };
  let value: PValue;
  let has = false;
  let i = start;
  for (; i < fmt.length; i++) {
    const c = fmt[i] as string;
    if ("-+ 0#".includes(c)) spec.flags += c;
    else if (c >= "1" && c <= "9") {
      const m = /^\d+/.exec(fmt.slice(i)) as RegExpExecArray;
      if (fmt[i + m[0].length] === "$") {
        value = args.at(Number(m[0]));
        has = true;
        i += m[0].length;
      } else {
        spec.width = Number(m[0]);
        i += m[0].length - 1;
      }
    } else if (c === "*") {
      const w = Number(toInt(args.next()));
      if (w < 0) spec.flags += "-";
      spec.width = Math.abs(w);
    } else if (c === ".") {
      if (fmt[i + 1] === "*") {
        spec.precision = Number(toInt(args.next()));
        i++;
      } else {
        const m = /^\d*/.exec(fmt.slice(i + 1)) as RegExpExecArray;
        spec.precision = Number(m[0] || "0");
        i += m[0].length;
      }
    } else if (c === "<" || c === "{") {
      const close = fmt.indexOf(c === "<" ? ">" : "}", i);
      if (close < 0) throw new FunctionArgumentError(`malformed name - unmatched parenthesis`);
      value = args.named(fmt.slice(i + 1, close));
      has = true;
      i = close;
      if (c === "{")
        return {
          text: formatString(rubyToS(value), { ...spec, conv: "s", precision: undefined }),
          end: close + 1,
        };
    } else if (c === "%") {
      if (i !== start) throw new FunctionArgumentError("invalid format character - %");
      return { text: "%", end: i + 1 };
    } else if (/[bBdiuoxXeEfgGaAcps]/.test(c)) {
      spec.conv = c;
      return { text: convert(has ? value : args.next(), spec), end: i + 1 };
    } else if (c === "\n" || c === "\0") {
      return { text: `%${c}`, end: i + 1 };
    } else throw new FunctionArgumentError(`malformed format string - %${c}`);
  }
  throw new FunctionArgumentError("incomplete format specifier; use %% (double %) instead");
}

/** Ruby's `format(fmt, *args)`. Throws Ruby's messages for bad formats and missing arguments. */
export function rubyFormat(fmt: string, list: readonly PValue[]): string {
  const args = new Args(list);
  let out = "";
  let i = 0;
  while (i < fmt.length) {
    const pct = fmt.indexOf("%", i);
    if (pct < 0) return out + fmt.slice(i);
    out += fmt.slice(i, pct);
    const d = directiveAt(fmt, pct + 1, args);
    out += d.text;
    i = d.end;
  }
  return out;
}
