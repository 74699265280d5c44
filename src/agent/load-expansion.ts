/**
 * cf-agent's expansion of every promise while loading.
 *
 * Why: after all files are loaded and pre-evaluated, and before the last
 * pre-evaluation of the whole policy, cf-agent 3.21 (not cf-promises)
 * expands every promise of every bundle once, called or not, each bundle
 * without its arguments (loading.c, `ExpandPromise(..., CommonEvalPromise)`).
 * That is observable: every function call in every attribute runs then, so
 * a system function (execresult, returnszero, ...) runs its command even in
 * a bundle that is never called, and its cached result is what the real run
 * sees later — a `returnszero("test -f x")` evaluated before a files promise
 * makes x is false for the whole run. Errors of functions are logged then
 * too. Vars and meta promises are also evaluated again and their variables
 * set (VerifyVarPromise), with their `classes` bodies.
 *
 * Each promise goes through the engine's own steps: the class guard, the
 * bodies (promise-deref.ts), one turn per combination of iterated lists
 * (eval/iteration.ts), the promiser, a classes promise whose class is set
 * already is left alone, the `if`/`unless`/`depends_on` exclusions
 * (promise-conditions.ts; no promise is kept yet, so any dependency
 * excludes), then every attribute evaluated in the order written, bodies'
 * in place of their reference, and the values checked against the syntax
 * as 3.21 does (a misfit is fatal). Nothing acts and nothing is reported.
 */
import { basename } from "node:path";
import type { Bundle, ClassGuard, Promise as PromiseNode, Rval } from "../language/ast.js";
import { getFunction, getPromiseAttribute } from "../language/syntax/index.js";
import { canonify } from "../eval/class-expression.js";
import type { EvalContext } from "../eval/context.js";
import { type ExpandOptions, expandRval, expandString, hasUnresolvedReference } from "../eval/expand.js";
import { callsIfelse, iterate } from "../eval/iteration.js";
import {
  type ResolveHooks,
  bundleThisVars,
  isGuardTrue,
  simulateOptions,
  storeVarValue,
  typedVarAttribute,
} from "../eval/resolve.js";
import { isScalar, scalar } from "../eval/values.js";
import { ActivePromiseImpl, type DerefPromise } from "./active-promise.js";
import { defaultBodyNames } from "./default-bodies.js";
import type { Logger } from "../system/logger.js";
import type { Located, PolicyIndex } from "../promises/policy-index.js";
import { type ConditionState, conditionsHold } from "./promise-conditions.js";
import {
  type DerefSources,
  derefPromise,
  promiseIterationTexts,
  setsIfElapsedZero,
} from "./promise-deref.js";
import { literalFits, recheckConstraints } from "./recheck.js";

export interface LoadExpansion {
  readonly ctx: EvalContext;
  readonly index: PolicyIndex;
  readonly log: Logger;
  /** The line of an offset in a policy file (for `this.promise_linenumber` and default handles). */
  readonly lineOf: (file: string, offset: number) => number;
  /** Pre-evaluation's hooks: the `classes` bodies of vars promises, persistent classes. */
  readonly hooks: ResolveHooks;
}

/** Exclusions at load: not the last pass, and no promise has been kept yet. */
const AT_LOAD: ConditionState = { lastPass: false, dependencyDone: () => false };

/** Checked before the other attributes; evaluated only by the exclusion checks. */
const CONDITIONS: ReadonlySet<string> = new Set(["ifvarclass", "if", "unless", "depends_on"]);

/**
 * Expands every promise of every bundle, as cf-agent does while loading.
 * Returns false after an error cf-agent cannot continue after (logged).
 */
export function expandEveryPromise(load: LoadExpansion): boolean {
  let fatal = false;
  const sources: DerefSources = {
    ctx: load.ctx,
    index: load.index,
    defaultBodies: defaultBodyNames(load.index),
    problem: (message, isFatal) => {
      load.log.error(message);
      if (isFatal) fatal = true;
    },
    verbose: (message) => load.log.verbose(message),
  };
  const expansion: Expansion = {
    ...load,
    sources,
    canonicalFileNames: new Map(),
    failed: () => fatal,
    fail: () => {
      fatal = true;
    },
  };
  for (const located of load.index.allBundles()) {
    expandBundle(expansion, located);
    if (fatal) return false;
  }
  return true;
}

interface Expansion extends LoadExpansion {
  readonly sources: DerefSources;
  /** Policy file names canonified, for default handles. */
  readonly canonicalFileNames: Map<string, string>;
  failed(): boolean;
  fail(): void;
}

/** A bundle's promises, its frame pushed without arguments; sections of one type together, as 3.21 keeps them. */
function expandBundle(expansion: Expansion, located: Located<Bundle>): void {
  const { ctx } = expansion;
  const bundle = located.block;
  ctx.pushFrame(bundle.namespace, bundle.name.text, bundleThisVars(located.file));
  try {
    const types = [...new Set(bundle.sections.map((s) => s.type.text))];
    for (const type of types) {
      for (const section of bundle.sections) {
        if (section.type.text !== type) continue;
        for (const group of section.groups) {
          for (const node of group.promises) {
            expandPromise(expansion, located, type, group.guard, node);
            if (expansion.failed()) return;
          }
        }
      }
    }
  } finally {
    ctx.popFrame();
  }
}

function expandPromise(
  expansion: Expansion,
  located: Located<Bundle>,
  type: string,
  guard: ClassGuard | null,
  node: PromiseNode,
): void {
  const { ctx } = expansion;
  // A quoted guard is an `ifvarclass` in 3.21, checked with the exclusions.
  if (!guard?.quoted && !isGuardTrue(ctx, guard)) return;
  if (!guard?.quoted && isInert(expansion, located.block.type.text, type, node)) return;
  const deref = derefPromise(
    expansion.sources,
    located,
    type,
    node,
    guard?.quoted ? guard.expression : undefined,
  );
  if (expansion.failed()) return;
  const line = expansion.lineOf(located.file, node.promiser.span[0]);
  const frame = ctx.currentFrame();
  frame.thisVars.set("promise_linenumber", scalar(String(line)));
  frame.thisVars.delete("promiser");
  const handle = handleOf(expansion, deref, line);
  frame.thisVars.set("handle", scalar(handle));
  evaluateBodyArguments(expansion, node, deref);
  const texts = promiseIterationTexts(deref);
  const onEmptyList = (name: string) =>
    expansion.log.verbose(`Skipping iteration since variable '${name}' resolves to an empty list`);
  for (const bindings of iterate(ctx, texts, callsIfelse(deref.attributes.values()), onEmptyList)) {
    const options = simulateOptions(ctx, node, {
      bindings,
      bypassFunctionCache: setsIfElapsedZero(ctx, deref, bindings),
    });
    expandIteration(expansion, deref, { options, handle, line });
    if (expansion.failed()) return;
  }
}

/** The types whose promises set something when expanded (variables, classes). */
const SETTING_TYPES: ReadonlySet<string> = new Set(["vars", "meta", "classes"]);

/**
 * Whether expanding the promise can do nothing at all, so that it may be
 * skipped: of a type that sets nothing, no default bodies in the policy,
 * and only literal strings (no variable, no list, no call, no body, no
 * condition) that fit their attributes, as they must to have been parsed.
 * Most promises of large policies are so, and skipping them keeps this
 * pass cheap (1,000 such promises took ~13 ms).
 */
function isInert(expansion: Expansion, bundleType: string, type: string, node: PromiseNode): boolean {
  if (SETTING_TYPES.has(type) || expansion.sources.defaultBodies.size > 0) return false;
  if (holdsReference(node.promiser.value)) return false;
  for (const { name, value } of node.attributes) {
    if (value.kind !== "string" || holdsReference(value.value) || CONDITIONS.has(name.text)) return false;
    if (!literalFits(bundleType, type, name.text, value.value)) return false;
  }
  return true;
}

/** A `$(...)` or `@(...)` in the text, or anything like one. */
function holdsReference(text: string): boolean {
  return text.includes("$") || text.includes("@");
}

/**
 * A function call given as a body's argument (`action => a(readfile(...))`)
 * runs once per promise, before its iterations, as 3.21 binds body
 * arguments; a call that fails is noted (verbose) and left for later.
 */
function evaluateBodyArguments(expansion: Expansion, node: PromiseNode, deref: DerefPromise): void {
  const { ctx, log } = expansion;
  for (const attribute of node.attributes) {
    const { value } = attribute;
    if (value.kind !== "call" || !deref.bodies.has(attribute.name.text)) continue;
    for (const argument of value.args) {
      if (argument.kind !== "call") continue;
      if (expandRval(ctx, argument, simulateOptions(ctx, node, {})) !== undefined) continue;
      log.verbose(
        `Embedded function argument does not resolve to a name - probably too many evaluation levels for '${argument.name}'`,
      );
    }
  }
}

/** One turn: 3.21's ExpandDeRefPromise and CommonEvalPromise, and VerifyVarPromise for variables. */
function expandIteration(
  expansion: Expansion,
  deref: DerefPromise,
  turn: { readonly options: ExpandOptions; readonly handle: string; readonly line: number },
): void {
  const { ctx, log } = expansion;
  const promiser = expandString(ctx, deref.node.promiser.value, turn.options);
  const frame = ctx.currentFrame();
  frame.thisVars.set("promiser", scalar(promiser));
  if (deref.type === "classes" && ctx.isClassDefined(canonify(promiser))) return;
  const active = new ActivePromiseImpl(ctx, deref, promiser, 0, turn.handle, turn.options, turn.line);
  if (!conditionsHold(ctx, log, active, AT_LOAD)) return;
  // As 3.21, a files promise's constraints see `$(this.promiser)` unexpanded.
  if (deref.type === "files") frame.thisVars.delete("promiser");
  evaluateAttributes(active, log);
  const misfit = recheckConstraints(active);
  if (misfit) {
    log.error(misfit);
    log.error("Fatal CFEngine error: Cannot continue");
    expansion.fail();
    return;
  }
  if (deref.type === "vars" || deref.type === "meta") storeVariable(expansion, active, promiser);
}

/**
 * Every attribute that calls a function, in the order written, a body's in
 * place of its reference; default bodies last.
 */
function evaluateAttributes(active: ActivePromiseImpl, log: Logger): void {
  const { deref } = active;
  const bundleType = deref.bundle.block.type.text;
  for (const attribute of deref.node.attributes) {
    const name = attribute.name.text;
    if (CONDITIONS.has(name)) continue;
    if (deref.attributes.get(name) === attribute) {
      if (callsFunction(attribute.value) && !isBundleReference(bundleType, deref.type, name, attribute.value))
        active.value(name);
      if (name === "comment") checkComment(log, active);
      continue;
    }
    evaluateBody(active, name);
  }
  for (const name of deref.bodies.keys()) {
    if (!deref.node.attributes.some((a) => a.name.text === name)) evaluateBody(active, name);
  }
}

/** A comment must be a string: 3.21 says so (for a call that failed too) and goes on. */
function checkComment(log: Logger, active: ActivePromiseImpl): void {
  const value = active.value("comment");
  if (value && isScalar(value)) return;
  const kind = value === undefined ? "call" : value.type === "data" ? "container" : "list";
  log.error(`Comments can only be scalar objects, not '${kind}' in '${active.promiser}'`);
}

function evaluateBody(active: ActivePromiseImpl, name: string): void {
  const body = active.deref.bodies.get(name);
  if (!body) return;
  for (const [attribute, { value }] of body.attributes)
    if (callsFunction(value)) active.bodyValue(name, attribute);
}

/** Whether a value holds a call: only calls can have effects (a string's expansion has none). */
function callsFunction(rval: Rval): boolean {
  if (rval.kind === "call") return true;
  return rval.kind === "list" && rval.items.some(callsFunction);
}

/** A bundle named with its arguments (`usebundle => b(x)`): 3.21 expands, never calls, the arguments here. */
function isBundleReference(bundleType: string, type: string, name: string, value: Rval): boolean {
  const syntax = getPromiseAttribute(bundleType, type, name);
  if (syntax) return syntax.type === "bundle";
  return value.kind === "call" && getFunction(value.name) === undefined;
}

/**
 * VerifyVarPromise, as 3.21 runs it in this pass: the variable set from the
 * value just computed; a call that failed is made once more (and its error
 * logged again), as 3.21 keeps a failed call to evaluate it again.
 */
function storeVariable(expansion: Expansion, active: ActivePromiseImpl, lval: string): void {
  const { ctx, hooks } = expansion;
  const { deref, options } = active;
  const typed = typedVarAttribute(deref.node);
  if (!typed) return;
  const evaluated = active.value(typed.name.text) ?? expandRval(ctx, typed.value, options);
  if (hasUnresolvedReference(lval)) return;
  const scope = deref.type === "meta" ? `${deref.bundle.block.name.text}_meta` : null;
  storeVarValue(ctx, deref.node, { lval, type: typed.name.text, scope }, evaluated, { options, hooks });
}

/** `this.handle`: the promise's own handle (canonified), else 3.21's `promise_<file>_<line>`. */
function handleOf(expansion: Expansion, deref: DerefPromise, line: number): string {
  const own = deref.attributes.get("handle");
  const value = own ? expandRval(expansion.ctx, own.value) : undefined;
  if (value && isScalar(value)) return canonify(value.value);
  const file = deref.bundle.file;
  let canonical = expansion.canonicalFileNames.get(file);
  if (canonical === undefined) {
    canonical = canonify(basename(file));
    expansion.canonicalFileNames.set(file, canonical);
  }
  return `promise_${canonical}_${line}`;
}
