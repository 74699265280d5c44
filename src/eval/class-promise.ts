/**
 * A `classes` promise, evaluated as 3.21's `VerifyClassPromise` does; used
 * both by pre-evaluation (common bundles) and by the agent.
 *
 * - An illegal promiser is canonified (`bad-name.x` defines `bad_name_x`,
 *   and an unresolved `c_$(x)` defines `c___x_`).
 * - More than one condition (`and`, `or`, `xor`, `not`, `expression`,
 *   `dist`, `select_class`) is an error: "Irreconcilable constraints".
 * - A class already defined is not evaluated again.
 * - `expression`/`not` read one class expression; one still holding an
 *   unresolved reference is simply not a defined class (so `not` holds).
 * - `and`/`or`/`xor` read each list item on its own: an item whose function
 *   call failed counts as false; `xor` is parity.
 * - `select_class` picks one item by a hash of host, address and uid, and
 *   defines it (globally) besides the promiser; `dist` defines
 *   `<promiser>_<item>` for a weighted random item.
 * - The class is global with `persistence`, `scope => "namespace"`, or in a
 *   common bundle without `scope`; otherwise local to the bundle.
 */
import type { Rval } from "../language/ast.js";
import { canonify, parseClassExpression } from "./class-expression.js";
import type { EvalContext } from "./context.js";
import { stringHash } from "./functions/utils.js";
import { parseCfInt } from "./numbers.js";
import { type Value, isList, isScalar, jsonToStrings } from "./values.js";

export type ClassScope = "bundle" | "namespace";

/** The conditions of a classes promise; only one may be given. */
export const CLASS_CONDITIONS = ["and", "dist", "expression", "or", "not", "select_class", "xor"] as const;

/** A classes promise as the evaluator needs it: expanded promiser, attributes on demand. */
export interface ClassPromiseInput {
  /** The promiser, expanded (maybe still holding unresolved references). */
  readonly promiser: string;
  /** `common`, `agent`, ... */
  readonly bundleType: string;
  /** An attribute as written; undefined if absent. */
  raw(name: string): Rval | undefined;
  /** Evaluates a right-hand value in the promise's iteration; undefined if a function failed. */
  expand(rval: Rval): Value | undefined;
}

/** What the evaluator does to the world. */
export interface ClassPromiseEffects {
  /** Defines a class; `persistMinutes` > 0 also keeps it across runs. */
  define(name: string, scope: ClassScope, persistMinutes?: number): void;
  /** Forgets a persistent class (a promise with `persistence => "0"` meets it). */
  cancelPersistent?(name: string): void;
  error(message: string): void;
  /** Says where the promise is, after a problem (3.21's PromiseRef). */
  ref?(level: "error" | "verbose"): void;
  /** An error the run cannot go on after (3.21 stops while loading). */
  fatal?(message: string): void;
  verbose(message: string): void;
}

/** `skipped` when the class was already defined (3.21 counts that as kept too). */
export type ClassPromiseResult = "kept" | "failed" | "skipped";

/** Evaluates one iteration of a classes promise. */
export function verifyClassPromise(
  ctx: EvalContext,
  input: ClassPromiseInput,
  effects: ClassPromiseEffects,
): ClassPromiseResult {
  let name = input.promiser;
  if (!/^[a-zA-Z0-9_]+$/.test(name)) {
    effects.verbose(`Class identifier '${name}' contains illegal characters - canonifying`);
    name = canonify(name);
  }
  const conditions = CLASS_CONDITIONS.filter((c) => input.raw(c) !== undefined);
  if (conditions.length > 1) {
    effects.error(`Irreconcilable constraints in classes for '${name}'`);
    return "failed";
  }
  const condition = conditions[0];
  if (condition !== undefined && ctx.isClassDefined(name)) {
    if (scalarText(input, "persistence") === "0") {
      effects.verbose(` ?> Cancelling cached persistent class ${name}`);
      effects.cancelPersistent?.(name);
    }
    return "skipped";
  }
  if (condition !== undefined && !conditionHolds(ctx, input, condition, effects)) return "kept";
  if (!parseClassExpression(name).ok) {
    effects.error(`Attempted to name a class '${name}', which is an illegal class identifier`);
    return "failed";
  }
  const persist = persistence(input);
  const scopeText = scalarText(input, "scope");
  const global =
    persist > 0 || scopeText === "namespace" || (scopeText !== "bundle" && input.bundleType === "common");
  const scope: ClassScope = global ? "namespace" : "bundle";
  effects.verbose(`C:     +  ${global ? "Global" : "Private"} class: ${name}`);
  const fresh = !ctx.isClassDefined(name);
  effects.define(name, scope, persist > 0 ? persist : undefined);
  if (persist > 0) effects.verbose(`C:     +  Persistent class: '${name}' (${persist} minutes)`);
  const comment = scalarText(input, "comment");
  if (fresh && comment !== undefined) effects.verbose(`Added class '${name}' with comment '${comment}'`);
  return "kept";
}

function persistence(input: ClassPromiseInput): number {
  const text = scalarText(input, "persistence");
  return text === undefined ? 0 : (parseCfInt(text) ?? 0);
}

function scalarText(input: ClassPromiseInput, name: string): string | undefined {
  const raw = input.raw(name);
  if (!raw) return undefined;
  const value = input.expand(raw);
  return value && isScalar(value) ? value.value : undefined;
}

function conditionHolds(
  ctx: EvalContext,
  input: ClassPromiseInput,
  condition: (typeof CLASS_CONDITIONS)[number],
  effects: ClassPromiseEffects,
): boolean {
  const raw = input.raw(condition) as Rval;
  if (condition === "expression" || condition === "not") {
    const value = input.expand(raw);
    if (!value || !isScalar(value)) return false;
    const defined = ctx.checkExpression(value.value);
    return condition === "not" ? !defined : defined;
  }
  const items = listItems(input, raw);
  if (typeof items === "string" && raw.kind === "call") {
    effects.fatal?.(
      `In attribute '${condition}', Attempted to give a scalar to a non-scalar type. Given attribute value '${items}'`,
    );
    return false;
  }
  if (typeof items === "string") {
    effects.error(`RHS of promise body attribute '${condition}' is not a list`);
    effects.ref?.("error");
    return true;
  }
  switch (condition) {
    case "select_class":
      return selectClass(ctx, items, effects);
    case "dist":
      return distributeClass(input, items, effects);
    case "or":
      return items.some((item) => item !== undefined && ctx.checkExpression(item));
    case "and":
      return items.every((item) => item !== undefined && ctx.checkExpression(item));
    default:
      return items.filter((item) => item !== undefined && ctx.checkExpression(item)).length % 2 === 1;
  }
}

/**
 * The items of a list condition, each evaluated on its own: a failed
 * function call leaves an undefined item. A string when the value is not a
 * list at all (a function that returned a scalar).
 */
function listItems(input: ClassPromiseInput, raw: Rval): (string | undefined)[] | string {
  if (raw.kind !== "list") {
    const value = input.expand(raw);
    if (!value) return [undefined];
    if (isList(value)) return [...value.value];
    if (value.type === "data") return [...(jsonToStrings(value.value) ?? [])];
    // A whole `@(x)` that does not resolve stays one item, as written.
    return raw.kind === "string" && value.value.startsWith("@") ? [value.value] : value.value;
  }
  const items: (string | undefined)[] = [];
  for (const item of raw.items) {
    const value = input.expand(item);
    if (!value) items.push(undefined);
    else if (isList(value)) items.push(...value.value);
    else if (value.type === "data") items.push(...(jsonToStrings(value.value) ?? []));
    else items.push(value.value);
  }
  return items;
}

function selectClass(
  ctx: EvalContext,
  items: readonly (string | undefined)[],
  effects: ClassPromiseEffects,
): boolean {
  if (items.length === 0) {
    effects.error("No classes to select on RHS");
    effects.ref?.("error");
    return false;
  }
  if (items.length === 1 && items[0]?.startsWith("@")) {
    effects.verbose(`select_class: Can not expand list '${items[0]}' for setting class.`);
    effects.ref?.("verbose");
    return false;
  }
  const chosen = items[stringHash(selectionSeed(ctx)) % items.length];
  if (chosen === undefined || /[$@][({]/.test(chosen)) {
    effects.verbose(`select_class: Can not use not expanded element '${chosen ?? ""}' for setting class.`);
    effects.ref?.("verbose");
    return false;
  }
  effects.define(canonify(chosen), "namespace");
  return true;
}

/**
 * 3.21 hashes `<fqhost>+<ipv4>+<uid>` to pick a class, so a host always
 * picks the same one; without `sys.ipv4`, the fqhost's resolved address.
 */
function selectionSeed(ctx: EvalContext): string {
  const sys = (name: string) => {
    const value = ctx.getVariable({ ns: null, scope: "sys", name, indices: [] });
    return value && isScalar(value) ? value.value : "";
  };
  const uid = typeof process.getuid === "function" ? process.getuid() : 0;
  return `${sys("fqhost")}+${sys("ipv4") || ctx.resolvedAddress}+${uid}`;
}

function distributeClass(
  input: ClassPromiseInput,
  items: readonly (string | undefined)[],
  effects: ClassPromiseEffects,
): boolean {
  const weights = items.map((item) => parseCfInt(item ?? "") ?? 0);
  if (weights.some((w) => w < 0)) {
    effects.error("Negative integer in class distribution");
    effects.ref?.("error");
    return false;
  }
  const total = weights.reduce((a, b) => a + b, 0);
  if (total === 0) {
    effects.error("An empty distribution was specified on RHS");
    effects.ref?.("error");
    return false;
  }
  let fluctuation = Math.random() * total;
  let index = 0;
  for (; index < weights.length - 1; index++) {
    fluctuation -= weights[index];
    if (fluctuation < 0) break;
  }
  const scope: ClassScope = input.bundleType === "common" ? "namespace" : "bundle";
  // 3.21 names the class after the promiser as written (not canonified).
  effects.define(canonify(`${input.promiser}_${items[index] ?? ""}`), scope);
  return true;
}
