/**
 * Host-specific data ("CMDB"): `$(sys.workdir)/data/host_specific.json`,
 * read before augments. As in 3.21:
 * - `vars` and `variables` (with `value`, `tags`, `comment`) go to the
 *   `data` namespace, bundle `variables`, unless qualified;
 * - `classes` go to the `data` namespace unless qualified, and may only be
 *   unconditional (`"any::"`, `["any::"]`, or an object with empty or
 *   `any` rules), with optional `tags` and `comment`;
 * - everything is tagged `source=cmdb`, and nothing may refer to variables.
 * Augments do not override what this file defines.
 */
import { accessSync, constants, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type JsonObject,
  type LoadMessage,
  isObject,
  isPrimitive,
  isPrimitiveArray,
  jsonToVariable,
  readTags,
} from "./augments-install.js";
import type { EvalContext } from "./context.js";
import { hasUnresolvedReference } from "./expand.js";
import { parseJsonText } from "./functions/json-text.js";
import { type JsonValue, primitiveToString } from "./values.js";
import { type VarRef, parseVarRef } from "./var-ref.js";

const TAG = "source=cmdb";
const KNOWN_KEYS = new Set(["vars", "classes", "variables"]);

/** Loads `<workdir>/data/host_specific.json` if it exists; problems become messages. */
export function loadHostSpecificData(ctx: EvalContext, workdir: string, messages: LoadMessage[]): void {
  const path = join(workdir, "data", "host_specific.json");
  const error = (text: string) => messages.push({ level: "error", text });
  try {
    accessSync(path, constants.F_OK);
  } catch {
    messages.push({ level: "verbose", text: `No host-specific JSON data available at '${path}'` });
    return;
  }
  let json: JsonValue | undefined;
  try {
    json = parseJsonText(readFileSync(path, "utf8"));
  } catch {
    json = undefined;
  }
  if (json === undefined) {
    error(`Could not parse JSON file ${path}: Unable to parse json data`);
    error("Failed to load CMDB data");
    return;
  }
  if (!isObject(json)) {
    error(`Invalid CMDB contents in '${path}', must be a JSON object`);
    error("Failed to load CMDB data");
    return;
  }
  messages.push({ level: "verbose", text: `Loaded CMDB data file '${path}', installing contents` });
  for (const key of Object.keys(json)) {
    if (!KNOWN_KEYS.has(key))
      messages.push({
        level: "warning",
        text: `Invalid key '${key}' in the CMDB data file '${path}', skipping it`,
      });
  }
  const reader = new CmdbReader(ctx, messages);
  const ok = [
    json.vars === undefined || json.vars === null || reader.readVars(json.vars),
    json.variables === undefined || json.variables === null || reader.readVariables(json.variables),
    json.classes === undefined || json.classes === null || reader.readClasses(json.classes),
  ];
  if (ok.includes(false)) error("Failed to load CMDB data");
}

/** Whether a JSON value (keys included) holds a variable reference. */
function refersToVariables(json: JsonValue): boolean {
  if (typeof json === "string") return hasUnresolvedReference(json);
  if (Array.isArray(json)) return json.some(refersToVariables);
  if (isObject(json))
    return Object.entries(json).some(([k, v]) => hasUnresolvedReference(k) || refersToVariables(v));
  return false;
}

class CmdbReader {
  constructor(
    private readonly ctx: EvalContext,
    private readonly messages: LoadMessage[],
  ) {}

  private error(text: string): void {
    this.messages.push({ level: "error", text });
  }

  /** Checks a section is an object without variable references. */
  private section(json: JsonValue, name: string): JsonObject | undefined {
    if (!isObject(json)) {
      this.error(`Invalid '${name}' CMDB data, must be a JSON object`);
      return undefined;
    }
    if (refersToVariables(json)) {
      this.error(`Invalid '${name}' CMDB data, cannot contain variable references`);
      return undefined;
    }
    return json;
  }

  private refOf(key: string): VarRef | undefined {
    const ref = parseVarRef(key);
    if (ref.ns !== null && ref.scope === null) {
      this.error(
        `Invalid variable specification in CMDB data: '${key}' (bundle name has to be specified if namespace is specified)`,
      );
      return undefined;
    }
    return { ...ref, ns: ref.ns ?? "data", scope: ref.scope ?? "variables" };
  }

  private put(key: string, ref: VarRef, json: JsonValue, tags: string[], comment?: string): void {
    const { value, kind } = jsonToVariable(json);
    const shown = kind === "" ? `${key}=${primitiveToString(json as string)}` : key;
    this.messages.push({
      level: "verbose",
      text: `Installing CMDB ${kind}variable '${ref.ns}:${ref.scope}.${shown}'`,
    });
    this.ctx.setVariable(ref, value, comment === undefined ? { tags } : { tags, comment });
  }

  readVars(json: JsonValue): boolean {
    const vars = this.section(json, "vars");
    if (!vars) return false;
    for (const [key, value] of Object.entries(vars)) {
      const ref = this.refOf(key);
      if (ref) this.put(key, ref, value, [TAG]);
    }
    return true;
  }

  readVariables(json: JsonValue): boolean {
    const variables = this.section(json, "variables");
    if (!variables) return false;
    for (const [key, info] of Object.entries(variables)) {
      const ref = this.refOf(key);
      if (!ref) continue;
      if (!isObject(info)) {
        this.put(key, ref, info, [TAG]);
        continue;
      }
      if (info.value === undefined) {
        this.error(`Missing value in '${key}' variable specification in CMDB data (value field is required)`);
        continue;
      }
      const tags = readTags(info.tags, TAG, (why) =>
        this.error(`Invalid json_tags information for variable '${key}' in CMDB data: ${why}`),
      );
      this.put(key, ref, info.value, tags, this.comment("variable", key, info));
    }
    return true;
  }

  private comment(type: string, key: string, info: JsonObject): string | undefined {
    const comment = info.comment;
    if (comment === undefined || comment === null) return undefined;
    if (typeof comment === "string") return comment;
    this.error(`Invalid type of the 'comment' field for the '${key}' ${type} in CMDB data, must be a string`);
    return undefined;
  }

  readClasses(json: JsonValue): boolean {
    const classes = this.section(json, "classes");
    if (!classes) return false;
    for (const [key, spec] of Object.entries(classes)) this.readClass(key, spec);
    return true;
  }

  private readClass(key: string, spec: JsonValue): void {
    if (isPrimitive(spec)) {
      const expression = primitiveToString(spec) ?? "";
      if (expression !== "any::") {
        this.error(`Invalid class specification '${expression}' in CMDB data, only "any::" allowed`);
        return;
      }
      this.defineClass(key, [TAG]);
      return;
    }
    if (isPrimitiveArray(spec)) {
      if (spec.length !== 1 || spec[0] !== "any::") {
        this.error(
          `Invalid class specification '${primitiveToString(spec[0] ?? null)}' in CMDB data, only '["any::"]' allowed`,
        );
        return;
      }
      this.defineClass(key, [TAG]);
      return;
    }
    if (!isObject(spec)) {
      this.error(`Invalid CMDB class data for class '${key}'`);
      return;
    }
    if (!onlyUnconditional(spec.class_expressions, "any::")) {
      this.error(
        `Invalid class expression rules for class '${key}' in CMDB data, only '[]' or '["any::"]' allowed`,
      );
      return;
    }
    if (!onlyUnconditional(spec.regular_expressions, "any")) {
      this.error(
        `Invalid regular expression rules for class '${key}' in CMDB data, only '[]' or '["any"]' allowed`,
      );
      return;
    }
    const tags = readTags(spec.tags, TAG, (why) =>
      this.error(`Invalid json_tags information for class '${key}' in CMDB data: ${why}`),
    );
    this.defineClass(key, tags, this.comment("class", key, spec));
  }

  private defineClass(key: string, tags: string[], comment?: string): void {
    this.messages.push({ level: "verbose", text: `Installing CMDB class '${key}'` });
    const name = key.includes(":") ? key : `data:${key}`;
    this.ctx.defineClass(name, false, comment === undefined ? { tags } : { tags, comment });
  }
}

/** A rule list that is absent, empty, or the one unconditional rule. */
function onlyUnconditional(rules: JsonValue | undefined, unconditional: string): boolean {
  if (rules === undefined || rules === null) return true;
  if (!Array.isArray(rules) || rules.length > 1) return false;
  return rules.length === 0 || rules[0] === unconditional;
}
