/**
 * The state cf-agent 3.21 hands to `datastate()`, `bundlestate()` and to
 * Mustache templates without data: `{ "classes": { name: true },
 * "vars": { bundle: { name: value } } }`, bundles of other namespaces keyed
 * `ns:bundle`, array entries keyed as written (`x[a]`). cf-agent writes the
 * whole tree out once while building it, which sorts every object's keys
 * (byte order); the objects here are built in that order.
 */
import type { EvalContext } from "./context.js";
import { type JsonValue, type Value, isList, isJsonContainer } from "./values.js";
import { compareBytes } from "../text/byte-order.js";

function valueJson(value: Value): JsonValue {
  if (value.type === "data") return value.value;
  return isList(value) ? [...value.value] : value.value;
}

/** `ns:bundle` keys as 3.21 prints them: the default namespace is left out. */
function scopeName(scope: string): string {
  return scope.startsWith("default:") ? scope.slice("default:".length) : scope;
}

/** A copy of `json` with every object's keys in byte order. */
export function sortedJson(json: JsonValue): JsonValue {
  if (Array.isArray(json)) return json.map(sortedJson);
  if (!isJsonContainer(json)) return json;
  const out: Record<string, JsonValue> = {};
  for (const key of Object.keys(json).sort(compareBytes)) out[key] = sortedJson(json[key] as JsonValue);
  return out;
}

/** The whole state, or (with `bundle`, `ns:name` or a default-namespace name) one bundle's variables. */
export function dataState(ctx: EvalContext, bundle?: string): Record<string, JsonValue> {
  const vars: Record<string, Record<string, JsonValue>> = {};
  for (const [scope, lval, value] of ctx.allVariables()) {
    const key = scopeName(scope);
    if (bundle !== undefined && key !== bundle) continue;
    vars[key] ??= {};
    vars[key][lval] = valueJson(value);
  }
  if (bundle !== undefined) return sortedJson(vars[bundle] ?? {}) as Record<string, JsonValue>;
  const classes = Object.fromEntries(ctx.listClasses().map((c) => [c, true]));
  return sortedJson({ classes, vars }) as Record<string, JsonValue>;
}
