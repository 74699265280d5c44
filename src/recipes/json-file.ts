/**
 * JSON files of the Chef repository (metadata.json, roles, environments,
 * node files) read with places for diagnostics: `JSON.parse` reads (fast);
 * only when it refuses, or a value has the wrong shape, is the text scanned
 * again to say where (catalog's scanner, shared).
 */
import { readFileSync } from "node:fs";
import { lineColumn, scanJson } from "../catalog/json-locate.js";
import type { AttributeTree, AttributeValue, RecipesDiagnostic, RecipesDiagnosticCode } from "./model.js";
import { RecipesError } from "./model.js";

/** A JSON document read from a file, able to point at its values. */
export class JsonDocument {
  /**
   * `offsets`: where each value is, by path, when the caller knows (a
   * document read from Ruby literals); else scanned from the JSON text on
   * the first diagnostic.
   */
  constructor(
    readonly file: string,
    readonly text: string,
    readonly value: unknown,
    private offsets?: ReadonlyMap<string, number>,
  ) {}

  /** A diagnostic at the value found at `path` (`run_list.2`), else at the start of the file. */
  diagnostic(code: RecipesDiagnosticCode, message: string, path?: string): RecipesDiagnostic {
    this.offsets ??= scanJson(this.text, 4).offsets;
    const offset = path === undefined ? 0 : (this.offsets.get(path) ?? 0);
    const { line, column } = lineColumn(this.text, offset);
    return { code, severity: "error", message, file: this.file, line, column };
  }

  /** Throws a RecipesError at `path`. */
  fail(code: RecipesDiagnosticCode, message: string, path?: string): never {
    throw new RecipesError([this.diagnostic(code, message, path)]);
  }
}

/** Reads and parses a JSON file; a syntax error is a RecipesError at its place. */
export function readJsonDocument(file: string): JsonDocument {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new RecipesError([
      {
        code: "invalid-json",
        severity: "error",
        message: `cannot read: ${reason}`,
        file,
        line: 1,
        column: 1,
      },
    ]);
  }
  return parseJsonDocument(file, text);
}

/** Parses JSON text from `file`; a syntax error is a RecipesError at its place. */
export function parseJsonDocument(file: string, text: string): JsonDocument {
  try {
    return new JsonDocument(file, text, JSON.parse(text));
  } catch {
    const scan = scanJson(text, 0);
    const offset = scan.error?.offset ?? 0;
    const { line, column } = lineColumn(text, offset);
    const message = `invalid JSON: ${scan.error?.message ?? "cannot parse"}`;
    throw new RecipesError([{ code: "invalid-json", severity: "error", message, file, line, column }]);
  }
}

/** Whether a value is a JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The attribute tree at `key` of an object in `doc` (`default_attributes`),
 * `{}` when absent; anything but an object is an error at its place.
 */
export function attributeTreeAt(
  doc: JsonDocument,
  owner: Record<string, unknown>,
  key: string,
  code: RecipesDiagnosticCode,
  prefix = "",
): AttributeTree {
  const value = owner[key];
  if (value === undefined || value === null) return {};
  if (!isObject(value)) doc.fail(code, `'${key}' must be an object of attributes`, prefix + key);
  return value as { [key: string]: AttributeValue };
}

/** A run list at `key` (an array of strings), or undefined when absent. */
export function runListAt(
  doc: JsonDocument,
  owner: Record<string, unknown>,
  key: string,
  code: RecipesDiagnosticCode,
  prefix = "",
): string[] | undefined {
  const value = owner[key];
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) doc.fail(code, `'${key}' must be an array of run-list items`, prefix + key);
  value.forEach((item, i) => {
    if (typeof item !== "string")
      doc.fail(code, `'${key}' entries must be strings like "recipe[cb::name]"`, `${prefix}${key}.${i}`);
  });
  return value as string[];
}
