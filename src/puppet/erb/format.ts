/** Ruby's `format` / `String#%`: flags `-+ 0#`, width, precision, `%<name>s`, `%{name}`. */
import { RubyError } from "./interp.js";
import { floatToS, inspect, RHash, RSymbol, type RValue, toS } from "./ruby-values.js";

export function rubyFormat(fmt: string, argv: RValue): string {
  const args = Array.isArray(argv) ? argv : [argv];
  const hash = args.length === 1 && args[0] instanceof RHash ? args[0] : null;
  let next = 0;
  const take = (): RValue => {
    if (next >= args.length) throw new RubyError("too few arguments", "ArgumentError");
    return args[next++] ?? null;
  };
  const re = /%([-+ 0#]*)(?:<(\w+)>|\{(\w+)\})?([-+ 0#]*)(\*|\d+)?(?:\.(\*|\d+))?([sdiufeEgGxXobBcp%])?/g;
  return fmt.replace(
    re,
    (
      whole,
      f1: string,
      named?: string,
      braced?: string,
      f2?: string,
      w?: string,
      p?: string,
      conv?: string,
    ) => {
      if (braced !== undefined) {
        if (!hash) throw new RubyError("one hash required", "ArgumentError");
        return toS(hashGet(hash, braced));
      }
      if (conv === undefined) {
        if (whole === "%") return "%";
        throw new RubyError(`malformed format string - ${whole}`, "ArgumentError");
      }
      if (conv === "%") return "%";
      const flags = f1 + (f2 ?? "");
      const width = w === "*" ? Number(toNum(take())) : w ? Number(w) : 0;
      const prec = p === "*" ? Number(toNum(take())) : p !== undefined ? Number(p) : undefined;
      const v = named !== undefined ? (hash ? hashGet(hash, named) : null) : take();
      return pad(convert(conv, v, flags, prec), width, flags, conv);
    },
  );
}

function hashGet(h: RHash, name: string): RValue {
  if (h.has(RSymbol.of(name))) return h.get(RSymbol.of(name));
  if (h.has(name)) return h.get(name);
  throw new RubyError(`key<${name}> not found`, "KeyError");
}

function toNum(v: RValue): number | bigint {
  if (typeof v === "bigint" || typeof v === "number") return v;
  if (typeof v === "string") {
    const t = v.trim();
    if (/^[-+]?\d+$/.test(t)) return BigInt(t);
    if (/^[-+]?(\d+\.?\d*([eE][-+]?\d+)?)$/.test(t)) return Number(t);
    if (/^[-+]?0x[0-9a-f]+$/i.test(t)) return BigInt(t.replace(/^\+/, ""));
  }
  if (v === null) throw new RubyError("can't convert nil into Integer", "TypeError");
  throw new RubyError(`invalid value for Integer(): ${inspect(v)}`, "ArgumentError");
}

function convert(conv: string, v: RValue, flags: string, prec: number | undefined): string {
  switch (conv) {
    case "s":
    case "p": {
      const s = conv === "p" ? inspect(v) : toS(v);
      return prec !== undefined ? s.slice(0, prec) : s;
    }
    case "d":
    case "i":
    case "u": {
      const n = toNum(v);
      const i = typeof n === "bigint" ? n : BigInt(Math.floor(n));
      return sign(i < 0n ? `-${-i}` : `${i}`, flags);
    }
    case "f": {
      const n = Number(toNum(v));
      return sign(n.toFixed(prec ?? 6), flags);
    }
    case "e":
    case "E": {
      const n = Number(toNum(v));
      const [m, e] = n.toExponential(prec ?? 6).split("e") as [string, string];
      const ex = Number(e);
      const s = `${m}e${ex < 0 ? "-" : "+"}${String(Math.abs(ex)).padStart(2, "0")}`;
      return sign(conv === "E" ? s.toUpperCase() : s, flags);
    }
    case "g":
    case "G": {
      const n = Number(toNum(v));
      const pr = prec ?? 6;
      const exp = n === 0 ? 0 : Math.floor(Math.log10(Math.abs(n)));
      let s: string;
      if (exp < -4 || exp >= pr) {
        const [m, e] = n.toExponential(Math.max(pr - 1, 0)).split("e") as [string, string];
        const mm = flags.includes("#") ? m : m.replace(/\.?0+$/, "");
        const ex = Number(e);
        s = `${mm}e${ex < 0 ? "-" : "+"}${String(Math.abs(ex)).padStart(2, "0")}`;
      } else {
        s = n.toFixed(Math.max(pr - 1 - exp, 0));
        if (!flags.includes("#") && s.includes(".")) s = s.replace(/\.?0+$/, "");
      }
      return sign(conv === "G" ? s.toUpperCase() : s, flags);
    }
    case "x":
    case "X":
    case "o":
    case "b":
    case "B": {
      const n = toNum(v);
      const i = typeof n === "bigint" ? n : BigInt(Math.floor(n));
      const base = conv === "o" ? 8 : conv === "b" || conv === "B" ? 2 : 16;
      let digits = (i < 0n ? -i : i).toString(base);
      if (prec !== undefined) digits = digits.padStart(prec, "0");
      if (conv === "X") digits = digits.toUpperCase();
      const prefix = flags.includes("#") ? { x: "0x", X: "0X", o: "0", b: "0b", B: "0B" }[conv] : "";
      return sign(`${i < 0n ? "-" : ""}${prefix}${digits}`, flags);
    }
    case "c":
      return typeof v === "bigint" ? String.fromCodePoint(Number(v)) : toS(v).slice(0, 1);
    default:
      return floatToS(Number(v));
  }
}

function sign(s: string, flags: string): string {
  if (s.startsWith("-")) return s;
  if (flags.includes("+")) return `+${s}`;
  if (flags.includes(" ")) return ` ${s}`;
  return s;
}

function pad(s: string, width: number, flags: string, conv: string): string {
  if (s.length >= width) return s;
  if (flags.includes("-")) return s.padEnd(width);
  if (flags.includes("0") && !"sp c".includes(conv)) {
    const m = /^([-+ ]?(?:0[xXbB])?)(.*)$/.exec(s) as RegExpExecArray;
    return (m[1] as string) + (m[2] as string).padStart(width - (m[1] as string).length, "0");
  }
  return s.padStart(width);
}
