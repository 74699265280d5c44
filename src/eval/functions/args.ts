/**
 * Helpers that read function arguments the way 3.21 does.
 */
import { matchesFully } from "../regex/match.js";
import { boundedRegExp } from "../regex/watchdog.js";
import {
  type JsonValue,
  type Value,
  data,
  isJsonContainer,
  isList,
  isScalar,
  list,
  primitiveToScalar,
  scalar,
} from "../values.js";
import { classicArrayJson, collect, variableLookup } from "./containers.js";
import { parseJsonContainer } from "./json-text.js";
import type { FunctionContext } from "./types.js";

/** A scalar argument's text; lists and data give undefined. */
export function text(value: Value | undefined): string | undefined {
  return value && isScalar(value) ? value.value : undefined;
}

/** The result of a class-returning function, usable as a class expression. */
export function classResult(truth: boolean): Value {
  return scalar(truth ? "any" : "!any");
}

/** Parses an integer argument; `inf` is the largest int, as in 3.21. */
export function integer(value: Value | undefined): number | undefined {
  const raw = text(value)?.trim();
  if (raw === undefined) return undefined;
  if (raw === "inf") return Number.MAX_SAFE_INTEGER;
  const match = /^(-?\d+)([kKmMgG%]?)$/.exec(raw);
  if (!match) return undefined;
  const scale: Record<string, number> = {
    "": 1,
    k: 1e3,
    K: 1024,
    m: 1e6,
    M: 1024 ** 2,
    g: 1e9,
    G: 1024 ** 3,
  };
  return Number(match[1]) * (scale[match[2]] ?? 1);
}

export function boolean(value: Value | undefined): boolean | undefined {
  const raw = text(value);
  if (raw === undefined) return undefined;
  if (/^(true|yes|on)$/.test(raw)) return true;
  if (/^(false|no|off)$/.test(raw)) return false;
  return undefined;
}

/**
 * A "collecting" argument as a value: a list or data value passed as `@(x)`
 * or by a nested call, the name of a variable (list, data or classic
 * array), or inline JSON text (see containers.ts `collect`).
 */
export function collection(fc: FunctionContext, value: Value | undefined): Value | undefined {
  const found = collect(fc, value);
  if (!found) return undefined;
  if (found.kind === "scalar") return scalar(found.text);
  return found.fromList && Array.isArray(found.json) ? list(found.json.map(String)) : data(found.json);
}

/** The entries `name[k]...` of a classic array as a data object keyed by `k`. */
export function classicArray(fc: FunctionContext, name: string): Value | undefined {
  const json = classicArrayJson(fc, name);
  return json === undefined ? undefined : data(json);
}

/** Inline JSON text (an array or object, 3.21's lenient reading, bare variable references resolved). */
export function parseInlineJson(fc: FunctionContext, raw: string): Value | undefined {
  const trimmed = raw.trim();
  if (!trimmed.startsWith("[") && !trimmed.startsWith("{")) return undefined;
  const json = parseJsonContainer(trimmed, variableLookup(fc));
  return json === undefined ? undefined : data(json);
}

/** The values of a collection as strings: list items, or the primitive members of data. */
export function collectionStrings(value: Value): string[] {
  if (isList(value)) return [...value.value];
  if (isScalar(value)) return [value.value];
  const json = value.value;
  if (!isJsonContainer(json)) return [plainText(json)];
  const members = Array.isArray(json) ? json : Object.values(json);
  const out: string[] = [];
  for (const member of members) {
    if (!isJsonContainer(member)) out.push(plainText(member));
  }
  return out;
}

/** A primitive as a list item (3.21's RlistFromContainer: a real with two decimals). */
function plainText(json: JsonValue): string {
  return json === null ? "null" : (primitiveToScalar(json) ?? "");
}

/**
 * Full match as 3.21 uses for most functions (PCRE, see regex/match.ts:
 * the first match at the start must reach the end). An invalid pattern
 * matches nothing.
 */
export function fullMatch(pattern: string, subject: string): boolean {
  return matchesFully(pattern, subject) === true;
}

/** Compiles a PCRE-ish pattern; inline `(?i)`, `(?s)`, `(?m)` become flags. */
export function compileRegex(pattern: string, flags = ""): RegExp | undefined {
  let extra = flags;
  const source = pattern.replace(/\(\?([ims]+)\)/g, (_, found: string) => {
    extra += found;
    return "";
  });
  try {
    return boundedRegExp(source, [...new Set(extra)].join(""));
  } catch {
    return undefined;
  }
}
