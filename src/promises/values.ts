/**
 * Small readers for attribute values that promise types share.
 */
import { hasUnresolvedReference } from "../eval/expand.js";
import { type Value, isList, isScalar, jsonToStrings } from "../eval/values.js";

/** A value as a list of strings (a scalar is a list of one). */
export function asStrings(value: Value | undefined): readonly string[] {
  if (!value) return [];
  if (isList(value)) return value.value;
  if (isScalar(value)) return [value.value];
  return jsonToStrings(value.value) ?? [];
}

/** A value as one string, if it is a scalar. */
export function asText(value: Value | undefined): string | undefined {
  return value && isScalar(value) ? value.value : undefined;
}

const TRUE_WORDS = new Set(["true", "yes", "on"]);
const FALSE_WORDS = new Set(["false", "no", "off"]);

/** A CFEngine boolean option; `fallback` when absent or not a boolean word. */
export function asBoolean(value: Value | undefined, fallback: boolean): boolean {
  const text = asText(value);
  if (text === undefined) return fallback;
  if (TRUE_WORDS.has(text)) return true;
  if (FALSE_WORDS.has(text)) return false;
  return fallback;
}

/** Whether a string still holds a `$(...)`/`${...}`/`@(...)` reference. */
export function isUnresolved(text: string): boolean {
  return hasUnresolvedReference(text);
}
