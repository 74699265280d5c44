/**
 * Pre-evaluation, as 3.21 does while loading: the `vars` and `classes`
 * promises of common bundles (vars, then classes, then vars again), and the
 * `vars` of other bundles. Nothing is reported: a promise whose value
 * cannot be computed yet is simply left out, and a later round may succeed.
 */
import { dirname, isAbsolute } from "node:path";
import type { Attribute, Bundle, ClassGuard, Promise as PromiseNode, Rval } from "../language/ast.js";
import type { EntryMeta, EvalContext } from "./context.js";
import {
  type ExpandOptions,
  expandFinalValue,
  expandRval,
  expandString,
  hasUnresolvedReference,
} from "./expand.js";
import { verifyClassPromise } from "./class-promise.js";
import { coerce, isVarType } from "./coerce.js";
import { callsIfelse, collectIterationTexts, iterate } from "./iteration.js";
import { type JsonValue, type Value, isList, isScalar, scalar } from "./values.js";
import { parseVarRef } from "./var-ref.js";
import { readFileSync } from "node:fs";
import { bundleToJson } from "../language/print/json.js";
import { SourceFile } from "../language/source.js";

const VAR_TYPES = new Set(["string", "int", "real", "slist", "ilist", "rlist", "data"]);

/** What a caller of pre-evaluation may add to it. */
export interface ResolveHooks {
  /**
   * A vars promise was evaluated and its variable set: 3.21 applies the
   * promise's `classes` body then (as kept), even in bundles never called.
   */
  varPromiseKept?(promise: PromiseNode, options: ExpandOptions): void;
  /**
   * Also evaluate `meta` promises (into `<bundle>_meta`): cf-agent does
   * while loading, cf-promises does not.
   */
  readonly metaPromises?: boolean;
  /** The line of an offset in the bundle's file, for messages that point at a promise. */
  readonly lineOf?: (offset: number) => number;
  /** A classes promise with `persistence` defined its class: the agent keeps it across runs. */
  persistClass?(name: string, minutes: number, tags: readonly string[]): void;
  /**
   * Whether the promise's cached function calls run again in this turn
   * (its action body says `ifelapsed => "0"`; bodies are the agent's).
   */
  bypassesFunctionCache?(promise: PromiseNode, bindings: ReadonlyMap<string, string>): boolean;
}

/** Pre-evaluates one bundle; `sourcePath` gives `this.promise_filename`. */
export function resolveBundle(
  ctx: EvalContext,
  bundle: Bundle,
  sourcePath: string,
  hooks: ResolveHooks = {},
): void {
  ctx.pushFrame(bundle.namespace, bundle.name.text, bundleThisVars(sourcePath));
  ctx.callStack.push({ type: "bundle", json: () => bundleJson(bundle, sourcePath) });
  try {
    const common = bundle.type.text === "common";
    if (hooks.metaPromises) resolveSections(ctx, bundle, "meta", hooks, sourcePath);
    resolveSections(ctx, bundle, "vars", hooks, sourcePath);
    if (common) {
      resolveSections(ctx, bundle, "classes", hooks, sourcePath);
      resolveSections(ctx, bundle, "vars", hooks, sourcePath);
    }
  } finally {
    ctx.callStack.pop();
    ctx.popFrame();
  }
}

/** The bundle as `callstack_callers()` shows it; the file is read only if asked. */
function bundleJson(bundle: Bundle, sourcePath: string): JsonValue {
  let source: SourceFile;
  try {
    source = new SourceFile(sourcePath, readFileSync(sourcePath, "utf8"));
  } catch {
    source = new SourceFile(sourcePath, "");
  }
  return bundleToJson(bundle, sourcePath, (span) => source.positionAt(span[0]).line) as JsonValue;
}

/**
 * Evaluates the `vars`, `classes` or `meta` promises of one bundle whose
 * frame the caller has pushed (cf-serverd evaluates its bundles type by
 * type this way, with its own types in between).
 */
export function resolveSections(
  ctx: EvalContext,
  bundle: Bundle,
  type: "vars" | "classes" | "meta",
  hooks: ResolveHooks,
  sourcePath: string,
): void {
  const common = bundle.type.text === "common";
  for (const section of bundle.sections) {
    if (section.type.text !== type) continue;
    ctx.callStack.push({ type: "promise_type", promiseType: type });
    try {
      for (const group of section.groups) {
        if (!isGuardTrue(ctx, group.guard)) continue;
        const classes = group.guard?.quoted === false ? group.guard.expression : "any";
        for (const promise of group.promises) {
          ctx.callStack.push({
            type: "promise",
            promiseType: type,
            promiser: promise.promiser.value,
            classes,
          });
          try {
            if (type === "classes") {
              const ref = () => promiseRef(bundle, promise, sourcePath, hooks.lineOf);
              resolveClassPromise(ctx, promise, common, ref, hooks);
            } else
              resolveVarPromise(ctx, promise, hooks, type === "meta" ? `${bundle.name.text}_meta` : null);
          } finally {
            ctx.callStack.pop();
          }
        }
      }
    } finally {
      ctx.callStack.pop();
    }
  }
}

/** Whether a class guard holds; quoted guards are expanded first. */
export function isGuardTrue(
  ctx: EvalContext,
  guard: ClassGuard | null,
  options: ExpandOptions = {},
): boolean {
  if (!guard) return true;
  const expression = guard.quoted ? expandString(ctx, guard.expression, options) : guard.expression;
  if (hasUnresolvedReference(expression)) return false;
  return ctx.checkExpression(expression);
}

function attribute(promise: PromiseNode, name: string): Attribute | undefined {
  return promise.attributes.find((a) => a.name.text === name);
}

/**
 * `if`/`ifvarclass` must hold and `unless` must not; an expression that
 * cannot be evaluated skips the promise either way.
 */
export function isPromiseEnabled(ctx: EvalContext, promise: PromiseNode, options: ExpandOptions): boolean {
  for (const name of ["ifvarclass", "if"]) {
    const found = attribute(promise, name);
    if (found && conditionValue(ctx, found.value, options) !== true) return false;
  }
  const unless = attribute(promise, "unless");
  if (unless && conditionValue(ctx, unless.value, options) !== false) return false;
  return !dependsOnAnything(ctx, promise, options);
}

/**
 * While loading no promise has been kept or repaired yet, so a promise that
 * depends on handles (`depends_on`) is left out, as 3.21's expansion does.
 */
function dependsOnAnything(ctx: EvalContext, promise: PromiseNode, options: ExpandOptions): boolean {
  const dependsOn = attribute(promise, "depends_on");
  if (!dependsOn) return false;
  const value = expandRval(ctx, dependsOn.value, options);
  if (!value) return false;
  return isList(value) ? value.value.length > 0 : isScalar(value) && value.value !== "";
}

function conditionValue(ctx: EvalContext, rval: Rval, options: ExpandOptions): boolean | undefined {
  const value = expandRval(ctx, rval, options);
  if (!value || !isScalar(value)) return undefined;
  if (value.value.includes("$") || value.value.includes("@")) return undefined;
  return ctx.checkExpression(value.value);
}

function resolveVarPromise(
  ctx: EvalContext,
  promise: PromiseNode,
  hooks: ResolveHooks,
  scope: string | null = null,
): void {
  const typed = typedVarAttribute(promise);
  if (!typed) return;
  for (const bindings of iterate(ctx, iterationTexts(promise), callsIfelse(promise.attributes))) {
    const options = simulateOptions(ctx, promise, turnOptions(promise, bindings, hooks));
    if (!isPromiseEnabled(ctx, promise, options)) continue;
    const lval = expandString(ctx, promise.promiser.value, options);
    if (hasUnresolvedReference(lval)) continue;
    storeVarValue(
      ctx,
      promise,
      { lval, type: typed.name.text, scope },
      expandRval(ctx, typed.value, options),
      {
        options,
        hooks,
      },
    );
  }
}

/** The attribute that gives a vars or meta promise its type and value (`string => ...`). */
export function typedVarAttribute(promise: PromiseNode): Attribute | undefined {
  return promise.attributes.find((a) => VAR_TYPES.has(a.name.text));
}

/**
 * Sets the variable of one iteration of a vars (or meta) promise from the
 * value its typed attribute evaluated to (undefined: a function failed, and
 * nothing is set), then applies its `classes` body through the hooks.
 */
export function storeVarValue(
  ctx: EvalContext,
  promise: PromiseNode,
  target: { readonly lval: string; readonly type: string; readonly scope: string | null },
  evaluated: Value | undefined,
  how: { readonly options: ExpandOptions; readonly hooks: ResolveHooks },
): void {
  const { options, hooks } = how;
  const ref = parseVarRef(target.lval);
  // A dotted promiser (`"report_data.x"`) sets `x` in the scope it names, unless
  // that is another bundle of the policy (3.21 refuses the injection).
  if (target.scope === null && injectsIntoBundle(ctx, ref.scope)) return;
  const computed = dropUndefined(ctx, promise, expandFinalValue(ctx, evaluated, options), options);
  const value = computed && isVarType(target.type) ? coerce(target.type, computed) : undefined;
  if (!value) return;
  const scope = target.scope ?? ref.scope;
  ctx.setVariable(
    { ns: target.scope === null ? ref.ns : null, scope, name: ref.name, indices: ref.indices },
    value,
    promiseMeta(ctx, promise, options),
  );
  hooks.varPromiseKept?.(promise, options);
}

/**
 * `policy => "ifdefined"`: a list drops its items still unresolved (the
 * MPF's `@(def.control_agent_environment_vars_extra)`), as the agent's
 * vars promises do; a scalar stays as it stands.
 */
function dropUndefined(
  ctx: EvalContext,
  promise: PromiseNode,
  value: Value | undefined,
  options: ExpandOptions,
): Value | undefined {
  if (!value || !isList(value) || !value.value.some(hasUnresolvedReference)) return value;
  const policy = attribute(promise, "policy");
  const text = policy ? expandRval(ctx, policy.value, options) : undefined;
  if (!text || !isScalar(text) || text.value !== "ifdefined") return value;
  return { ...value, value: value.value.filter((item) => !hasUnresolvedReference(item)) };
}

/** Whether `scope` names another bundle of the policy read so far (not the one being evaluated). */
function injectsIntoBundle(ctx: EvalContext, scope: string | null): boolean {
  if (scope === null || scope === ctx.currentFrameOrNull()?.scope) return false;
  return ctx.policyBundles.some((b) => b.name.slice(b.name.indexOf(":") + 1) === scope);
}

function turnOptions(promise: PromiseNode, bindings: ReadonlyMap<string, string>, hooks: ResolveHooks) {
  return hooks.bypassesFunctionCache?.(promise, bindings)
    ? { bindings, bypassFunctionCache: true }
    : { bindings };
}

/**
 * Under `--simulate`, the options with `simulateSafe` when the promise's
 * `meta` holds `simulate_safe` (its unsafe function calls may run, as 3.21).
 */
export function simulateOptions(
  ctx: EvalContext,
  promise: PromiseNode,
  options: ExpandOptions,
): ExpandOptions {
  if (!ctx.skipUnsafeFunctions) return options;
  const meta = attribute(promise, "meta");
  if (!meta) return options;
  const value = expandRval(ctx, meta.value, options);
  const tags = value && isList(value) ? value.value : value && isScalar(value) ? [value.value] : [];
  return tags.includes("simulate_safe") ? { ...options, simulateSafe: true } : options;
}

/** `source=promise`, then the promise's `meta` tags; and its `comment` (as 3.21 keeps them). */
export function promiseMeta(ctx: EvalContext, promise: PromiseNode, options: ExpandOptions): EntryMeta {
  const tags = ["source=promise"];
  const meta = attribute(promise, "meta");
  const value = meta ? expandRval(ctx, meta.value, options) : undefined;
  if (value && isList(value)) tags.push(...value.value);
  else if (value && isScalar(value)) tags.push(value.value);
  const comment = attribute(promise, "comment");
  const text = comment ? expandRval(ctx, comment.value, options) : undefined;
  return text && isScalar(text) ? { tags, comment: text.value } : { tags };
}

/** 3.21's PromiseRef, as pre-evaluation can say it. */
function promiseRef(
  bundle: Bundle,
  promise: PromiseNode,
  path: string,
  lineOf: ((offset: number) => number) | undefined,
): string {
  const line = lineOf?.(promise.promiser.span[0]);
  return line === undefined
    ? `Promise belongs to bundle '${bundle.name.text}' near line 0`
    : `Promise belongs to bundle '${bundle.name.text}' in file '${path}' near line ${line}`;
}

function resolveClassPromise(
  ctx: EvalContext,
  promise: PromiseNode,
  common: boolean,
  ref: () => string,
  hooks: ResolveHooks,
): void {
  for (const bindings of iterate(ctx, iterationTexts(promise))) {
    const options = simulateOptions(ctx, promise, turnOptions(promise, bindings, hooks));
    if (!isPromiseEnabled(ctx, promise, options)) continue;
    verifyClassPromise(
      ctx,
      {
        promiser: expandString(ctx, promise.promiser.value, options),
        bundleType: common ? "common" : "agent",
        raw: (name) => attribute(promise, name)?.value,
        expand: (rval) => expandRval(ctx, rval, options),
      },
      {
        define: (name, scope, persist) => {
          const meta = promiseMeta(ctx, promise, options);
          ctx.defineClass(name, scope === "bundle", meta);
          if (persist) hooks.persistClass?.(name, persist, meta.tags ?? []);
        },
        error: (message) => ctx.note("error", message),
        ref: (level) => ctx.note(level, ref()),
        verbose: (message) => ctx.note("verbose", message),
      },
    );
  }
}

/**
 * A policy path as `this.promise_filename` shows it: 3.21 prefixes a
 * relative path with the working directory without normalising it
 * (`./t.cf` gives `/dir/./t.cf`).
 */
export function absolutePolicyPath(path: string): string {
  return isAbsolute(path) ? path : `${process.cwd()}/${path}`;
}

/** `this.promise_filename` and `this.promise_dirname` of a bundle of the policy file `sourcePath`. */
export function bundleThisVars(sourcePath: string): Map<string, Value> {
  const file = absolutePolicyPath(sourcePath);
  return new Map<string, Value>([
    ["promise_filename", scalar(file)],
    ["promise_dirname", scalar(dirname(file))],
  ]);
}

/** The texts the iteration engine scans for a promise: promiser, then attribute values. */
function iterationTexts(promise: PromiseNode): string[] {
  const texts = [promise.promiser.value];
  for (const attribute of promise.attributes) collectIterationTexts(attribute.value, texts);
  return texts;
}
