/**
 * `vars` (and `meta`) promises: define variables in the bundle's scope (or
 * `<bundle>_meta`), as 3.21 does:
 * - a value is computed again at every evaluation and replaces the old one
 *   (unless `policy => "constant"`); a function call that fails leaves the
 *   variable as it was and sets no outcome classes (a later pass may
 *   succeed);
 * - a string with unresolved references is stored as written, so a later
 *   pass (or a report) shows the references;
 * - `int` and `real` values are read with CFEngine's suffixes; a value that
 *   is not a number fails the promise and defines nothing;
 * - `policy => "ifdefined"` defines nothing while the value is unresolved.
 */
import { promiseRef } from "./promise-ref.js";
import { VAR_TYPES, type VarType, coerce } from "../eval/coerce.js";
import type { EntryMeta } from "../eval/context.js";
import { expandFinalValue } from "../eval/expand.js";
import { type Value, isList, isScalar } from "../eval/values.js";
import { parseVarRef } from "../eval/var-ref.js";
import type { Outcome } from "./outcome.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "./contract.js";
import { asStrings, asText, isUnresolved } from "./values.js";

export { VAR_TYPES, coerce };

/** The tags 3.21 gives a variable of a `vars` promise: `source=promise`, then `meta`; and its comment. */
export function promiseEntryMeta(promise: ActivePromise): EntryMeta {
  const meta = promise.value("meta");
  const tags = ["source=promise", ...(meta ? asStrings(meta) : [])];
  const comment = promise.raw("comment") === undefined ? undefined : asText(promise.value("comment"));
  return comment === undefined ? { tags } : { tags, comment };
}

function findType(promise: ActivePromise): VarType | undefined {
  return VAR_TYPES.find((t) => promise.raw(t) !== undefined);
}

/** Every bundle type, for "is there a bundle of that name". */
const BUNDLE_TYPES = ["agent", "common", "edit_line", "edit_xml", "server", "monitor", "knowledge"];

/**
 * 3.21 refuses `"other.x"` when `other` is another bundle of the policy
 * (remote variable injection, CFE-1915); a prefix naming no bundle is a
 * scope of its own.
 */
function injectsIntoBundle(promise: ActivePromise, env: PromiseEnvironment, scope: string | null): boolean {
  if (scope === null || scope === promise.bundle.block.name.text) return false;
  if (!env.findBundle(scope, BUNDLE_TYPES)) return false;
  env.log.error("Remote bundle variable injection detected!");
  env.log.error(`Variable identifier '${promise.promiser}' is not legal`);
  promiseRef(env, "error", promise);
  return true;
}

export function evaluateVariable(promise: ActivePromise, env: PromiseEnvironment, scopeSuffix = ""): Outcome {
  const { ctx, log } = env;
  const type = findType(promise);
  if (!type) return "skipped";
  if (isUnresolved(promise.promiser)) return "skipped";
  const ref = parseVarRef(promise.promiser);
  if (injectsIntoBundle(promise, env, ref.scope)) return "kept";
  // A dotted promiser (`"other.x"`) defines `x` in the scope it names, as 3.21 does.
  const target = {
    ns: ref.ns,
    scope: scopeSuffix ? `${promise.bundle.block.name.text}${scopeSuffix}` : ref.scope,
    name: ref.name,
    indices: ref.indices,
  };
  const raw = promise.raw(type);
  const fromCall = raw?.kind === "call";
  const computed = expandFinalValue(ctx, promise.value(type), promise.options);
  // A failed (or postponed) call assigns nothing and, as in 3.21, sets no
  // outcome classes: a later pass may still succeed.
  if (!computed) return fromCall ? "skipped" : "failed";
  const policy = asText(promise.value("policy"));
  if (policy === "constant" && ctx.getVariable(target)) return "skipped";
  // `ifdefined` drops unresolved `@(list)` items from lists; a scalar is
  // still defined as it stands (as 3.21 does).
  if (policy === "ifdefined" && isList(computed) && computed.value.some(isUnresolved)) {
    ctx.setVariable(
      target,
      { ...computed, value: computed.value.filter((v) => !isUnresolved(v)) },
      promiseEntryMeta(promise),
    );
    return "kept";
  }
  // A function's string where a list is declared: 3.21's re-check of the
  // expanded promise stops the run.
  if (fromCall && isListType(type) && isScalar(computed)) {
    const ref = `${promise.bundle.block.namespace}:${promise.bundle.block.name.text}.${promise.promiser}`;
    log.error(
      `Variable '${ref}' expected a variable of type '${type}', but was given incompatible value '${computed.value}'`,
    );
    env.fatal(
      `In attribute '${type}', Attempted to give a scalar to a non-scalar type. Given attribute value '${computed.value}'`,
    );
    env.fatal("Fatal CFEngine error: Cannot continue");
    return "failed";
  }
  const value = coerce(type, computed);
  // Text that does not parse as data is a failed parsejson()/parseyaml() call in 3.21.
  if (!value && type === "data" && !isList(computed) && computed.type !== "data") return "skipped";
  if (!value) {
    // A resolved value of the wrong type is fatal in 3.21 ("Cannot continue").
    if (!hasUnresolved(computed) || isList(computed) !== isListType(type)) {
      env.fatal(
        `Variable '${promise.promiser}' expected a value of type '${type}', but was given '${describe(computed)}'`,
      );
    }
    return "failed";
  }
  ctx.setVariable(target, value, promiseEntryMeta(promise));
  logVariableComment(promise, env);
  return "kept";
}

/**
 * The verbose line 3.21 prints when a variable with a comment is stored
 * (people grep for their comments there). Its agent stores each variable
 * twice per iteration, so the engine calls this once more.
 */
export function logVariableComment(promise: ActivePromise, env: PromiseEnvironment): void {
  const { comment } = promiseEntryMeta(promise);
  if (comment !== undefined)
    env.log.verbose(`Added variable '${promise.promiser}' with comment '${comment}'`);
}

function isListType(type: VarType): boolean {
  return type === "slist" || type === "ilist" || type === "rlist";
}

function hasUnresolved(value: Value): boolean {
  if (value.type === "data") return false;
  return isList(value) ? value.value.some(isUnresolved) : isUnresolved(value.value);
}

function describe(value: Value): string {
  return asStrings(value).join(", ");
}

export const varsPromiseType: PromiseType = {
  name: "vars",
  evaluate: (promise, env) => evaluateVariable(promise, env),
};

/** `meta` promises are variables in the scope `<bundle>_meta`. */
export const metaPromiseType: PromiseType = {
  name: "meta",
  evaluate: (promise, env) => evaluateVariable(promise, env, "_meta"),
};
