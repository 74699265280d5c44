/**
 * type, convert_to, strftime and scanf: the functions that lean on the
 * type system (inferType, `new`) or on time and text scanning.
 */
import { FunctionArgumentError } from "../registry.js";
import {
  type Timespan,
  type Timestamp,
  formatTimespan,
  formatTimestamp,
  inferGeneric,
  inferSet,
  inferType,
  strftime as timeStrftime,
} from "../../types.js";
import type { PValue } from "../../values.js";
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

/** Zone abbreviations Ruby's Date understands (hours from UTC). */
const ZONES: Record<string, number> = {
  utc: 0,
  ut: 0,
  gmt: 0,
  z: 0,
  wet: 0,
  west: 1,
  bst: 1,
  cet: 1,
  cest: 2,
  met: 1,
  mest: 2,
  eet: 2,
  eest: 3,
  msk: 3,
  ist: 5.5,
  jst: 9,
  kst: 9,
  hkt: 8,
  sgt: 8,
  awst: 8,
  acst: 9.5,
  aest: 10,
  aedt: 11,
  nzst: 12,
  nzdt: 13,
  est: -5,
  edt: -4,
  cst: -6,
  cdt: -5,
  mst: -7,
  mdt: -6,
  pst: -8,
  pdt: -7,
  akst: -9,
  akdt: -8,
  hst: -10,
  ast: -4,
  adt: -3,
  nst: -3.5,
  ndt: -2.5,
};

/** A time zone argument as a UTC offset in minutes, as Puppet reads it (`%z` forms, zone names, `current`). */
function zoneOffset(tz: PValue): number {
  if (tz === undefined || tz === "") return 0;
  const text = String(tz).trim();
  if (/^current$/i.test(text)) return -new Date().getTimezoneOffset();
  const named = ZONES[text.toLowerCase()];
  if (named !== undefined) return named * 60;
  const m = /^(?:(?:UTC|GMT))?([-+])(\d{1,2})(?::?(\d\d))?$/i.exec(text);
  if (!m) throw new FunctionArgumentError(`Illegal timezone '${text}'`);
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? "0");
  return m[1] === "-" ? -minutes : minutes;
}

export const strftime = dispatcher("strftime", [
  {
    params: [p("time_object", T.timespan), p("format", T.string)],
    call: (_c, [t, f]) => formatTimespan(t as Timespan, f as string),
  },
  {
    params: [p("time_object", T.timestamp), p("format", T.string), opt("timezone", T.string)],
    call: (_c, [t, f, tz]) => formatTimestamp(t as Timestamp, f as string, zoneOffset(tz)),
  },
  {
    params: [p("format", T.string), opt("timezone", T.string)],
    call: (ctx, [f, tz]) => {
      ctx.warn(
        "The argument signature (String format, [String timezone]) is deprecated for #strftime. See #strftime documentation and Timespan type for more info",
      );
      return timeStrftime(BigInt(Date.now()) * 1000000n, f as string, zoneOffset(tz));
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
