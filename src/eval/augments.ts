/**
 * Augments: `def.json` (or `def_preferred.json`) next to the entry file.
 * 3.21 reads it before the policy and installs, in this order:
 * - `vars`: each key a variable (into `def` unless qualified), tagged
 *   `source=augments_file`;
 * - `variables`: the same, each with `value` and optional `tags` and
 *   `comment`;
 * - `classes`: each key a class defined when one of its class expressions
 *   (`expr::`) holds or one of its regexes matches a defined class; the
 *   object form carries `class_expressions` or `regular_expressions`,
 *   `tags` and `comment`;
 * - `inputs`: `def.augments_inputs`;
 * - `augments`: further files, loaded the same way.
 * Strings (and keys) are expanded first. Variables and classes that
 * host-specific data defined (`source=cmdb`) are left alone.
 */
import { readFileSync, statSync } from "node:fs";
import {
  type JsonObject,
  type LoadMessage,
  classDefinedByCmdb,
  definedByCmdb,
  isObject,
  isPrimitive,
  isPrimitiveArray,
  jsonToVariable,
  readTags,
} from "./augments-install.js";
import type { EvalContext } from "./context.js";
import { expandString } from "./expand.js";
import { compileRegex } from "./functions/args.js";
import { parseJsonText } from "./functions/json-text.js";
import { type JsonValue, list, primitiveToString } from "./values.js";
import { type VarRef, formatVarRef, parseVarRef } from "./var-ref.js";

const TAG = "source=augments_file";
const KNOWN_KEYS = new Set(["vars", "classes", "inputs", "augments"]);

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
  // Joined as 3.21 joins them (no normalisation): messages show `./dir/def.json`.
  const preferred = `${inputDir}/def_preferred.json`;
  return isRegularFile(preferred) ? preferred : `${inputDir}/def.json`;
}

/**
 * Loads augments into the context. A file that is absent is skipped
 * silently; problems become messages (3.21 logs them and goes on). Returns
 * the files that were read.
 */
export function loadAugments(
  ctx: EvalContext,
  inputDir: string,
  messages: LoadMessage[],
  entryFile = `${inputDir}/promises.cf`,
): string[] {
  const loaded: string[] = [];
  const file = findAugmentsFile(inputDir);
  messages.push({
    level: "verbose",
    text: `Loading JSON augments from '${file}' (input dir '${inputDir}', input file '${entryFile}'`,
  });
  new AugmentsLoader(ctx, messages, loaded).loadFile(file);
  return loaded;
}

class AugmentsLoader {
  private file = "";

  constructor(
    private readonly ctx: EvalContext,
    private readonly messages: LoadMessage[],
    private readonly loaded: string[],
  ) {}

  private error(text: string): void {
    this.messages.push({ level: "error", text });
  }

  private verbose(text: string): void {
    this.messages.push({ level: "verbose", text });
  }

  loadFile(rawPath: string): boolean {
    const path = expandString(this.ctx, rawPath);
    if (path.includes("/.json")) return false;
    if (!isRegularFile(path)) {
      this.verbose(`could not load JSON augments from '${path}'`);
      return false;
    }
    // 3.21's JSON reader is lenient (trailing commas, text after the value...).
    const json = parseJsonText(readFileSync(path, "utf8"));
    if (json === undefined) {
      this.error(`Could not parse JSON file ${path}: ${describeParseError(path)}`);
      return false;
    }
    if (!isObject(json)) {
      this.error(`Invalid augments file contents in '${path}', must be a JSON object`);
      return false;
    }
    this.loaded.push(path);
    const outer = this.file;
    this.file = path;
    try {
      this.install(json);
    } finally {
      this.file = outer;
    }
    return true;
  }

  private install(json: JsonObject): void {
    this.verbose(`Loaded augments file '${this.file}', installing contents`);
    for (const key of Object.keys(json)) {
      if (!KNOWN_KEYS.has(key))
        this.verbose(`Unknown augments key '${key}' in file '${this.file}', skipping it`);
    }
    if (present(json.vars)) this.installVars(this.expand(json.vars));
    if (present(json.variables)) this.installVariables(this.expand(json.variables));
    if (present(json.classes)) this.installClasses(this.expand(json.classes));
    if (present(json.inputs)) this.installInputs(this.expand(json.inputs));
    if (present(json.augments)) this.loadFurther(json.augments);
  }

  private expand(json: JsonValue): JsonValue {
    return expandJson(this.ctx, json);
  }

  /** The variable a key names, in `def` unless qualified; undefined (and an error) for `ns:name`. */
  private refOf(key: string): VarRef | undefined {
    const ref = parseVarRef(key);
    if (ref.ns !== null && ref.scope === null) {
      this.error(
        `Invalid variable specification in augments data in '${this.file}': '${key}' (bundle name has to be specified if namespace is specified)`,
      );
      return undefined;
    }
    return { ...ref, scope: ref.scope ?? "def" };
  }

  private put(key: string, ref: VarRef, json: JsonValue, tags: string[], comment?: string): void {
    const { value, kind } = jsonToVariable(json);
    const shown = kind === "" ? `${key}=${primitiveToString(json as string)}` : key;
    this.verbose(`Installing augments ${kind}variable '${shown}' from file '${this.file}'`);
    if (definedByCmdb(this.ctx, ref)) {
      this.verbose(
        `Cannot set variable ${formatVarRef({ ...ref, ns: ref.ns ?? "default" })} from augments, already defined from host-specific data`,
      );
      return;
    }
    this.ctx.setVariable(ref, value, comment === undefined ? { tags } : { tags, comment });
  }

  private installVars(vars: JsonValue): void {
    if (!isObject(vars)) {
      this.error(`Invalid augments vars in '${this.file}', must be a JSON object`);
      return;
    }
    for (const [key, json] of Object.entries(vars)) {
      const ref = this.refOf(key);
      if (ref) this.put(key, ref, json, [TAG]);
    }
  }

  private installVariables(variables: JsonValue): void {
    if (!isObject(variables)) {
      this.error(`Invalid augments variables in '${this.file}', must be a JSON object`);
      return;
    }
    for (const [key, info] of Object.entries(variables)) {
      const ref = this.refOf(key);
      if (!ref) continue;
      if (!isObject(info)) {
        this.put(key, ref, info, [TAG]);
        continue;
      }
      if (info.value === undefined || info.value === null) {
        this.error(
          `Missing value for the augments variable '${key}' in '${this.file}' (value field is required)`,
        );
        continue;
      }
      const tags = readTags(info.tags, TAG, (why) =>
        this.error(`Invalid tags information for variable '${key}' in augments file '${this.file}': ${why}`),
      );
      this.put(key, ref, info.value, tags, this.comment("variable", key, info));
    }
  }

  private comment(type: string, key: string, info: JsonObject): string | undefined {
    const comment = info.comment;
    if (comment === undefined || comment === null) return undefined;
    if (typeof comment === "string") return comment;
    this.error(
      `Invalid type of the 'comment' field for the '${key}' ${type} in augments data in '${this.file}', must be a string`,
    );
    return undefined;
  }

  private installClasses(classes: JsonValue): void {
    if (!isObject(classes)) {
      this.error(`Invalid augments classes in '${this.file}', must be a JSON object`);
      return;
    }
    for (const [name, spec] of Object.entries(classes)) this.installClass(name, spec);
  }

  private installClass(name: string, spec: JsonValue): void {
    if (isPrimitive(spec)) {
      const check = primitiveToString(spec) ?? "";
      if (this.holds(check)) this.defineClass(name, check, "checked", [TAG]);
      return;
    }
    if (isPrimitiveArray(spec)) {
      const check = spec.map((s) => primitiveToString(s) ?? "").find((c) => this.holds(c));
      if (check !== undefined) this.defineClass(name, check, "checked array entry", [TAG]);
      return;
    }
    if (!isObject(spec)) {
      this.error(`Invalid augments class data for class '${name}' in '${this.file}'`);
      return;
    }
    const expressions = spec.class_expressions;
    const regexes = spec.regular_expressions;
    if (present(expressions) === present(regexes)) {
      this.error(
        `Invalid augments class data for class '${name}' in '${this.file}': either "class_expressions" or "regular_expressions" need to be specified`,
      );
      return;
    }
    const tags = readTags(spec.tags, TAG, (why) =>
      this.error(`Invalid tags information for class '${name}' in augments file '${this.file}': ${why}`),
    );
    const checks = Array.isArray(expressions ?? regexes) ? ((expressions ?? regexes) as JsonValue[]) : [];
    const check = checks
      .filter(isPrimitive)
      .map((c) => primitiveToString(c) ?? "")
      .find((c) => this.holds(c));
    if (check !== undefined)
      this.defineClass(name, check, "checked array entry", tags, this.comment("class", name, spec));
  }

  /** `expr::` is a class expression; anything else a regex over the defined classes. */
  private holds(check: string): boolean {
    if (check.endsWith("::")) {
      if (check.length === 2) {
        this.error(`Invalid class expression in augments: '${check}'`);
        return false;
      }
      return this.ctx.checkExpression(check.slice(0, -2));
    }
    const regex = compileRegex(`^(?:${check})$`);
    return regex !== undefined && this.ctx.listClasses().some((c) => regex.test(c));
  }

  private defineClass(name: string, check: string, how: string, tags: string[], comment?: string): void {
    this.verbose(`Installing augments class '${name}' (${how} '${check}') from file '${this.file}'`);
    if (classDefinedByCmdb(this.ctx, name)) {
      const colon = name.indexOf(":");
      const ns = colon === -1 ? "(null)" : name.slice(0, colon);
      this.verbose(
        `Cannot set class ${ns}:${name.slice(colon + 1)} from augments, already defined from host-specific data`,
      );
      return;
    }
    this.ctx.defineClass(name, false, comment === undefined ? { tags } : { tags, comment });
  }

  private installInputs(inputs: JsonValue): void {
    if (!isPrimitiveArray(inputs)) {
      this.error(`Trying to augment inputs in '${this.file}' but the value was not a list of strings`);
      return;
    }
    this.verbose(`Installing augments def.augments_inputs from file '${this.file}'`);
    const ref = { ns: null, scope: "def", name: "augments_inputs", indices: [] };
    this.ctx.setVariable(ref, list(inputs.map((i) => primitiveToString(i) ?? "")), { tags: [TAG] });
  }

  private loadFurther(augments: JsonValue): void {
    if (!isPrimitiveArray(augments)) {
      this.error(`Trying to augment inputs in '${this.file}' but the value was not a list of strings`);
      return;
    }
    for (const file of augments) {
      const name = primitiveToString(file) ?? "";
      if (this.loadFile(name)) this.verbose(`Completed augmenting from file '${name}'`);
      else this.error(`Could not load requested further augments from file '${name}'`);
    }
  }
}

function present(json: JsonValue | undefined): json is JsonValue {
  return json !== undefined && json !== null;
}

/** Expands `$(...)` in every string (and key) of a JSON value. */
export function expandJson(ctx: EvalContext, json: JsonValue): JsonValue {
  if (typeof json === "string") return expandString(ctx, json);
  if (Array.isArray(json)) return json.map((v) => expandJson(ctx, v));
  if (isObject(json)) {
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(json)) out[expandString(ctx, key)] = expandJson(ctx, value);
    return out;
  }
  return json;
}

/** 3.21's words for the usual ways a JSON file fails to parse. */
function describeParseError(path: string): string {
  let text = "";
  try {
    text = readFileSync(path, "utf8").trimStart();
  } catch {
    return "No such file or directory";
  }
  if (text === "") return "Unable to parse json data, empty input";
  if (text[0] !== "{" && text[0] !== "[")
    return "Unable to parse json data as object, unrecognized token beginning entry";
  return "Unable to parse json data";
}
