/**
 * JSON text laid out as 3.21's own writer lays it out (what `cf-promises -p
 * json` and `data =>` values in `-p cf` show), which differs from
 * `JSON.stringify(value, null, 2)`:
 *
 * - The writer starts at an indentation level (`-p json` uses 2): the opening
 *   bracket is not indented, members sit one level deeper than that start and
 *   the closing bracket at the start level (2 spaces a level).
 * - An empty object is written `{`, newline, closing `}` at the level; an
 *   empty array is `[]`.
 * - Reals (numbers not integers, or {@link JsonReal}) have four decimals (`1.5` → `1.5000`).
 * - Strings escape `"`, `\`, and the control characters JSON names; `/` stays.
 * - No newline after the last bracket.
 */

import { JsonReal } from "./data-json.js";
import { quoteJsonString } from "../../text/json-string.js";

/** `value` written as 3.21 writes JSON starting at indentation `level`. */
export function writeCfengineJson(value: unknown, level = 0): string {
  if (Array.isArray(value)) return writeArray(value, level);
  if (value instanceof JsonReal) return value.value.toFixed(4);
  if (value !== null && typeof value === "object")
    return writeObject(value as Record<string, unknown>, level);
  return writePrimitive(value);
}

function pad(level: number): string {
  return " ".repeat(level * 2);
}

function writeArray(items: readonly unknown[], level: number): string {
  if (items.length === 0) return "[]";
  const lines = items.map((item) => pad(level + 1) + writeCfengineJson(item, level + 1));
  return `[\n${lines.join(",\n")}\n${pad(level)}]`;
}

function writeObject(object: Record<string, unknown>, level: number): string {
  const entries = Object.entries(object);
  if (entries.length === 0) return `{\n${pad(level)}}`;
  const lines = entries.map(
    ([key, item]) => `${pad(level + 1)}${quoteJsonString(key)}: ${writeCfengineJson(item, level + 1)}`,
  );
  return `{\n${lines.join(",\n")}\n${pad(level)}}`;
}

function writePrimitive(value: unknown): string {
  if (typeof value === "string") return quoteJsonString(value);
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(4);
  if (typeof value === "boolean") return String(value);
  return "null";
}
