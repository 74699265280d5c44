/**
 * How 3.21's "collecting" functions read their container argument: a list
 * or data value (from `@(x)` or a nested call), inline JSON text, or the
 * name of a list, data or classic-array variable.
 */
import {
  type JsonValue,
  type Value,
  isList,
  primitiveToScalar,
  primitiveToString,
  isJsonContainer,
} from "../values.js";
import { parseVarRef } from "../var-ref.js";
import { boundedRegExp } from "../regex/watchdog.js";
import { type JsonLookup, parseJsonContainer } from "./json-text.js";
import { emitFunctionMessage } from "./messages.js";
import type { FunctionContext } from "./types.js";
import { inVariableTableOrder } from "./variable-order.js";

/** What a collecting argument names. */
export type Collected =
  | { readonly kind: "container"; readonly json: JsonValue; readonly fromList: boolean }
  | { readonly kind: "scalar"; readonly text: string };

/**
 * Resolves a collecting argument; undefined when it names nothing. A
 * scalar variable counts as itself only with `allowScalars` (getvalues,
 * getindices); otherwise, as in 3.21, the classic array under the same
 * name is looked for instead.
 */
export function collect(
  fc: FunctionContext,
  arg: Value | undefined,
  allowScalars = false,
): Collected | undefined {
  if (!arg) return undefined;
  if (isList(arg)) return { kind: "container", json: [...arg.value], fromList: true };
  if (arg.type === "data") return fromJson(arg.value);
  const trimmed = arg.value.trimStart();
  if (trimmed.startsWith("[") || trimmed.startsWith("{")) {
    const json = parseJsonContainer(arg.value, variableLookup(fc), { keepNumberText: true });
    return json === undefined ? undefined : { kind: "container", json, fromList: false };
  }
  const name = nakedName(arg.value);
  const found = fc.ctx.getVariable(parseVarRef(name));
  if (found) {
    if (isList(found)) return { kind: "container", json: [...found.value], fromList: true };
    if (found.type === "data") return fromJson(found.value);
    if (allowScalars) return { kind: "scalar", text: found.value };
    const array = classicArrayJson(fc, name);
    return array
      ? { kind: "container", json: array, fromList: false }
      : { kind: "scalar", text: found.value };
  }
  const array = classicArrayJson(fc, name);
  return array ? { kind: "container", json: array, fromList: false } : undefined;
}

/**
 * The variable name in a collecting argument: `@(a)` that stayed as text
 * (no list or data `a`, say a classic array) names `a`, as 3.21's
 * `ResolveAndQualifyVarName` takes it.
 */
export function nakedName(name: string): string {
  return /^@(\(.*\)|\{.*\})$/s.test(name) ? name.slice(2, -1) : name;
}

/**
 * A variable as 3.21's `EvalContextVariableGet` finds it: an index into a
 * data container gives the member as data, even a string, number or null
 * (so `format("%S")` prints it as JSON and type() says "data").
 */
export function lookUpVariable(fc: FunctionContext, name: string): Value | undefined {
  const ref = parseVarRef(name);
  const found = fc.ctx.getVariable(ref);
  if ((found && found.type === "data") || ref.indices.length === 0) return found;
  for (let n = ref.indices.length - 1; n >= 0; n--) {
    const base = fc.ctx.getVariable({ ...ref, indices: ref.indices.slice(0, n) });
    if (!base) continue;
    if (base.type !== "data") return found;
    let json: JsonValue | undefined = base.value;
    for (const index of ref.indices.slice(n)) {
      json = isJsonContainer(json) ? (json as Record<string, JsonValue>)[index] : undefined;
    }
    return json === undefined ? found : { type: "data", value: json };
  }
  return found;
}

/**
 * How inline JSON resolves a bare variable reference (3.21's
 * `LookupVarRefToJson`): a string, a list as an array, data as is, or a
 * classic array as an object.
 */
export function variableLookup(fc: FunctionContext): JsonLookup {
  return (reference) => {
    const found = fc.ctx.getVariable(parseVarRef(reference));
    if (!found) return classicArrayJson(fc, reference);
    if (found.type === "data") return found.value;
    return isList(found) ? [...found.value] : found.value;
  };
}

/** A collecting argument that must be a container (array or object). */
export function collectContainer(fc: FunctionContext, arg: Value | undefined): JsonValue | undefined {
  const found = collect(fc, arg);
  return found?.kind === "container" ? found.json : undefined;
}

function fromJson(json: JsonValue): Collected {
  if (isJsonContainer(json)) return { kind: "container", json, fromList: false };
  return { kind: "scalar", text: primitiveToString(json) ?? "" };
}

/**
 * A classic array `name[a]`, `name[a][b]`... as nested JSON objects, built
 * as 3.21's `VarRefValueToJson` builds it: entries in variable-table order,
 * list entries as arrays, data entries left out, and where a key holds both
 * a value and sub-keys the sub-keys win (with 3.21's warnings). Undefined
 * when there is no entry.
 */
export function classicArrayJson(fc: FunctionContext, name: string): JsonValue | undefined {
  const ref = parseVarRef(name);
  const scopeKey = fc.ctx.scopeKey(ref);
  const colon = scopeKey.indexOf(":");
  const prefix = `${ref.name}${ref.indices.map((i) => `[${i}]`).join("")}[`;
  const entries: { scopeKey: string; lval: string; path: string[]; value: Value }[] = [];
  for (const [lval, value] of fc.ctx.scopeEntries(scopeKey.slice(0, colon), scopeKey.slice(colon + 1))) {
    if (!lval.startsWith(prefix)) continue;
    const path = splitIndexPath(lval.slice(prefix.length - 1));
    if (path) entries.push({ scopeKey, lval, path, value });
  }
  const root: Record<string, JsonValue> = {};
  for (const entry of inVariableTableOrder(fc.ctx, entries)) addArrayEntry(fc, root, entry.path, entry.value);
  return Object.keys(root).length > 0 ? root : undefined;
}

type JsonObject = Record<string, JsonValue>;

function isObject(json: JsonValue | undefined): json is JsonObject {
  return isJsonContainer(json) && !Array.isArray(json);
}

/** Sets a key as 3.21's JSON objects do: a key set again moves to the end. */
function setKey(target: JsonObject, key: string, value: JsonValue): void {
  delete target[key];
  target[key] = value;
}

function addArrayEntry(fc: FunctionContext, root: JsonObject, path: readonly string[], value: Value): void {
  if (value.type === "data") return;
  let parent: JsonObject | undefined;
  let holder: JsonValue = root;
  let holderKey = "";
  for (const step of path.slice(0, -1)) {
    if (!isObject(holder)) break;
    if (!(step in holder)) setKey(holder, step, {});
    parent = holder;
    holder = holder[step];
    holderKey = step;
  }
  const last = path[path.length - 1];
  const warn = (message: string) => emitFunctionMessage(fc.ctx, "warning", fc.call.name, message);
  if (isList(value)) {
    if (isObject(holder)) setKey(holder, last, [...value.value]);
    return;
  }
  if (!isObject(holder)) {
    warn(
      `Replacing a non-container JSON element '${holderKey}' with a new empty container (for the '${last}' subkey)`,
    );
    if (parent) setKey(parent, holderKey, { [last]: value.value });
    return;
  }
  const child = holder[last];
  if (isJsonContainer(child)) {
    warn(`Not replacing the container '${last}' with a non-container value '${value.value}'`);
    return;
  }
  setKey(holder, last, value.value);
}

/**
 * `[a][b]` as `["a", "b"]`, brackets nesting as in 3.21's references
 * (`[/bin/python[23]]` is one index); undefined when the text is not only
 * indexes.
 */
function splitIndexPath(text: string): string[] | undefined {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (depth === 0 && ch !== "[") return undefined;
    if (ch === "[" && depth++ === 0) start = i + 1;
    else if (ch === "]" && --depth === 0) out.push(text.slice(start, i));
  }
  return depth === 0 && out.length > 0 ? out : undefined;
}

/** The members of a container, in order (array items or object values). */
export function members(json: JsonValue): JsonValue[] {
  if (Array.isArray(json)) return json;
  return isJsonContainer(json) ? Object.values(json) : [];
}

/**
 * The non-null primitive members as a list made from the container sees
 * them (3.21's RlistFromContainer: reals with two decimals), as filter(),
 * grep(), every(), min() and the numeric folds see a container.
 */
export function scalarStrings(json: JsonValue): string[] {
  const out: string[] = [];
  for (const member of members(json)) {
    if (member !== null && !isJsonContainer(member)) out.push(primitiveToScalar(member) ?? "");
  }
  return out;
}

/** The non-null primitive members as strings, as most list functions see a container. */
export function primitiveStrings(json: JsonValue): string[] {
  const out: string[] = [];
  for (const member of members(json)) {
    if (member !== null && !isJsonContainer(member)) out.push(primitiveToString(member) ?? "");
  }
  return out;
}

/** The keys of a container: object keys or array positions. */
export function containerKeys(json: JsonValue): string[] {
  if (Array.isArray(json)) return json.map((_, i) => String(i));
  return isJsonContainer(json) ? Object.keys(json) : [];
}

/**
 * A PCRE-like regex run on the bytes of the text (no UTF mode, as 3.21):
 * `.` matches one byte of a multi-byte character.
 */
export function byteRegex(pattern: string, anchored: boolean): ((s: string) => boolean) | undefined {
  const regex = compiledByteRegex(pattern, anchored);
  return regex ? (s) => regex.test(toLatin1(s)) : undefined;
}

/**
 * Compiled patterns by pattern and anchoring (null: does not compile). A
 * policy calls the same few patterns many times; the expressions have no
 * `g` or `y` flag, so `test` keeps no state between uses.
 */
const compiled = new Map<string, RegExp | null>();
const MAX_COMPILED = 10_000;

function compiledByteRegex(pattern: string, anchored: boolean): RegExp | undefined {
  const key = `${anchored ? "^" : "~"}${pattern}`;
  let regex = compiled.get(key);
  if (regex === undefined) {
    regex = compileByteRegex(pattern, anchored);
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(key, regex);
  }
  return regex ?? undefined;
}

function compileByteRegex(pattern: string, anchored: boolean): RegExp | null {
  let flags = "";
  const source = toLatin1(pattern).replace(/^\(\?([imsx]+)\)/, (_, found: string) => {
    flags += found.replace("x", "");
    return "";
  });
  try {
    return boundedRegExp(anchored ? `^(?:${source})$` : source, flags);
  } catch {
    return null;
  }
}

/** Whether every character is ASCII (a loop: faster than a regex on the short names most calls see). */
function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

function toLatin1(text: string): string {
  return isAscii(text) ? text : Buffer.from(text, "utf8").toString("latin1");
}
