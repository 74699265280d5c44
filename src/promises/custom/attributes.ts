/**
 * The attributes a custom promise sends to its module, chosen as cf-agent
 * 3.21 chooses them. Bodies are first turned into attributes: a built-in
 * body type (`action`, `perms`...) gives its attributes plus `TYPE_name`
 * and `TYPE => "true"`, a custom body type (`body mytype x { }`) gives one
 * attribute holding a data container. Then what the agent handles itself
 * is left out: the classes body, `if`/`unless`/`depends_on`/`with`/`meta`,
 * `action`/`action_name`, and `log_level` (sent as the request's level).
 * In a dry run `action_policy` is sent as `warn`.
 */
import { getBodyType } from "../../language/syntax/index.js";
import { type JsonValue, type Value, isList, isScalar } from "../../eval/values.js";
import type { ActivePromise } from "../contract.js";
import { isUnresolved } from "../values.js";

/** cf-agent's names of `classes` body attributes (IsClassesBodyConstraint). */
const CLASSES_BODY_NAMES = [
  "classes",
  "classes_name",
  "scope",
  "promise_repaired",
  "repair_failed",
  "repair_denied",
  "repair_timeout",
  "promise_kept",
  "cancel_repaired",
  "cancel_kept",
  "cancel_notkept",
  "kept_returncodes",
  "repaired_returncodes",
  "failed_returncodes",
  "persist_time",
  "timer_policy",
];

/** Handled by the agent, never sent. */
const NOT_SENT = new Set([
  ...CLASSES_BODY_NAMES,
  "if",
  "ifvarclass",
  "unless",
  "depends_on",
  "with",
  "meta",
  "action",
  "action_name",
  "log_level",
]);

/** Not checked for unresolved variables (the agent has dealt with them). */
const NOT_CHECKED = new Set([...CLASSES_BODY_NAMES, "meta", "log_level", "unless"]);

export interface PromiseAttributes {
  /** What the module gets, in the order written. */
  readonly attributes: ReadonlyMap<string, JsonValue>;
  /** Attributes (and `promiser`) still holding unresolved references. */
  readonly unresolved: readonly string[];
  /** `action_policy` as the policy gives it (before a dry run overrides it). */
  readonly actionPolicy?: string;
  /** The promise's own `log_level` (or its action body's). */
  readonly logLevel?: string;
}

interface Flattened {
  readonly name: string;
  /** Undefined when the value could not be computed (a function call failed). */
  readonly json: JsonValue | undefined;
  readonly unresolved: boolean;
}

function fromValue(name: string, value: Value | undefined): Flattened {
  return { name, json: value && toJson(value), unresolved: holdsUnresolved(value) };
}

/** Every attribute of the promise, bodies turned into attributes, in the order written. */
function flatten(promise: ActivePromise): Flattened[] {
  const out: Flattened[] = [];
  for (const attribute of promise.node.attributes) {
    const name = attribute.name.text;
    const body = promise.body(name);
    if (!body) {
      out.push(fromValue(name, promise.value(name)));
      continue;
    }
    if (name === "classes") continue;
    if (getBodyType(name) === undefined) {
      out.push(customBody(promise, name, [...body.attributes.keys()]));
      continue;
    }
    if (name !== "action") {
      out.push({ name: `${name}_name`, json: body.name, unresolved: false });
      out.push({ name, json: "true", unresolved: false });
    }
    for (const inner of body.attributes.keys()) out.push(fromValue(inner, promise.bodyValue(name, inner)));
  }
  return out;
}

/** A custom body as the data container cf-agent makes of it. */
function customBody(promise: ActivePromise, name: string, keys: readonly string[]): Flattened {
  const object: Record<string, JsonValue> = {};
  let unresolved = false;
  for (const key of keys) {
    const value = promise.bodyValue(name, key);
    if (value === undefined) return { name, json: undefined, unresolved: true };
    unresolved ||= holdsUnresolved(value);
    object[key] = toJson(value);
  }
  return { name, json: object, unresolved };
}

function toJson(value: Value): JsonValue {
  if (value.type === "data") return value.value;
  if (isList(value)) return [...value.value];
  return value.value;
}

function holdsUnresolved(value: Value | undefined): boolean {
  if (value === undefined) return true;
  if (isScalar(value)) return isUnresolved(value.value);
  if (isList(value)) return value.value.some(isUnresolved);
  // Data is not expanded, so `$(...)` inside it is text, not a reference.
  return false;
}

/**
 * Whether the promise still waits for variables (what `readPromiseAttributes`
 * reports as `unresolved`, without building the attributes): asked in every
 * pass, so it stops at the first unresolved value.
 */
export function holdsUnresolvedValues(promise: ActivePromise): boolean {
  if (isUnresolved(promise.promiser)) return true;
  for (const attribute of promise.node.attributes) {
    const name = attribute.name.text;
    const body = promise.body(name);
    if (!body) {
      if (!NOT_CHECKED.has(name) && holdsUnresolved(promise.value(name))) return true;
      continue;
    }
    if (name === "classes") continue;
    // A custom body is one attribute (a container); a built-in one, its attributes.
    const custom = getBodyType(name) === undefined;
    for (const inner of body.attributes.keys()) {
      const checked = custom ? !NOT_CHECKED.has(name) : !NOT_CHECKED.has(inner);
      if (checked && holdsUnresolved(promise.bodyValue(name, inner))) return true;
    }
  }
  return false;
}

/** The attributes to send, and what the agent needs to know of them. */
export function readPromiseAttributes(promise: ActivePromise, dryRun: boolean): PromiseAttributes {
  const attributes = new Map<string, JsonValue>();
  const unresolved: string[] = isUnresolved(promise.promiser) ? ["promiser"] : [];
  let actionPolicy: string | undefined;
  let logLevel: string | undefined;
  for (const { name, json, unresolved: pending } of flatten(promise)) {
    if (pending && !NOT_CHECKED.has(name)) unresolved.push(name);
    if (json === undefined) continue;
    if (name === "action_policy" && typeof json === "string") actionPolicy = json;
    if (name === "log_level" && typeof json === "string") logLevel = json;
    if (!NOT_SENT.has(name)) attributes.set(name, json);
  }
  if (dryRun) attributes.set("action_policy", "warn");
  return { attributes, unresolved, actionPolicy, logLevel };
}

/** Whether the promise may not change the system: a dry run, or `action_policy` warn/nop. */
export function isWarnOnly(attributes: PromiseAttributes, dryRun: boolean): boolean {
  return dryRun || attributes.actionPolicy === "warn" || attributes.actionPolicy === "nop";
}
