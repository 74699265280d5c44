/**
 * Augments: `def.json` (or `def_preferred.json`) next to the entry file.
 * 3.21 reads it before the policy and installs its `vars`/`variables`
 * (into `def` unless qualified), `classes`, `inputs` (as
 * `def.augments_inputs`) and follows its `augments` to further files.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { type Diagnostic, makeDiagnostic } from "../language/diagnostics.js";
import type { EvalContext } from "./context.js";
import { expandString } from "./expand.js";
import { compileRegex } from "./functions/args.js";
import { type JsonValue, type Value, data, list, primitiveToString, scalar } from "./values.js";
import { parseVarRef } from "./var-ref.js";

type JsonObject = { [key: string]: JsonValue };

/** Only a regular file is read; 3.21 passes over a directory named def.json. */
function isRegularFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The augments file 3.21 would read for an input directory, if any. */
export function findAugmentsFile(inputDir: string): string {
  const preferred = join(inputDir, "def_preferred.json");
  try {
    if (statSync(preferred).isFile()) return preferred;
  } catch {
    // no preferred file: fall back to def.json
  }
  return join(inputDir, "def.json");
}

/**
 * Loads augments into the context. A file that is absent is skipped
 * silently; one that is not valid JSON yields a diagnostic. Returns the
 * files that were read.
 */
export function loadAugments(ctx: EvalContext, inputDir: string, diagnostics: Diagnostic[]): string[] {
  const loaded: string[] = [];
  loadAugmentsFile(ctx, findAugmentsFile(inputDir), diagnostics, loaded);
  return loaded;
}

function loadAugmentsFile(
  ctx: EvalContext,
  rawPath: string,
  diagnostics: Diagnostic[],
  loaded: string[],
): void {
  const path = expandString(ctx, rawPath);
  if (path.includes("/.json") || !isRegularFile(path) || loaded.includes(path)) return;
  let json: JsonValue;
  try {
    json = JSON.parse(readFileSync(path, "utf8")) as JsonValue;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    diagnostics.push(
      makeDiagnostic(path, [0, 0], "error", "invalid-json", `cannot read augments file: ${reason}`),
    );
    return;
  }
  if (!isObject(json)) {
    diagnostics.push(
      makeDiagnostic(path, [0, 0], "error", "invalid-json", "augments file must hold a JSON object"),
    );
    return;
  }
  loaded.push(path);
  installAugments(ctx, json, diagnostics, loaded);
}

function isObject(json: JsonValue | undefined): json is JsonObject {
  return json !== null && json !== undefined && typeof json === "object" && !Array.isArray(json);
}

function installAugments(
  ctx: EvalContext,
  json: JsonObject,
  diagnostics: Diagnostic[],
  loaded: string[],
): void {
  const vars = expandJson(ctx, json.vars);
  if (isObject(vars)) for (const [key, value] of Object.entries(vars)) installVariable(ctx, key, value);
  const variables = expandJson(ctx, json.variables);
  if (isObject(variables)) {
    for (const [key, spec] of Object.entries(variables)) {
      if (isObject(spec) && spec.value !== undefined) installVariable(ctx, key, spec.value);
    }
  }
  const classes = expandJson(ctx, json.classes);
  if (isObject(classes)) for (const [name, spec] of Object.entries(classes)) installClass(ctx, name, spec);
  const inputs = expandJson(ctx, json.inputs);
  if (Array.isArray(inputs) && inputs.every((i) => primitiveToString(i) !== undefined)) {
    const items = inputs.map((i) => primitiveToString(i) ?? "");
    ctx.setVariable({ ns: null, scope: "def", name: "augments_inputs", indices: [] }, list(items));
  }
  if (Array.isArray(json.augments)) {
    for (const file of json.augments) {
      if (typeof file === "string") loadAugmentsFile(ctx, file, diagnostics, loaded);
    }
  }
}

/** Expands `$(...)` in every string of a JSON value. */
function expandJson(ctx: EvalContext, json: JsonValue | undefined): JsonValue | undefined {
  if (typeof json === "string") return expandString(ctx, json);
  if (Array.isArray(json)) return json.map((v) => expandJson(ctx, v) ?? null);
  if (isObject(json)) {
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(json))
      out[expandString(ctx, key)] = expandJson(ctx, value) ?? null;
    return out;
  }
  return json;
}

function installVariable(ctx: EvalContext, key: string, json: JsonValue): void {
  const ref = parseVarRef(key);
  if (ref.ns !== null && ref.scope === null) return;
  ctx.setVariable({ ...ref, scope: ref.scope ?? "def" }, augmentValue(json));
}

function augmentValue(json: JsonValue): Value {
  const text = primitiveToString(json);
  if (text !== undefined && (json === null || typeof json !== "object")) return scalar(text);
  if (Array.isArray(json) && json.every((v) => v === null || typeof v !== "object")) {
    return list(json.map((v) => primitiveToString(v) ?? ""));
  }
  return data(json);
}

function installClass(ctx: EvalContext, name: string, spec: JsonValue): void {
  if (classSpecHolds(ctx, spec)) ctx.defineClass(name);
}

function classSpecHolds(ctx: EvalContext, spec: JsonValue): boolean {
  if (typeof spec === "string") return checkClassMatch(ctx, spec);
  if (Array.isArray(spec)) return spec.some((s) => typeof s === "string" && checkClassMatch(ctx, s));
  if (!isObject(spec)) return false;
  const expressions = spec.class_expressions;
  const regexes = spec.regular_expressions;
  if ((expressions === undefined) === (regexes === undefined)) return false;
  const checks = (expressions ?? regexes) as JsonValue;
  if (!Array.isArray(checks)) return false;
  return checks.some((c) => typeof c === "string" && checkClassMatch(ctx, expressions ? `${c}::` : c));
}

/** `expr::` is a class expression; anything else a regex over defined classes. */
function checkClassMatch(ctx: EvalContext, check: string): boolean {
  if (check.endsWith("::")) return check.length > 2 && ctx.checkExpression(check.slice(0, -2));
  const regex = compileRegex(`^(?:${check})$`);
  return regex !== undefined && ctx.listClasses().some((c) => regex.test(c));
}
