/**
 * String functions: canonify, canonifyuniquely, concat, join, splitstring,
 * string_split, format, regex_replace, string_replace, lastnode, escape,
 * upcase/downcase, strlen, string_head/tail/reverse, strftime, dirname,
 * translatepath.
 */
import { createHash } from "node:crypto";
import { posix } from "node:path";
import { canonify } from "../class-expression.js";
import { type Value, isList, list, renderJson, scalar, valueToJson } from "../values.js";
import { collection, collectionStrings, compileRegex, integer, text } from "./args.js";
import { type BuiltinFunction, type FunctionContext, defineFunction } from "./types.js";
import { formatTime } from "./time-format.js";

function mapText(name: string, fn: (s: string) => string): BuiltinFunction {
  return defineFunction(name, 1, 1, ([a]) => {
    const raw = text(a);
    return raw === undefined ? undefined : scalar(fn(raw));
  });
}

/**
 * Splits on a regex into at most `max` pieces. `keepRest` puts the unsplit
 * remainder in the last piece (string_split); otherwise it is dropped
 * (splitstring).
 */
function splitBy(subject: string, pattern: string, max: number, keepRest: boolean): string[] | undefined {
  const regex = compileRegex(pattern, "g");
  if (!regex || max < 1) return regex ? [] : undefined;
  const parts: string[] = [];
  let last = 0;
  for (const match of subject.matchAll(regex)) {
    if (match[0] === "") continue;
    if (keepRest && parts.length === max - 1) break;
    parts.push(subject.slice(last, match.index));
    last = (match.index ?? 0) + match[0].length;
    if (parts.length === max) return parts;
  }
  parts.push(subject.slice(last));
  return parts;
}

/** `%s`, `%d`, `%x`, `%o`, `%f`, `%e`, `%c`, `%S` (serialized data) and `%%`. */
function formatString(format: string, args: readonly Value[], fc: FunctionContext): string | undefined {
  let next = 0;
  let failed = false;
  const out = format.replace(
    /%([-+ #0]*)(\d*)(?:\.(\d+))?([a-zA-Z%])/g,
    (whole, flags: string, width: string, precision: string | undefined, conversion: string) => {
      if (conversion === "%") return "%";
      const arg = args[next++];
      if (!arg) {
        failed = true;
        return whole;
      }
      // `%S` serializes; its argument may name a list or data variable.
      const target = conversion === "S" ? (collection(fc, arg) ?? arg) : arg;
      const raw = serialize(target);
      return pad(convert(conversion, raw, precision), flags, width);
    },
  );
  return failed ? undefined : out;
}

/** Lists print as `{ "a", "b" }`, data as compact JSON, scalars as themselves. */
function serialize(value: Value): string {
  if (isList(value)) return `{ ${value.value.map((v) => JSON.stringify(v)).join(", ")} }`;
  return value.type === "data" ? renderJson(valueToJson(value)) : value.value;
}

function convert(conversion: string, raw: string, precision: string | undefined): string {
  const n = Number(raw);
  switch (conversion) {
    case "d":
    case "i":
      return String(Math.trunc(Number.isNaN(n) ? 0 : n));
    case "x":
      return Math.trunc(n).toString(16);
    case "X":
      return Math.trunc(n).toString(16).toUpperCase();
    case "o":
      return Math.trunc(n).toString(8);
    case "f":
      return n.toFixed(precision === undefined ? 6 : Number(precision));
    case "e":
      return n.toExponential(precision === undefined ? 6 : Number(precision));
    default:
      return precision === undefined ? raw : raw.slice(0, Number(precision));
  }
}

function pad(value: string, flags: string, width: string): string {
  const size = Number(width || 0);
  if (value.length >= size) return value;
  if (flags.includes("-")) return value.padEnd(size);
  return value.padStart(size, flags.includes("0") ? "0" : " ");
}

function regexReplace(
  subject: string,
  pattern: string,
  replacement: string,
  options: string,
): string | undefined {
  const flags = (options.includes("g") ? "g" : "") + [...options].filter((c) => "ims".includes(c)).join("");
  const regex = compileRegex(pattern, flags);
  if (!regex) return undefined;
  const jsReplacement = replacement.replace(/\$/g, "$$$$").replace(/\\(\d)/g, "$$$1");
  return subject.replace(regex, jsReplacement);
}

export const stringFunctions: readonly BuiltinFunction[] = [
  mapText("canonify", canonify),
  mapText("canonifyuniquely", (s) => `${canonify(s)}_${createHash("sha1").update(s).digest("hex")}`),
  mapText("upcase", (s) => s.toUpperCase()),
  mapText("downcase", (s) => s.toLowerCase()),
  mapText("string_upcase", (s) => s.toUpperCase()),
  mapText("string_downcase", (s) => s.toLowerCase()),
  mapText("string_reverse", (s) => [...s].reverse().join("")),
  mapText("strlen", (s) => String(Buffer.byteLength(s))),
  mapText("string_length", (s) => String(Buffer.byteLength(s))),
  mapText("escape", (s) => s.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&")),
  mapText("dirname", (s) => (s.length > 1 ? posix.dirname(s.replace(/\/+$/, "")) : s)),
  mapText("translatepath", (s) => s),
  defineFunction("concat", 0, Number.POSITIVE_INFINITY, (args) => {
    const parts = args.map(text);
    return parts.every((p) => p !== undefined) ? scalar(parts.join("")) : undefined;
  }),
  defineFunction("join", 2, 2, ([glue, source], fc) => {
    const values = collection(fc, source);
    const sep = text(glue);
    return values && sep !== undefined ? scalar(collectionStrings(values).join(sep)) : undefined;
  }),
  defineFunction("splitstring", 3, 3, ([subject, pattern, max]) => {
    const parts = splitBy(text(subject) ?? "", text(pattern) ?? "", integer(max) ?? 0, false);
    return parts ? list(parts) : undefined;
  }),
  defineFunction("string_split", 3, 3, ([subject, pattern, max]) => {
    const parts = splitBy(text(subject) ?? "", text(pattern) ?? "", integer(max) ?? 0, true);
    return parts ? list(parts) : undefined;
  }),
  defineFunction("format", 1, Number.POSITIVE_INFINITY, ([format, ...rest], fc) => {
    const raw = text(format);
    const out = raw === undefined ? undefined : formatString(raw, rest, fc);
    return out === undefined ? undefined : scalar(out);
  }),
  defineFunction("regex_replace", 4, 4, ([subject, pattern, replacement, options]) => {
    const out = regexReplace(
      text(subject) ?? "",
      text(pattern) ?? "",
      text(replacement) ?? "",
      text(options) ?? "",
    );
    return out === undefined ? undefined : scalar(out);
  }),
  defineFunction("string_replace", 3, 3, ([subject, match, replacement]) => {
    const find = text(match);
    if (!find) return subject;
    return scalar((text(subject) ?? "").split(find).join(text(replacement) ?? ""));
  }),
  defineFunction("lastnode", 2, 2, ([subject, separator]) => {
    const parts = splitBy(text(subject) ?? "", text(separator) ?? "", Number.MAX_SAFE_INTEGER, true);
    return parts ? scalar(parts[parts.length - 1]) : undefined;
  }),
  defineFunction("string_head", 2, 2, ([subject, count]) => {
    const s = text(subject) ?? "";
    const n = integer(count) ?? 0;
    return scalar(n >= 0 ? s.slice(0, n) : s.slice(0, Math.max(0, s.length + n)));
  }),
  defineFunction("string_tail", 2, 2, ([subject, count]) => {
    const s = text(subject) ?? "";
    const n = integer(count) ?? 0;
    return scalar(n >= 0 ? s.slice(Math.max(0, s.length - n)) : s.slice(-n));
  }),
  defineFunction("strftime", 3, 3, ([mode, format, time]) => {
    const seconds = integer(time);
    const pattern = text(format);
    if (seconds === undefined || pattern === undefined) return undefined;
    return scalar(formatTime(pattern, new Date(seconds * 1000), text(mode) === "gmtime"));
  }),
];
