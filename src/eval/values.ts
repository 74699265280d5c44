/**
 * Values held by variables and returned by functions.
 */

import { type PrintfSpec, formatFixed } from "./functions/c-printf.js";
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

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
 * the JSON writer); containers give undefined. 3.21 holds a JSON real as a
 * double and writes it with four decimals; tend takes a number with a
 * fraction for a real (an integral real such as `1.0` reads as an integer).
 */
export function primitiveToString(value: JsonValue): string | undefined {
  if (value === null) return "null";
  if (typeof value === "string") return value;
  if (typeof value === "number") return jsonNumberText(value);
  if (typeof value === "boolean") return String(value);
  return undefined;
}

/** A JSON number as 3.21 writes it: an integer as is, a real with four decimals. */
export function jsonNumberText(value: number): string {
  return Number.isInteger(value) ? String(value) : formatFixed(value, FOUR_PLACES);
}

const FOUR_PLACES: PrintfSpec = { flags: "", long: false, width: 0, precision: 4, conversion: "f" };
const TWO_PLACES: PrintfSpec = { ...FOUR_PLACES, precision: 2 };

/**
 * A JSON primitive turned into a list item or a scalar variable's text
 * (3.21's RlistFromContainer and the expansion of `$(d[k])`): a real there
 * goes through StringFromDouble, with two decimals.
 */
export function primitiveToScalar(value: JsonValue): string | undefined {
  if (typeof value === "number" && !Number.isInteger(value)) return formatFixed(value, TWO_PLACES);
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
  if (json === null || typeof json !== "object") {
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
