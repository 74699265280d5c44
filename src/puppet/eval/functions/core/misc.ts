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

/** A time zone argument as a UTC offset in minutes: UTC/GMT/Z or ±HH:MM; others are refused. */
function zoneOffset(tz: PValue): number {
  if (tz === undefined || (typeof tz === "string" && /^(UTC|GMT|Z|current)$/i.test(tz))) return 0;
  const m = typeof tz === "string" ? /^([-+])(\d\d):?(\d\d)$/.exec(tz) : null;
  if (!m)
    throw new FunctionArgumentError(
      `strftime(): time zone '${String(tz)}' is not supported (only UTC and numeric offsets)`,
    );
  const minutes = Number(m[2]) * 60 + Number(m[3]);
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
