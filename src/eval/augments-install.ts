/**
 * What augments (def.json) and host-specific data (CMDB) share: how a JSON
 * value becomes a variable, how tags are read, and the log messages 3.21
 * prints while installing them.
 */
import type { EvalContext } from "./context.js";
import type { BoxedNumber } from "./json-numbers.js";
import {
  type JsonObject,
  type JsonValue,
  type Value,
  data,
  isJsonContainer,
  list,
  primitiveToScalar,
  primitiveToString,
  scalar,
} from "./values.js";
import type { VarRef } from "./var-ref.js";

export type { JsonObject } from "./values.js";

/** A message of the loading stage, printed as cf-promises logs it (`   error: ...`). */
export interface LoadMessage {
  readonly level: "error" | "warning" | "verbose";
  readonly text: string;
}

export function isObject(json: JsonValue | undefined): json is JsonObject {
  return json !== undefined && isJsonContainer(json) && !Array.isArray(json);
}

export function isPrimitive(json: JsonValue | undefined): json is JsonPrimitive {
  return json !== undefined && !isJsonContainer(json);
}

type JsonPrimitive = string | number | boolean | null | BoxedNumber;

export function isPrimitiveArray(json: JsonValue | undefined): json is JsonPrimitive[] {
  return Array.isArray(json) && json.every(isPrimitive);
}

/**
 * A JSON value as a variable: a primitive is a string, an array of
 * primitives an slist (a real in either with two decimals, as 3.21 writes
 * it there), else data.
 */
export function jsonToVariable(json: JsonValue): { value: Value; kind: "" | "slist " | "data container " } {
  if (isPrimitive(json)) return { value: scalar(primitiveToScalar(json) ?? ""), kind: "" };
  if (isPrimitiveArray(json))
    return { value: list(json.map((v) => primitiveToScalar(v) ?? "")), kind: "slist " };
  return { value: data(json), kind: "data container " };
}

/**
 * The tags of an entry: those given (a JSON array of strings), then the
 * default one. Invalid tags are reported and dropped.
 */
export function readTags(
  json: JsonValue | undefined,
  defaultTag: string,
  report: (text: string) => void,
): string[] {
  if (json === undefined || json === null) return [defaultTag];
  if (!isPrimitiveArray(json)) {
    report("must be a JSON array of strings");
    return [defaultTag];
  }
  return [...json.map((t) => primitiveToString(t) ?? ""), defaultTag];
}

/** Whether host-specific data (tag `source=cmdb`) already defined the variable: augments do not override it. */
export function definedByCmdb(ctx: EvalContext, ref: VarRef): boolean {
  if (!ctx.getVariable(ref)) return false;
  return ctx.getVariableTags(ref)?.includes("source=cmdb") === true;
}

export function classDefinedByCmdb(ctx: EvalContext, name: string): boolean {
  return ctx.isClassDefined(name) && ctx.getClassTags(name).includes("source=cmdb");
}
