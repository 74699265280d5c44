/**
 * Reading one JSON file of a configuration directory: parsed with
 * `JSON.parse`, positions found again in the text only when a diagnostic
 * needs one.
 */
import { readFileSync } from "node:fs";
import type { DiagnosticBag } from "./diagnostics.js";
import { lineColumn } from "./diagnostics.js";

export type JsonObject = Record<string, unknown>;

/** A parsed file and a way to point at its members. */
export interface JsonFile {
  readonly file: string;
  readonly text: string;
  readonly value: unknown;
}

/** Reads and parses `file`; undefined (with a diagnostic) when it cannot. */
export function readJsonFile(file: string, bag: DiagnosticBag): JsonFile | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    bag.error(
      file,
      1,
      1,
      `cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
    return undefined;
  }
  try {
    return { file, text, value: JSON.parse(text) };
  } catch (error) {
    const message = (error as Error).message;
    const pos = /position (\d+)/.exec(message);
    const { line, column } = pos ? lineColumn(text, Number(pos[1])) : { line: 1, column: 1 };
    bag.error(file, line, column, `not valid JSON: ${message.replace(/ in JSON at position \d+.*$/, "")}`);
    return undefined;
  }
}

/** Line and column of the member `key` (its first occurrence), or of the file's start. */
export function positionOf(f: JsonFile, key?: string): { line: number; column: number } {
  if (key === undefined) return { line: 1, column: 1 };
  const at = f.text.indexOf(JSON.stringify(key));
  return at < 0 ? { line: 1, column: 1 } : lineColumn(f.text, at);
}

/** Reports `message` at member `key` of `f`. */
export function errorAt(bag: DiagnosticBag, f: JsonFile, key: string | undefined, message: string): void {
  const { line, column } = positionOf(f, key);
  bag.error(f.file, line, column, message);
}

export function warnAt(bag: DiagnosticBag, f: JsonFile, key: string | undefined, message: string): void {
  const { line, column } = positionOf(f, key);
  bag.warning(f.file, line, column, message);
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A string member, or undefined with an error when present with another type. */
export function stringMember(
  bag: DiagnosticBag,
  f: JsonFile,
  o: JsonObject,
  key: string,
  required = false,
): string | undefined {
  const v = o[key];
  if (v === undefined) {
    if (required) errorAt(bag, f, undefined, `missing "${key}", expected a string`);
    return undefined;
  }
  if (typeof v !== "string") {
    errorAt(bag, f, key, `"${key}" must be a string, found ${describe(v)}`);
    return undefined;
  }
  return v;
}

export function booleanMember(
  bag: DiagnosticBag,
  f: JsonFile,
  o: JsonObject,
  key: string,
  dflt: boolean,
): boolean {
  const v = o[key];
  if (v === undefined) return dflt;
  if (typeof v !== "boolean") {
    errorAt(bag, f, key, `"${key}" must be true or false, found ${describe(v)}`);
    return dflt;
  }
  return v;
}

export function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  return `${typeof v} ${JSON.stringify(v)}`;
}
