/**
 * Data-container functions: maplist, maparray, mapdata, mergedata,
 * data_expand, storejson, parsejson, parseyaml, validjson, validdata,
 * variablesmatching(_as_data), getvariablemetatags, getclassmetatags,
 * datastate, bundlestate, callstack_callers, callstack_promisers.
 * A failure gives undefined, as 3.21's FnFailure.
 */
import { dataState } from "../data-state.js";
import { expandString } from "../expand.js";
import {
  type JsonValue,
  type Value,
  cloneJson,
  data,
  isJsonContainer,
  isList,
  storedJson,
  list,
  scalar,
} from "../values.js";
import { parseVarRef } from "../var-ref.js";
import { text } from "./args.js";
import { byteRegex, collectContainer, variableLookup } from "./containers.js";
import { parseJsonContainer, parseJsonText, renderPrettyJson, unstorableNumberIn } from "./json-text.js";
import { emitFunctionMessage } from "./messages.js";
import { parseYamlText } from "./data-files.js";
import { type BuiltinFunction, type FunctionContext, defineFunction } from "./types.js";
import { inVariableTableOrder } from "./variable-order.js";

/** 3.21's JsonMerge: arrays concatenate, anything with an object merges keys shallowly. */
function mergeTwo(a: JsonValue, b: JsonValue): JsonValue {
  if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
  const asObject = (j: JsonValue) => (Array.isArray(j) ? Object.fromEntries(j.entries()) : j);
  return { ...(asObject(a) as object), ...(asObject(b) as object) } as JsonValue;
}

function mergeData(args: readonly Value[], fc: FunctionContext): Value | undefined {
  if (args.length === 0) return undefined;
  const parts: JsonValue[] = [];
  for (const arg of args) {
    const json = collectContainer(fc, arg);
    if (json === undefined) return undefined;
    parts.push(json);
  }
  return data(storedJson(parts.slice(1).reduce(mergeTwo, cloneJson(parts[0]))));
}

function expandJson(fc: FunctionContext, json: JsonValue): JsonValue {
  const expand = (s: string) => expandString(fc.ctx, s, fc.options);
  if (typeof json === "string") return expand(json);
  if (Array.isArray(json)) return json.map((v) => expandJson(fc, v));
  if (!isJsonContainer(json)) return json;
  return Object.fromEntries(Object.entries(json).map(([k, v]) => [expand(k), expandJson(fc, v)]));
}

function storeJson([source]: readonly Value[], fc: FunctionContext): Value | undefined {
  const json = collectContainer(fc, source);
  return json === undefined ? undefined : scalar(renderPrettyJson(json));
}

function validJson([raw, mode]: readonly Value[]): Value | undefined {
  const source = text(raw);
  if (source === undefined || (mode !== undefined && text(mode) !== "JSON" && text(mode) === undefined))
    return undefined;
  return scalar(parseJsonText(source) === undefined ? "!any" : "any");
}

// --- variables and classes ------------------------------------------------

function matchingVariables(fc: FunctionContext, args: readonly Value[]): [string, Value][] | undefined {
  const test = byteRegex(text(args[0]) ?? "", true);
  const tagTests = args.slice(1).map((a) => byteRegex(text(a) ?? "", true));
  if (!test || tagTests.some((t) => !t)) return undefined;
  // Matched first, ordered after: the table order of the matches is the
  // same, and most calls match few of many variables.
  const matched: { scopeKey: string; lval: string; name: string; value: Value }[] = [];
  // Variables share few distinct tags (`source=promise`...): each is tested once.
  const tagPasses = new Map<string, boolean>();
  const passes = (tag: string) => {
    let pass = tagPasses.get(tag);
    if (pass === undefined) {
      pass = tagTests.some((t) => t?.(tag));
      tagPasses.set(tag, pass);
    }
    return pass;
  };
  for (const [scopeKey, table] of fc.ctx.variableTables()) {
    for (const [lval, value] of table) {
      if (tagTests.length > 0) {
        // The entry's own tags: looking the name up again would parse it for each variable.
        const tags = fc.ctx.scopeVariableMeta(scopeKey, lval).tags;
        // As in 3.21, a variable without any tag set passes every tag test.
        if (tags && !tags.some(passes)) continue;
      }
      const name = `${scopeKey}.${lval}`;
      if (test(name)) matched.push({ scopeKey, lval, name, value });
    }
  }
  return inVariableTableOrder(fc.ctx, matched).map((m): [string, Value] => [m.name, m.value]);
}

function valueJson(value: Value): JsonValue {
  if (value.type === "data") return value.value;
  return isList(value) ? [...value.value] : value.value;
}

/**
 * A variable's tags (`source=...` first, then its `meta` tags); null when it
 * has no tag set (a module's variable before any `^meta`), undefined when it
 * does not exist.
 */
function variableTags(fc: FunctionContext, name: string): readonly string[] | null | undefined {
  const ref = parseVarRef(name);
  if (!fc.ctx.getVariable(ref)) return undefined;
  return fc.ctx.getVariableTags(ref);
}

/** With a key argument: the values of `key=value` tags; otherwise all tags. */
function selectTags(tags: readonly string[] | null | undefined, key: Value | undefined): Value | undefined {
  if (!tags) return undefined;
  const wanted = text(key);
  if (wanted === undefined) return list([...tags]);
  const prefix = `${wanted}=`;
  return list(tags.filter((t) => t.startsWith(prefix)).map((t) => t.slice(prefix.length)));
}

function classTags(fc: FunctionContext, name: string): string[] | undefined {
  if (!fc.ctx.isClassDefined(name)) return undefined;
  return [...fc.ctx.getClassTags(name)];
}

function callstackCallers(fc: FunctionContext): Value {
  return data(fc.ctx.callStack.toJson());
}

export const dataFunctions: readonly BuiltinFunction[] = [
  defineFunction("mergedata", 0, Number.POSITIVE_INFINITY, mergeData),
  defineFunction("data_expand", 1, 1, ([source], fc) => {
    const json = collectContainer(fc, source);
    return json === undefined ? undefined : data(storedJson(expandJson(fc, json)));
  }),
  defineFunction("storejson", 1, 1, storeJson),
  defineFunction("parsejson", 1, 1, ([raw], fc) => {
    const json = parseJsonContainer(text(raw) ?? "", variableLookup(fc));
    if (json === undefined) return undefined;
    // 3.21 stops when it copies a number it cannot store into the variable.
    const problem = unstorableNumberIn(text(raw) ?? "");
    if (problem) emitFunctionMessage(fc.ctx, "fatal", "parsejson", problem);
    return problem ? undefined : data(json);
  }),
  defineFunction("parseyaml", 1, 1, ([raw]) => {
    const json = parseYamlText(text(raw) ?? "");
    return json === undefined ? undefined : data(json);
  }),
  defineFunction("validjson", 1, 2, validJson),
  defineFunction("validdata", 2, 2, ([raw, mode]) => (text(mode) === "JSON" ? validJson([raw]) : undefined)),
  defineFunction("variablesmatching", 1, Number.POSITIVE_INFINITY, (args, fc) => {
    const found = matchingVariables(fc, args);
    // 3.21 collects the names into an object, then prepends each to the list.
    return found ? list(found.map(([name]) => name).reverse()) : undefined;
  }),
  defineFunction("variablesmatching_as_data", 1, Number.POSITIVE_INFINITY, (args, fc) => {
    const found = matchingVariables(fc, args);
    return found ? data(Object.fromEntries(found.map(([n, v]) => [n, valueJson(v)]))) : undefined;
  }),
  defineFunction("getvariablemetatags", 1, 2, ([name, key], fc) =>
    selectTags(variableTags(fc, text(name) ?? ""), key),
  ),
  defineFunction("getclassmetatags", 1, 2, ([name, key], fc) =>
    selectTags(classTags(fc, text(name) ?? ""), key),
  ),
  defineFunction("datastate", 0, 0, (_, fc) => data(dataState(fc.ctx))),
  defineFunction("bundlestate", 1, 1, ([name], fc) => {
    const state = dataState(fc.ctx, text(name) ?? "");
    return Object.keys(state).length === 0 ? undefined : data(state);
  }),
  defineFunction("callstack_callers", 0, 0, (_, fc) => callstackCallers(fc)),
  defineFunction("callstack_promisers", 0, 0, (_, fc) => list(fc.ctx.callStack.methodPromisers())),
];
