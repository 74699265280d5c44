/**
 * List and data functions: getvalues, getindices, filter, grep, sort,
 * unique, reverse, length, nth, sublist, maplist, mergedata, parsejson,
 * storejson, variablesmatching(_as_data), type.
 */
import { expandString } from "../expand.js";
import {
  type JsonValue,
  type Value,
  data,
  isList,
  list,
  primitiveToString,
  scalar,
  valueToJson,
} from "../values.js";
import {
  boolean,
  collection,
  collectionStrings,
  compileRegex,
  fullMatch,
  integer,
  parseInlineJson,
  text,
} from "./args.js";
import { type BuiltinFunction, type FunctionContext, defineFunction } from "./types.js";

// biome-ignore lint/suspicious/noTemplateCurlyInString: a CFEngine reference, not a template
const BRACED_THIS = "${this}";

function values(value: Value): string[] {
  if (value.type !== "data") return collectionStrings(value);
  const json = value.value;
  if (json === null || typeof json !== "object") return collectionStrings(value);
  const out: string[] = [];
  for (const member of Array.isArray(json) ? json : Object.values(json)) {
    if (Array.isArray(member)) out.push(...collectionStrings(data(member)));
    else if (member === null || typeof member !== "object") out.push(primitiveToString(member) ?? "");
  }
  return out;
}

function indices(value: Value): string[] {
  if (value.type !== "data") return isList(value) ? value.value.map((_, i) => String(i)) : [];
  const json = value.value;
  if (Array.isArray(json)) return json.map((_, i) => String(i));
  return json !== null && typeof json === "object" ? Object.keys(json) : [];
}

/** A function over the strings of one collection argument (at `at`), returning a list. */
function onList(
  name: string,
  fn: (items: string[], others: readonly Value[]) => string[] | undefined,
  min = 1,
  max = 1,
  at = 0,
) {
  return defineFunction(name, min, max, (args, fc) => {
    const found = collection(fc, args[at]);
    const out = found
      ? fn(
          values(found),
          args.filter((_, i) => i !== at),
        )
      : undefined;
    return out ? list(out) : undefined;
  });
}

function sortItems(items: string[], mode: string): string[] {
  const copy = [...items];
  if (mode === "int" || mode === "real")
    return copy.sort((a, b) => Number.parseFloat(a) - Number.parseFloat(b));
  return copy.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function filterItems(items: string[], [pattern, isRegex, invert, max]: readonly Value[]): string[] {
  const needle = text(pattern) ?? "";
  const regexMode = boolean(isRegex) ?? true;
  const inverted = boolean(invert) ?? false;
  const limit = integer(max) ?? Number.MAX_SAFE_INTEGER;
  const kept = items.filter((s) => (regexMode ? fullMatch(needle, s) : s === needle) !== inverted);
  return kept.slice(0, limit);
}

function mergeJson(parts: JsonValue[]): JsonValue {
  if (parts.every(Array.isArray)) return (parts as JsonValue[][]).flat(1);
  const out: Record<string, JsonValue> = {};
  for (const part of parts) {
    if (Array.isArray(part)) {
      for (const [i, v] of part.entries()) out[String(i)] = v;
    } else if (part !== null && typeof part === "object") Object.assign(out, part);
  }
  return out;
}

function mergeArguments(args: readonly Value[], fc: FunctionContext): Value | undefined {
  const parts: JsonValue[] = [];
  for (const arg of args) {
    const found = collection(fc, arg);
    if (!found) return undefined;
    parts.push(valueToJson(found));
  }
  return data(parts.length === 1 ? parts[0] : mergeJson(parts));
}

function matchingVariables(fc: FunctionContext, pattern: string): [string, Value][] {
  const regex = compileRegex(`^(?:${pattern})$`);
  if (!regex) return [];
  const out: [string, Value][] = [];
  for (const [scope, lval, value] of fc.ctx.allVariables()) {
    const name = `${scope}.${lval}`;
    if (regex.test(name)) out.push([name, value]);
  }
  return out;
}

function typeName(value: Value, detail: boolean): string {
  if (value.type !== "data") return detail ? `policy ${value.type}` : value.type;
  const json = value.value;
  const kind = Array.isArray(json)
    ? "array"
    : json === null
      ? "null"
      : typeof json === "object"
        ? "object"
        : typeof json;
  return detail ? `data ${kind}` : "data";
}

export const collectionFunctions: readonly BuiltinFunction[] = [
  onList("getvalues", (items) => items),
  defineFunction("getindices", 1, 1, ([source], fc) => {
    const found = collection(fc, source);
    return found ? list(indices(found)) : undefined;
  }),
  onList("filter", filterItems, 5, 5, 1),
  onList("grep", (items, [pattern]) => items.filter((s) => fullMatch(text(pattern) ?? "", s)), 2, 2, 1),
  onList("sort", (items, [mode]) => sortItems(items, text(mode) ?? "lex"), 1, 2),
  onList("unique", (items) => [...new Set(items)]),
  onList("reverse", (items) => [...items].reverse()),
  onList(
    "sublist",
    (items, [where, count]) => {
      const n = integer(count) ?? 0;
      return text(where) === "tail" ? items.slice(Math.max(0, items.length - n)) : items.slice(0, n);
    },
    3,
    3,
  ),
  defineFunction("length", 1, 1, ([source], fc) => {
    const found = collection(fc, source);
    if (!found) return undefined;
    const json = valueToJson(found);
    const size = Array.isArray(json)
      ? json.length
      : json !== null && typeof json === "object"
        ? Object.keys(json).length
        : 1;
    return scalar(String(size), "int");
  }),
  defineFunction("nth", 2, 2, ([source, position], fc) => {
    const found = collection(fc, source);
    const key = text(position);
    if (!found || key === undefined) return undefined;
    const json = valueToJson(found);
    const member = Array.isArray(json)
      ? json.at(Number(key))
      : json !== null && typeof json === "object"
        ? json[key]
        : undefined;
    if (member === undefined) return undefined;
    return member !== null && typeof member === "object"
      ? data(member)
      : scalar(primitiveToString(member) ?? "");
  }),
  defineFunction(
    "maplist",
    2,
    2,
    ([pattern, source], fc) => {
      const template = text(pattern);
      const found = collection(fc, source);
      if (template === undefined || !found) return undefined;
      const mapped = values(found).map((item) =>
        expandString(fc.ctx, template.replaceAll("$(this)", item).replaceAll(BRACED_THIS, item), fc.options),
      );
      return list(mapped);
    },
    true,
  ),
  defineFunction("mergedata", 0, Number.POSITIVE_INFINITY, (args, fc) => mergeArguments(args, fc)),
  defineFunction("parsejson", 1, 1, ([raw]) => {
    const source = text(raw);
    if (source === undefined) return undefined;
    try {
      return data(JSON.parse(source) as JsonValue);
    } catch {
      return parseInlineJson(source);
    }
  }),
  defineFunction("storejson", 1, 1, ([source], fc) => {
    const found = collection(fc, source);
    return found ? scalar(JSON.stringify(valueToJson(found), null, 2)) : undefined;
  }),
  defineFunction("variablesmatching", 1, 1, ([pattern], fc) =>
    list(matchingVariables(fc, text(pattern) ?? "").map(([name]) => name)),
  ),
  defineFunction("variablesmatching_as_data", 1, 1, ([pattern], fc) => {
    const out: Record<string, JsonValue> = {};
    for (const [name, value] of matchingVariables(fc, text(pattern) ?? "")) out[name] = valueToJson(value);
    return data(out);
  }),
  defineFunction("type", 1, 2, ([name, detail], fc) => {
    const found = collection(fc, name);
    return scalar(found ? typeName(found, boolean(detail) ?? false) : "none");
  }),
];
