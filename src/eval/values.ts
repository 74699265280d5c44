/**
 * Values held by variables and returned by functions.
 */

import { BoxedNumber, jsonNumberScalar, jsonNumberText, storedJsonNumber } from "./json-numbers.js";

export type JsonValue = null | boolean | number | string | BoxedNumber | JsonValue[] | JsonObject;
export type JsonObject = { [key: string]: JsonValue };

/** A deep copy of containers (primitives, boxed numbers included, are shared: they never change). */
export function cloneJson(json: JsonValue): JsonValue {
  if (!isJsonContainer(json)) return json;
  if (Array.isArray(json)) return json.map(cloneJson);
  const out: JsonObject = {};
  for (const key in json) out[key] = cloneJson(json[key] as JsonValue);
  return out;
}

/**
 * A copy of `json` as 3.21 copies data into a variable (mergedata,
 * data_expand): numbers lose the text they were written with and a real is
 * rounded to four decimals (see json-numbers.ts).
 */
export function storedJson(json: JsonValue): JsonValue {
  if (typeof json === "number" || json instanceof BoxedNumber) return storedJsonNumber(json);
  if (!isJsonContainer(json)) return json;
  if (Array.isArray(json)) return json.map(storedJson);
  const out: JsonObject = {};
  for (const key in json) out[key] = storedJson(json[key] as JsonValue);
  return out;
}

/** An array or object (not a primitive, nor a boxed number). */
export function isJsonContainer(json: JsonValue | undefined): json is JsonValue[] | JsonObject {
  return json !== null && typeof json === "object" && !(json instanceof BoxedNumber);
}

export type ScalarType = "string" | "int" | "real";
export type ListType = "slist" | "ilist" | "rlist";
export type VarType = ScalarType | ListType | "data";

export interface ScalarValue {
  readonly type: ScalarType;
  readonly value: string;
}
export interface ListValue {
  readonly type: ListType;
  readonly value: readonly string[];
}
export interface DataValue {
  readonly type: "data";
  readonly value: JsonValue;
}
export type Value = ScalarValue | ListValue | DataValue;

export function scalar(value: string, type: ScalarType = "string"): Value {
  return { type, value };
}

export function list(value: readonly string[], type: ListType = "slist"): Value {
  return { type, value };
}

export function data(value: JsonValue): Value {
  return { type: "data", value };
}

export function isList(value: Value): value is ListValue {
  return value.type === "slist" || value.type === "ilist" || value.type === "rlist";
}

export function isScalar(value: Value): value is ScalarValue {
  return value.type === "string" || value.type === "int" || value.type === "real";
}

/**
 * A JSON primitive as 3.21's JsonPrimitiveToString gives it (nth(), join(),
 * the JSON writer; see json-numbers.ts for numbers); containers give undefined.
 */
export function primitiveToString(value: JsonValue): string | undefined {
  if (value === null) return "null";
  if (typeof value === "string") return value;
  if (typeof value === "number" || value instanceof BoxedNumber) return jsonNumberText(value);
  if (typeof value === "boolean") return String(value);
  return undefined;
}

/**
 * A JSON primitive turned into a list item or a scalar variable's text
 * (3.21's RlistFromContainer and the expansion of `$(d[k])`): a real there
 * goes through StringFromDouble, with two decimals.
 */
export function primitiveToScalar(value: JsonValue): string | undefined {
  if (typeof value === "number" || value instanceof BoxedNumber) return jsonNumberScalar(value);
  return primitiveToString(value);
}

/**
 * The strings of a value seen as a list: a scalar is a one-item list, a data
 * array or object gives its primitive members. Undefined for other shapes.
 */
export function valueToStrings(value: Value): readonly string[] | undefined {
  if (isList(value)) return value.value;
  if (isScalar(value)) return [value.value];
  return jsonToStrings(value.value);
}

export function jsonToStrings(json: JsonValue): string[] | undefined {
  if (!isJsonContainer(json)) {
    const text = primitiveToScalar(json);
    return text === undefined ? undefined : [text];
  }
  const members = Array.isArray(json) ? json : Object.values(json);
  const out: string[] = [];
  for (const member of members) {
    const text = primitiveToScalar(member);
    if (text !== undefined) out.push(text);
  }
  return out;
}

/** Converts any value into JSON, as `mergedata` and friends see it. */
export function valueToJson(value: Value): JsonValue {
  if (value.type === "data") return value.value;
  if (isList(value)) return [...value.value];
  return value.value as string;
}

/** CFEngine's compact JSON rendering (used by `format("%S")`, `storejson`…). */
export function renderJson(json: JsonValue): string {
  return JSON.stringify(json);
}
