/**
 * type, convert_to, strftime and scanf: the functions that lean on the
 * type system (inferType, `new`) or on time and text scanning.
 */
import { FunctionArgumentError, FunctionError } from "../registry.js";
import { inferGeneric, inferSet, inferType } from "../../types.js";
import { PObject, type PValue } from "../../values.js";
import { dispatcher, opt, p, rep } from "./dispatch.js";
import { T } from "./spec.js";

export const type = dispatcher("type", [
  {
    params: [p("value", T.any), opt("inference_method", T.enumOf("detailed"))],
    call: (_c, [v]) => inferSet(v),
  },
  {
    params: [p("value", T.any), p("inference_method", T.enumOf("reduced"))],
    call: (_c, [v]) => inferType(v),
  },
  {
    params: [p("value", T.any), p("inference_method", T.enumOf("generalized"))],
    call: (_c, [v]) => inferGeneric(v),
  },
]);

export const convert_to = dispatcher("convert_to", [
  {
    params: [p("value", T.any), p("type", T.type), rep("args", T.any)],
    block: { name: "block", optional: true, arity: [1, 1], label: "Callable[1,1]" },
    call: (ctx, [v, t, ...rest], b) => {
      const r = ctx.callFunction("new", [t, v, ...rest]);
      return b ? b.call([r]) : r;
    },
  },
]);

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** Ruby's Time#strftime for a UTC time: the common directives, flags `-` `0` `^` and widths. */
export function strftimeUtc(fmt: string, d: Date): string {
  const two = (n: number) => String(n).padStart(2, "0");
  const dayOfYear =
    Math.floor(
      (Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - Date.UTC(d.getUTCFullYear(), 0, 1)) /
        86400000,
    ) + 1;
  const h12 = d.getUTCHours() % 12 || 12;
  const table: Record<string, () => string> = {
    Y: () => String(d.getUTCFullYear()),
    C: () => two(Math.floor(d.getUTCFullYear() / 100)),
    y: () => two(d.getUTCFullYear() % 100),
    m: () => two(d.getUTCMonth() + 1),
    d: () => two(d.getUTCDate()),
    e: () => String(d.getUTCDate()).padStart(2, " "),
    j: () => String(dayOfYear).padStart(3, "0"),
    H: () => two(d.getUTCHours()),
    k: () => String(d.getUTCHours()).padStart(2, " "),
    I: () => two(h12),
    l: () => String(h12).padStart(2, " "),
    M: () => two(d.getUTCMinutes()),
    S: () => two(d.getUTCSeconds()),
    L: () => String(d.getUTCMilliseconds()).padStart(3, "0"),
    N: () => `${String(d.getUTCMilliseconds()).padStart(3, "0")}000000`,
    z: () => "+0000",
    Z: () => "UTC",
    A: () => DAYS[d.getUTCDay()] as string,
    a: () => (DAYS[d.getUTCDay()] as string).slice(0, 3),
    B: () => MONTHS[d.getUTCMonth()] as string,
    b: () => (MONTHS[d.getUTCMonth()] as string).slice(0, 3),
    h: () => (MONTHS[d.getUTCMonth()] as string).slice(0, 3),
    p: () => (d.getUTCHours() < 12 ? "AM" : "PM"),
    P: () => (d.getUTCHours() < 12 ? "am" : "pm"),
    u: () => String(d.getUTCDay() || 7),
    w: () => String(d.getUTCDay()),
    s: () => String(Math.floor(d.getTime() / 1000)),
    n: () => "\n",
    t: () => "\t",
    "%": () => "%",
    F: () => strftimeUtc("%Y-%m-%d", d),
    T: () => strftimeUtc("%H:%M:%S", d),
    D: () => strftimeUtc("%m/%d/%y", d),
    R: () => strftimeUtc("%H:%M", d),
    r: () => strftimeUtc("%I:%M:%S %p", d),
    c: () => strftimeUtc("%a %b %e %H:%M:%S %Y", d),
    x: () => strftimeUtc("%m/%d/%y", d),
    X: () => strftimeUtc("%H:%M:%S", d),
  };
  return fmt.replace(/%([-0^#]?)(\d*)([a-zA-Z%])/g, (all, flag: string, width: string, c: string) => {
    const f = table[c];
    if (!f) return all;
    let s = f();
    if (flag === "-") s = s.replace(/^[0 ]+(?=.)/, "");
    if (flag === "^") s = s.toUpperCase();
    if (width) s = s.padStart(Number(width), /\d/.test(s[0] ?? "") ? "0" : " ");
    return s;
  });
}

function formatTime(obj: PValue, fmt: string, tz?: PValue): PValue {
  const f = (obj as unknown as { format?: (fmt: string, tz?: string) => string }).format;
  if (obj instanceof PObject && typeof f === "function") return f.call(obj, fmt, tz as string | undefined);
  throw new FunctionError(`strftime(): ${String(obj)} cannot be formatted yet`);
}

export const strftime = dispatcher("strftime", [
  {
    params: [p("time_object", T.timespan), p("format", T.string)],
    call: (_c, [t, f]) => formatTime(t, f as string),
  },
  {
    params: [p("time_object", T.timestamp), p("format", T.string), opt("timezone", T.string)],
    call: (_c, [t, f, tz]) => formatTime(t, f as string, tz),
  },
  {
    params: [p("format", T.string), opt("timezone", T.string)],
    call: (ctx, [f, tz]) => {
      ctx.warn(
        "The argument signature (String format, [String timezone]) is deprecated for #strftime. See #strftime documentation and Timespan type for more info",
      );
      if (tz !== undefined && !/^(UTC|GMT|Z)$/i.test(tz as string))
        throw new FunctionArgumentError("strftime(): only the UTC time zone is supported here");
      return strftimeUtc(f as string, new Date());
    },
  },
]);

/** One scanf directive's matcher: the regexp of its text and the conversion of what matched. */
function directive(conv: string, width: string): { re: string; convert?: (s: string) => PValue } | undefined {
  const w = width ? `{1,${width}}` : "+";
  switch (conv) {
    case "d":
    case "u":
      return { re: `\\s*([-+]?\\d${w})`, convert: (s) => BigInt(s) };
    case "i":
      return { re: `\\s*([-+]?(?:0[xX][0-9a-fA-F]+|0[0-7]*|\\d${w}))`, convert: (s) => scanInteger(s) };
    case "x":
    case "X":
      return {
        re: `\\s*([-+]?(?:0[xX])?[0-9a-fA-F]${w})`,
        convert: (s) => BigInt(s.replace(/^([-+]?)(?:0[xX])?/, "$10x").replace(/^-0x(.*)$/, "-0x$1")),
      };
    case "o":
      return {
        re: `\\s*([-+]?[0-7]${w})`,
        convert: (s) =>
          s.startsWith("-") ? -BigInt(`0o${s.slice(1)}`) : BigInt(`0o${s.replace(/^\+/, "")}`),
      };
    case "f":
    case "e":
    case "g":
    case "E":
    case "G":
    case "a":
      return { re: `\\s*([-+]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][-+]?\\d+)?)`, convert: (s) => Number(s) };
    case "s":
      return { re: `\\s*(\\S${w})`, convert: (s) => s };
    case "c":
      return { re: `([\\s\\S]{${width || 1}})`, convert: (s) => s };
    default:
      return undefined;
  }
}

function scanInteger(s: string): bigint {
  const neg = s.startsWith("-");
  const b = s.replace(/^[-+]/, "");
  const v = /^0[xX]/.test(b) ? BigInt(b) : /^0[0-7]+$/.test(b) ? BigInt(`0o${b.slice(1)}`) : BigInt(b);
  return neg ? -v : v;
}

/** Ruby's String#scanf for the common directives (%d %i %u %x %o %f %e %g %s %c %[...] and `*` suppression). */
export function rubyScanf(data: string, format: string): PValue[] {
  const out: PValue[] = [];
  let pos = 0;
  const tokens = format.match(/%(\*?)(\d*)(\[[^\]]*\]|[a-zA-Z%])|\s+|[^%\s]+/g) ?? [];
  for (const tok of tokens) {
    if (/^\s+$/.test(tok)) {
      pos += (/^\s*/.exec(data.slice(pos)) as RegExpExecArray)[0].length;
      continue;
    }
    const m = /^%(\*?)(\d*)(\[[^\]]*\]|[a-zA-Z%])$/.exec(tok);
    if (!m) {
      if (!data.startsWith(tok, pos)) break;
      pos += tok.length;
      continue;
    }
    const [, skip, width = "", conv = ""] = m;
    let d: ReturnType<typeof directive>;
    if (conv.startsWith("[")) d = { re: `(${conv}${width ? `{1,${width}}` : "+"})`, convert: (s) => s };
    else if (conv === "%") d = { re: "\\s*%" };
    else d = directive(conv, width);
    if (!d) break;
    const r = new RegExp(d.re, "y");
    r.lastIndex = pos;
    const hit = r.exec(data);
    if (!hit) break;
    pos = r.lastIndex;
    if (!skip && d.convert && hit[1] !== undefined) out.push(d.convert(hit[1]));
  }
  return out;
}

export const scanf = dispatcher("scanf", [
  {
    params: [p("data", T.string), p("format", T.string)],
    block: { name: "block", optional: true },
    call: (_c, [data, fmt], b) => {
      const r = rubyScanf(data as string, fmt as string);
      return b ? b.call([r]) : r;
    },
  },
]);
