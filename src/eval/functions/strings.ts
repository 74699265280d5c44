/**
 * String functions of 3.21: canonify, canonifyuniquely, concat, escape,
 * format, join, lastnode, regex_replace, splitstring, string_split,
 * string_downcase/upcase/head/tail/length/reverse/trim/replace/mustache,
 * strcmp, strftime, string, hash, hash_to_int.
 *
 * Like cf-agent they work on UTF-8 bytes: `string_length("é")` is 2 and
 * `string_reverse` can cut a character (see regex/bytes.ts for how such
 * bytes are kept). Failures return undefined after logging what cf-agent
 * logs.
 */
import { createHash } from "node:crypto";
import { byteLength, encodeBytes, fromByteString, toByteString } from "../regex/bytes.js";
import { splitKeepingRest, splitOnRegex } from "../regex/match.js";
import { PcreError } from "../regex/pcre.js";
import { regexReplace } from "../regex/replace.js";
import {
  type Value,
  isList,
  isScalar,
  list,
  primitiveToString,
  scalar,
  valueToJson,
  isJsonContainer,
} from "../values.js";
import { collection, text } from "./args.js";
import { collect } from "./containers.js";
import { emitFunctionMessage } from "./messages.js";
import { renderCompactJson } from "./json-text.js";
import { stringMustache } from "./mustache.js";
import { strftime } from "./strftime.js";
import { formatString } from "./string-format.js";
import { type BuiltinFunction, type FunctionContext, defineFunction } from "./types.js";

/** CF_BUFSIZE: the longest result several 3.21 string functions can build. */
const CF_BUFSIZE = 4096;
/** CF_NOINT: what 3.21's integer parser returns for text that is not a number. */
export const CF_NOINT = -678;
const CF_INFINITY = 999999999;

/**
 * An integer argument as 3.21's IntFromString reads it: leading number,
 * optional k/K/m/M/g/G multiplier, "inf"; CF_NOINT when unreadable.
 */
export function intFromString(raw: string, now: () => number = () => Math.floor(Date.now() / 1000)): number {
  if (raw === "inf") return CF_INFINITY;
  if (raw === "now") return now();
  const match = /^\s*([+-]?\d+)(\S?)\s*(\S?)/.exec(raw);
  if (match?.[3] !== "") return CF_NOINT;
  const scale: Record<string, number> = { k: 1e3, K: 1024, m: 1e6, M: 1024 ** 2, g: 1e9, G: 1024 ** 3 };
  const value = Number(match[1]);
  if (match[2] === "%") return value < 0 || value > 100 ? CF_NOINT : -value;
  return value * (scale[match[2]] ?? 1);
}

function fail(fc: FunctionContext, message: string, level: "error" | "verbose" = "error"): undefined {
  emitFunctionMessage(fc.ctx, level, fc.call.name, message);
  return undefined;
}

function failRegex(fc: FunctionContext, error: PcreError, pattern: string): undefined {
  return fail(
    fc,
    `Regular expression error: pcre_compile() '${error.reason}' in expression '${pattern}' (offset: ${error.offset})`,
  );
}

/** A function of one string argument computed on its bytes (as a byte string). */
function onBytes(name: string, fn: (bytes: string) => string): BuiltinFunction {
  return defineFunction(name, 1, 1, ([a]) => {
    const raw = text(a);
    return raw === undefined ? undefined : scalar(fromByteString(fn(toByteString(raw))));
  });
}

/** CanonifyName: every byte that is not an ASCII letter or digit becomes `_`. */
export function canonifyBytes(raw: string): string {
  return fromByteString(toByteString(raw).replace(/[^A-Za-z0-9]/g, "_"));
}

function sha1Hex(raw: string): string {
  return createHash("sha1").update(encodeBytes(raw)).digest("hex");
}

/** string_head/string_tail with 3.21's treatment of negative counts. */
function headTail(tail: boolean): BuiltinFunction {
  return defineFunction(tail ? "string_tail" : "string_head", 2, 2, ([subject, count], fc) => {
    const raw = text(subject);
    const n = intFromString(text(count) ?? "");
    if (raw === undefined) return undefined;
    if (n === CF_NOINT) return fail(fc, `Failed to parse integer number: ${text(count)}`);
    const bytes = toByteString(raw);
    const len = bytes.length;
    let out: string;
    if (tail) out = n < 0 ? bytes.slice(Math.min(-n, len)) : n < len ? bytes.slice(len - n) : bytes;
    else out = bytes.slice(0, Math.max(0, n < 0 ? len + n : n));
    return scalar(fromByteString(out));
  });
}

function concat(args: readonly Value[], fc: FunctionContext): Value | undefined {
  const parts = args.map(text);
  if (parts.some((p) => p === undefined)) return fail(fc, "concat() arguments must be strings");
  const joined = parts.join("");
  if (byteLength(joined) >= CF_BUFSIZE) {
    return fail(fc, "Unable to evaluate concat() function, arguments are too long");
  }
  return scalar(joined);
}

/** EscapeSpecialChars: a backslash before every byte that is not an ASCII letter or digit. */
function escapeSpecial(raw: string): string {
  let out = "";
  for (const byte of toByteString(raw)) {
    const next = /[A-Za-z0-9]/.test(byte) ? byte : `\\${byte}`;
    // The output buffer holds CF_BUFSIZE - 1 bytes, with room for the terminator.
    if (out.length + next.length > CF_BUFSIZE - 3) break;
    out += next;
  }
  return fromByteString(out);
}

/** The primitive members (top level) of a list or container, as join() and friends see them. */
export function primitiveStrings(value: Value): string[] | undefined {
  if (isList(value)) return [...value.value];
  if (isScalar(value)) return undefined;
  const json = value.value;
  if (!isJsonContainer(json)) return undefined;
  const members = Array.isArray(json) ? json : Object.values(json);
  const out: string[] = [];
  // null is not a string to 3.21 (JsonPrimitiveToString gives nothing): skipped.
  for (const m of members) if (m !== null && !isJsonContainer(m)) out.push(primitiveToString(m) ?? "");
  return out;
}

function joinValues(glue: Value, source: Value, fc: FunctionContext): Value | undefined {
  const sep = text(glue);
  const values = collection(fc, source);
  const strings = values && primitiveStrings(values);
  if (sep === undefined || !strings) {
    return fail(
      fc,
      `Function 'join', argument '${text(source) ?? ""}' was not a data container or list`,
      "verbose",
    );
  }
  return scalar(strings.join(sep));
}

function splitstring([subject, pattern, max]: readonly Value[], fc: FunctionContext): Value | undefined {
  const raw = text(subject);
  const regex = text(pattern);
  if (raw === undefined || regex === undefined) return undefined;
  // A negative count is a huge unsigned one in 3.21.
  const n = intFromString(text(max) ?? "");
  const parts = splitOnRegex(raw, regex, n < 0 ? Number.POSITIVE_INFINITY : n, true);
  if (parts instanceof PcreError) {
    // 3.21 then splits nothing: the whole string is the one piece.
    failRegex(fc, parts, regex);
    return list(raw === "" || n === 0 ? [] : [raw]);
  }
  return list(parts);
}

function stringSplit([subject, pattern, max]: readonly Value[], fc: FunctionContext): Value | undefined {
  const raw = text(subject);
  const regex = text(pattern);
  const n = intFromString(text(max) ?? "");
  if (raw === undefined || regex === undefined) return undefined;
  if (n < 1)
    return fail(
      fc,
      `Function 'string_split' called with invalid maxent argument: '${n}' (should be > 0).`,
      "verbose",
    );
  const parts = splitKeepingRest(raw, regex, n);
  return parts instanceof PcreError ? failRegex(fc, parts, regex) : list(parts);
}

function lastnode([subject, separator]: readonly Value[], fc: FunctionContext): Value | undefined {
  const raw = text(subject);
  const regex = text(separator);
  if (raw === undefined || regex === undefined) return undefined;
  const parts = splitOnRegex(raw, regex, 100, true);
  if (parts instanceof PcreError) {
    failRegex(fc, parts, regex);
    return raw === "" ? undefined : scalar(raw);
  }
  return parts.length === 0 ? undefined : scalar(parts[parts.length - 1]);
}

function replaceRegex(args: readonly Value[], fc: FunctionContext): Value | undefined {
  const [subject, pattern, replacement, options] = args.map(text);
  if (subject === undefined || pattern === undefined || replacement === undefined || options === undefined) {
    return undefined;
  }
  const out = regexReplace(subject, pattern, replacement, options);
  if (out instanceof PcreError) {
    return fail(
      fc,
      `regex_replace: couldn't use regex '${pattern}', replacement '${replacement}', and options '${options}': error=${out.reason}`,
    );
  }
  return scalar(out);
}

/** SearchAndReplace: every occurrence, left to right; an empty pattern changes nothing. */
function replaceString([subject, match, replacement]: readonly Value[]): Value | undefined {
  const [s, m, r] = [text(subject), text(match), text(replacement)];
  if (s === undefined || m === undefined || r === undefined) return undefined;
  return scalar(m === "" ? s : s.split(m).join(r));
}

const HASHES: Readonly<Record<string, string>> = {
  md5: "md5",
  sha1: "sha1",
  sha: "sha1",
  sha224: "sha224",
  sha256: "sha256",
  sha384: "sha384",
  sha512: "sha512",
};

function hash([subject, algorithm]: readonly Value[], fc: FunctionContext): Value | undefined {
  const raw = text(subject);
  const name = text(algorithm);
  if (raw === undefined || name === undefined) return undefined;
  const method = HASHES[name];
  if (!method) return fail(fc, `Unsupported hash type '${name}'`);
  return scalar(createHash(method).update(encodeBytes(raw)).digest("hex"));
}

/** hash_to_int: the first 8 bytes of the SHA-256 (little-endian) modulo the range. */
function hashToInt([lower, upper, subject]: readonly Value[]): Value | undefined {
  let from = intFromString(text(lower) ?? "");
  let to = intFromString(text(upper) ?? "");
  const raw = text(subject);
  if (from === CF_NOINT || to === CF_NOINT || raw === undefined) return undefined;
  if (from === to) return scalar(String(from), "int");
  if (from > to) [from, to] = [to, from];
  const digest = createHash("sha256").update(encodeBytes(raw)).digest();
  const n = digest.readBigUInt64LE(0) % BigInt(to - from);
  return scalar(String(from + Number(n)), "int");
}

function strftimeFn([mode, format, time]: readonly Value[], fc: FunctionContext): Value | undefined {
  const pattern = text(format);
  const when = intFromString(text(time) ?? "");
  if (pattern === undefined) return undefined;
  const out = strftime(pattern, when, text(mode) === "gmtime");
  // An empty result is a failure of C's strftime, hence of the function.
  if (out === "") return fail(fc, "Function strftime, the format gave an empty result", "verbose");
  if (out === undefined)
    return fail(fc, `Function strftime, the given time stamp '${when}' was invalid.`, "error");
  return scalar(out);
}

/** string(): a list or container as compact JSON, anything else as its text. */
/**
 * string(): a list or data as compact JSON; `@(a)` that stayed as text (a
 * classic array, say) is looked up as 3.21 does, else kept as written.
 */
function stringFn([value]: readonly Value[], fc: FunctionContext): Value {
  if (!isScalar(value)) return scalar(renderCompactJson(valueToJson(value)));
  if (!/^@[({]/.test(value.value)) return value;
  const found = collect(fc, value);
  return found?.kind === "container" ? scalar(renderCompactJson(found.json)) : value;
}

export const stringFunctions: readonly BuiltinFunction[] = [
  onBytes("canonify", (b) => b.replace(/[^A-Za-z0-9]/g, "_")),
  defineFunction("canonifyuniquely", 1, 1, ([a]) => {
    const raw = text(a);
    return raw === undefined ? undefined : scalar(canonifyBytes(`${raw}_${sha1Hex(raw)}`));
  }),
  onBytes("string_downcase", (b) => b.replace(/[A-Z]+/g, (m) => m.toLowerCase())),
  onBytes("string_upcase", (b) => b.replace(/[a-z]+/g, (m) => m.toUpperCase())),
  onBytes("string_reverse", (b) => [...b].reverse().join("")),
  onBytes("string_trim", (b) => b.replace(/^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g, "")),
  defineFunction("string_length", 1, 1, ([a]) => {
    const raw = text(a);
    return raw === undefined ? undefined : scalar(String(byteLength(raw)), "int");
  }),
  headTail(false),
  headTail(true),
  defineFunction("escape", 1, 1, ([a]) => {
    const raw = text(a);
    return raw === undefined ? undefined : scalar(escapeSpecial(raw));
  }),
  defineFunction("concat", 0, Number.POSITIVE_INFINITY, concat),
  defineFunction("join", 2, 2, ([glue, source], fc) => joinValues(glue, source, fc)),
  defineFunction("splitstring", 3, 3, splitstring),
  defineFunction("string_split", 3, 3, stringSplit),
  defineFunction("lastnode", 2, 2, lastnode),
  defineFunction("format", 1, Number.POSITIVE_INFINITY, ([format, ...rest], fc) => {
    const raw = text(format);
    if (raw === undefined) return undefined;
    const out = formatString(raw, rest, fc);
    return typeof out === "string" ? scalar(out) : fail(fc, out.error, out.level);
  }),
  defineFunction("regex_replace", 4, 4, replaceRegex),
  defineFunction("string_replace", 3, 3, replaceString),
  defineFunction("strcmp", 2, 2, ([a, b]) => {
    const [x, y] = [text(a), text(b)];
    return x === undefined || y === undefined ? undefined : scalar(x === y ? "any" : "!any");
  }),
  defineFunction("strftime", 3, 3, strftimeFn),
  defineFunction("string_mustache", 1, 2, stringMustache),
  defineFunction("string", 1, 1, stringFn),
  defineFunction("hash", 2, 2, hash),
  defineFunction("hash_to_int", 3, 3, hashToInt),
];
