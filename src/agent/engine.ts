/**
 * The evaluation of bundles, as cf-agent 3.21 does it.
 *
 * A bundle runs in three passes. In each pass its promise types run in the
 * bundle type's normal order (data from the syntax tables), promises of
 * one type in the order written, then the custom promise types in the
 * order they first appear. After `classes` in every pass, the bundle's
 * variables are evaluated again and then its `defaults`.
 *
 * Each promise is expanded the way `ExpandPromise` does: the class guard
 * first, bodies next (arguments substituted as written), then one turn per
 * combination of iterated lists; in each turn `if`/`ifvarclass`/`unless`
 * and `depends_on` may skip it, a type that acts on the system acts once
 * per run for each distinct expansion, and the outcome defines the
 * classes of the promise's `classes` body.
 */
import { RunState } from "../promises/run-state.js";
import { basename } from "node:path";
import type { Bundle, ClassGuard, Promise as PromiseNode, PromiseSection, Rval } from "../language/ast.js";
import { bundleToJson } from "../language/print/json.js";
import { getFunction, promiseTypeOrder } from "../language/syntax/index.js";
import { canonify } from "../eval/class-expression.js";
import type { EntryMeta, EvalContext } from "../eval/context.js";
import { type ExpandOptions, expandRval, expandString } from "../eval/expand.js";
import { bundleThisVars, isGuardTrue, simulateOptions } from "../eval/resolve.js";
import { type JsonValue, type Value, isList, isScalar, scalar } from "../eval/values.js";
import type {
  ActivePromise,
  BundleCallInfo,
  EditSession,
  PromiseEnvironment,
  PromiseType,
} from "../promises/contract.js";
import type { PromiseTypeRegistry } from "../promises/registry.js";
import { unsupportedPromiseType, unsupportedReason } from "../promises/unsupported.js";
import { asText, isUnresolved } from "../promises/values.js";
import { parseCfInt } from "../eval/numbers.js";
import { ActivePromiseImpl, type DerefPromise } from "./active-promise.js";
import { type BodyInstance, resolveBody } from "../promises/bodies.js";
import { callsIfelse, iterate } from "../eval/iteration.js";
import { type AgentControl, controlAttribute } from "./agent-control.js";
import type { LockStore } from "./locks.js";
import type { Logger } from "../system/logger.js";
import { type Outcome, combineOutcomes } from "../promises/outcome.js";
import { applyFinalOutcomeClasses } from "../promises/outcome-classes.js";
import { defaultBodyNames } from "./default-bodies.js";
import { logVariableComment } from "../promises/vars.js";
import type { ChangesChroot } from "../promises/simulate/changes-chroot.js";
import { summarizeTransaction } from "./transaction-log.js";
import {
  RunTrail,
  bannerStatus,
  bundleAccounting,
  bundleBanner,
  endBundleBanner,
  formatArguments,
  promiseBanner,
  quoteArgument,
  typeBanner,
} from "../promises/ornaments.js";
import type { Located, PolicyIndex } from "../promises/policy-index.js";
import type { RunRecorder } from "./recorder.js";
import { isStaticPromise } from "./static-promise.js";
import { type ConditionState, conditionsHold } from "./promise-conditions.js";
import { derefPromise, promiseIterationTexts, setsIfElapsedZero } from "./promise-deref.js";

const NO_BINDINGS: ReadonlyMap<string, string> = new Map();

/** Passes over each bundle, as in cf-agent. */
export const PASSES = 3;

export interface EngineOptions {
  readonly dryRun: boolean;
  readonly control: AgentControl;
  /** Persistent locks; absent with `-K`. */
  readonly locks?: LockStore;
  /** `--simulate`: the chroot files promises change instead of the real files. */
  readonly changesChroot?: ChangesChroot;
}

export interface EngineHooks {
  /** A report line (without the `R: ` prefix). */
  report(text: string): void;
  /** A class defined with `persistence`/`persist_time`, and its tags. */
  persistClass(name: string, minutes: number, tags: readonly string[]): void;
  /** A persistent class cancelled by policy. */
  forgetPersistentClass?(name: string): void;
}

/**
 * How many bundle calls may run one inside the other (methods, edit_line,
 * and the bundles those call). Real policy stays far below; past it a call
 * fails with an error instead of overflowing the stack.
 */
export const MAX_BUNDLE_DEPTH = 200;

export class Engine implements PromiseEnvironment {
  /** Stand-ins for promise types tend does not implement, by name. */
  private readonly unsupportedTypes = new Map<string, PromiseType>();
  /** Expanded promises already acted on in this run. */
  private readonly done = new Set<string>();
  /** Static promises (see static-promise.ts) already done: later passes skip them at once. */
  private readonly staticDone = new WeakSet<PromiseNode>();
  private readonly staticNodes = new WeakMap<PromiseNode, boolean>();
  /** Policy file names canonified, for default handles. */
  private readonly canonicalFileNames = new Map<string, string>();
  /** Outcomes of promises by handle, for `depends_on`. */
  private readonly handles = new Map<string, Outcome>();
  /** Set when an abort class is defined, or on a fatal error: the run stops. */
  aborted = false;
  /** Set by a fatal error (cf-agent exits 1). */
  failedFatally = false;
  /** Set when a bundle abort class is defined: the current bundle stops. */
  private bundleAborted = false;
  /** How many bundle calls are under way, one inside the other. */
  private bundleDepth = 0;
  /** `bodydefault:` bodies of the policy (usually none). */
  private readonly defaultBodies: ReadonlySet<string>;
  /** The index of the iteration of the promise being evaluated (for the call stack). */
  private iterationIndex = 0;
  /** The banner a type that announces its promises itself has not shown yet. */
  private pendingBanner: (() => void) | undefined;
  /** The file the edit bundle being run edits, if any. */
  editing: EditSession | undefined;
  /** What the verbose log needs to know: pass, stack path, bundle arguments, counters. */
  readonly trail: RunTrail;
  /** The promise types' own state of this run. */
  readonly runState = new RunState();
  /** What `conditionsHold` asks, in the first passes and in the last (built once: it runs per iteration). */
  private readonly passState: ConditionState = {
    lastPass: false,
    dependencyDone: (handle) => this.dependencyDone(handle),
  };
  private readonly lastPassState: ConditionState = { ...this.passState, lastPass: true };

  constructor(
    readonly ctx: EvalContext,
    readonly index: PolicyIndex,
    readonly log: Logger,
    private readonly types: PromiseTypeRegistry,
    private readonly recorder: RunRecorder,
    private readonly hooks: EngineHooks,
    private readonly options: EngineOptions,
  ) {
    this.defaultBodies = defaultBodyNames(index);
    this.trail = new RunTrail(log);
  }

  get dryRun(): boolean {
    // Under --simulate the edits of a files promise act too, on the copy in the chroot.
    if (this.options.changesChroot && this.editing !== undefined) return false;
    return this.options.dryRun;
  }

  get changesChroot(): ChangesChroot | undefined {
    return this.options.changesChroot;
  }

  report(text: string): void {
    this.hooks.report(text);
  }

  findBundle(name: string, types: readonly string[] = ["agent", "common"]): Located<Bundle> | undefined {
    return this.index.findBundle(name, this.ctx.currentNamespace(), types);
  }

  defineClass(name: string, scope: "bundle" | "namespace", persistMinutes?: number, meta?: EntryMeta): void {
    this.ctx.defineClass(name, scope === "bundle", meta);
    if (persistMinutes && persistMinutes > 0) this.hooks.persistClass(name, persistMinutes, meta?.tags ?? []);
    this.checkAbort(name);
  }

  cancelPersistentClass(name: string): void {
    this.hooks.forgetPersistentClass?.(name);
  }

  findBody(type: string, name: string): BodyInstance | undefined {
    const ref = { kind: "symbol", name, span: [0, 0] } as const;
    return resolveBody(this.ctx, this.index, type, ref, () => {});
  }

  /** The banner of the promise being evaluated, for types that announce it themselves; once, unless `again`. */
  promiseBanner(again = false): void {
    const banner = this.pendingBanner;
    if (!again) this.pendingBanner = undefined;
    banner?.();
  }

  acquireLock(name: string, ifelapsedMinutes = this.options.control.ifelapsed): boolean {
    return this.options.locks?.acquire(name, ifelapsedMinutes) ?? true;
  }

  controlValue(type: string, name: string): Value | undefined {
    const rval = controlAttribute(this.ctx, this.index, type, name);
    return rval && expandRval(this.ctx, rval);
  }

  /** An error cf-agent cannot continue after: logged, and the run stops with exit 1. */
  fatal(message: string): void {
    this.log.error(message);
    this.aborted = true;
    this.failedFatally = true;
  }

  /**
   * Stops the run or the bundle when a class matches an abort pattern; as in
   * 3.21, the bundle also stops once an `abortbundleclasses` item holds as a
   * class expression.
   */
  checkAbort(name: string): void {
    const { abortClasses, abortBundleClasses, abortBundleExpressions } = this.options.control;
    const bundle = this.ctx.currentFrameOrNull()?.scope;
    if (!this.bundleAborted && abortBundleClasses.some((re) => re.test(name))) {
      this.bundleAborted = true;
      this.log.error(`Bundle '${bundle ?? "(unknown)"}' aborted on defined class '${name}'`);
    }
    if (!this.aborted && abortClasses.some((re) => re.test(name))) {
      this.aborted = true;
      this.log.notice(`cf-agent aborted on defined class '${name}'`);
    }
    if (this.bundleAborted || bundle === undefined) return;
    const holding = abortBundleExpressions.find((expression) => this.ctx.checkExpression(expression));
    if (holding === undefined) return;
    this.log.error(`Setting abort for '${holding}' when setting class '${name}'`);
    this.bundleAborted = true;
  }

  /** Whether `ignore_missing_bundles` lets a run go on without a bundle. */
  get ignoresMissingBundles(): boolean {
    return this.options.control.ignoreMissingBundles;
  }

  // ---- bundles -------------------------------------------------------------

  runBundle(
    located: Located<Bundle>,
    args: readonly Value[],
    inherit: boolean,
    edit?: EditSession,
    call: BundleCallInfo = {},
  ): Outcome {
    const { argsText } = call;
    const bundle = located.block;
    const caller = this.ctx.currentFrameOrNull();
    const inherited =
      inherit && caller
        ? [...caller.localClasses].flatMap((c) => (c.includes(":") ? [c] : [c, `${caller.ns}:${c}`]))
        : [];
    const thisVars = bundleThisVars(located.file);
    // 3.21's banners and accounting are for agent bundles, not edit bundles.
    if (!edit) bundleBanner(this.log, bundle.name.text, argsText);
    // A call without arguments runs a bundle with parameters too, leaving them unset, as in 3.21.
    if (args.length > 0 && (bundle.params ?? []).length !== args.length)
      return this.arityMismatch(bundle, args, call);
    if (this.bundleDepth >= MAX_BUNDLE_DEPTH) {
      // cf-agent has no limit: endless recursion crashes it (SIGSEGV).
      this.log.error(
        `Bundle '${bundle.name.text}' is called ${MAX_BUNDLE_DEPTH + 1} bundles deep, more than tend allows (${MAX_BUNDLE_DEPTH}): endless recursion?`,
      );
      return "failed";
    }
    const frame = this.ctx.pushFrame(bundle.namespace, bundle.name.text, thisVars);
    const callFrames = this.pushBundleCallFrames(located);
    for (const name of inherited) frame.localClasses.add(name);
    this.trail.enterBundle(bundle.namespace, bundle.name.text);
    if (!edit) {
      this.trail.argsText = argsText;
      this.trail.argKinds = call.argKinds;
    }
    const counted = this.trail.counters.snapshot();
    const outerAborted = this.bundleAborted;
    const outerEdit = this.editing;
    this.bundleAborted = false;
    if (edit) {
      this.editing = edit;
      this.ctx.setVariable({ ns: null, scope: "edit", name: "filename", indices: [] }, scalar(edit.filename));
    }
    this.bundleDepth++;
    try {
      this.bindParameters(bundle, args);
      if (call.method) this.resolveBundle(located);
      if (!edit) for (const type of this.types.all()) type.bundleStarted?.(bundle.name.text, this);
      return this.runPasses(located, edit !== undefined);
    } finally {
      // 3.21 drops a bundle's parameters when the call returns.
      for (const param of bundle.params ?? []) {
        this.ctx.removeVariable({ ns: null, scope: null, name: param.text, indices: [] });
      }
      if (!edit) {
        if (!this.failedFatally)
          bundleAccounting(this.log, bundle.name.text, bundle.namespace, this.trail.counters, counted);
        this.trail.argsText = undefined;
        this.trail.argKinds = undefined;
      }
      this.trail.leaveBundle();
      this.bundleDepth--;
      this.bundleAborted = outerAborted;
      this.editing = outerEdit;
      for (let i = 0; i < callFrames; i++) this.ctx.callStack.pop();
      this.ctx.popFrame();
    }
  }

  /**
   * The call stack frames of a bundle: run by a promise (methods,
   * edit_line) it sits above that promise's iteration frame. Returns how
   * many frames were pushed.
   */
  private pushBundleCallFrames(located: Located<Bundle>): number {
    const stack = this.ctx.callStack;
    const byPromise = stack.top()?.type === "promise";
    if (byPromise) stack.push({ type: "iteration", index: this.iterationIndex });
    stack.push({
      type: "bundle",
      json: () =>
        bundleToJson(located.block, located.file, (span) =>
          this.recorder.lineOf(located.file, span[0]),
        ) as JsonValue,
    });
    return byPromise ? 2 : 1;
  }

  /** Counts an outcome in the run's accounting (for types that decide when they count). */
  audit(outcome: Outcome): void {
    this.trail.counters.note(outcome);
  }

  /** The closing banner of a bundle: its caller prints it once it is done with the call, as in 3.21. */
  endBundleBanner(name: string): void {
    if (!this.failedFatally) endBundleBanner(this.log, name);
  }

  /**
   * 3.21's BundleResolve before a method runs its bundle: the variables
   * (in a common bundle: variables, classes, variables) evaluated once,
   * silently, with the caller's pass.
   */
  private resolveBundle(located: Located<Bundle>): void {
    const pass = this.trail.pass;
    if (located.block.type.text === "common") {
      this.runSections(located, "vars", pass, true);
      this.runSections(located, "classes", pass, true);
    }
    this.runSections(located, "vars", pass, true);
  }

  /** A bundle called with the wrong number of arguments: fatal, with 3.21's messages. */
  private arityMismatch(bundle: Bundle, args: readonly Value[], call: BundleCallInfo): Outcome {
    const formal = formatArguments((bundle.params ?? []).map((p) => `"${p.text}"`));
    const actual = call.argsText ?? formatArguments(args.map((a) => quoteArgument(a)));
    this.log.error(`While constructing scope '${bundle.name.text}'\nFormal = ${formal}, Actual = ${actual}`);
    this.fatal("Fatal CFEngine error: Augment scope, formal and actual parameter mismatch is fatal");
    return "failed";
  }

  private bindParameters(bundle: Bundle, args: readonly Value[]): void {
    (bundle.params ?? []).forEach((param, i) => {
      const kind = this.trail.argKinds?.[i] ?? "s";
      this.log.verbose(
        `V:     +  Private parameter: '${param.text}' in scope '${bundle.name.text}' (type: ${kind}) in pass ${this.trail.pass}`,
      );
      const value = args[i];
      if (value) this.ctx.setVariable({ ns: null, scope: null, name: param.text, indices: [] }, value);
    });
  }

  private runPasses(located: Located<Bundle>, editing: boolean): Outcome {
    const bundle = located.block;
    const order = promiseTypeOrder(bundle.type.text) ?? [];
    const custom = bundle.sections
      .map((s) => s.type.text)
      .filter((t, i, all) => !order.includes(t) && all.indexOf(t) === i);
    let outcome: Outcome = "skipped";
    for (let pass = 1; pass <= PASSES && !this.stopped(); pass++) {
      this.trail.pass = pass;
      for (const type of [...order, ...custom]) {
        if (!editing && hasPromises(bundle, type)) typeBanner(this.log, type, pass);
        outcome = combineOutcomes(outcome, this.runSections(located, type, pass));
        if (!editing && hasPromises(bundle, type)) this.types.get(type)?.sectionFinished?.(this);
        if (this.stopped()) break;
        if (type === "classes" && hasPromises(bundle, "classes")) {
          // Evaluated again, silently (3.21's BundleResolve, after a bundle's classes).
          this.runSections(located, "vars", pass, true);
          this.runSections(located, "defaults", pass, true);
        }
      }
    }
    return outcome;
  }

  private runSections(located: Located<Bundle>, type: string, pass: number, resolving = false): Outcome {
    let outcome: Outcome = "skipped";
    for (const section of located.block.sections) {
      if (section.type.text !== type) continue;
      const frame = { type: "promise_type", promiseType: type } as const;
      outcome = combineOutcomes(
        outcome,
        this.ctx.callStack.within(frame, () => this.runSection(located, section, pass, resolving)),
      );
      if (this.stopped()) return outcome;
    }
    return outcome;
  }

  private runSection(
    located: Located<Bundle>,
    section: PromiseSection,
    pass: number,
    resolving: boolean,
  ): Outcome {
    let outcome: Outcome = "skipped";
    const type = section.type.text;
    for (const group of section.groups) {
      for (const promise of group.promises) {
        // As 3.21, the pass is set again for each promise (a method's bundle changed it).
        this.trail.pass = pass;
        const evaluated = this.evaluatePromise(located, type, group.guard, promise, pass, resolving);
        outcome = combineOutcomes(outcome, evaluated);
        if (this.stopped()) return outcome;
      }
    }
    return outcome;
  }

  private stopped(): boolean {
    return this.aborted || this.bundleAborted;
  }

  // ---- promises ------------------------------------------------------------

  private evaluatePromise(
    located: Located<Bundle>,
    type: string,
    guard: ClassGuard | null,
    node: PromiseNode,
    pass: number,
    resolving: boolean,
  ): Outcome {
    const handler = this.handlerOf(type);
    // A quoted guard is an `ifvarclass` in 3.21: checked in every iteration.
    if (!guard?.quoted && !isGuardTrue(this.ctx, guard)) return "skipped";
    if (this.staticDone.has(node)) return "skipped";
    const deref = this.derefPromise(located, type, node, guard?.quoted ? guard.expression : undefined);
    // A body problem cf-agent cannot continue after (inherit_from) stops the run here.
    if (this.stopped()) return "skipped";
    const fixed = handler.oncePerRun === true && !handler.everyPass && this.isStatic(deref);
    const frame = this.ctx.currentFrame();
    const line = this.lineOf(located, node);
    frame.thisVars.set("promise_linenumber", scalar(String(line)));
    // `this.promiser` is not yet this promise's while its first promiser expands.
    frame.thisVars.delete("promiser");
    const classes = guard?.quoted === false ? guard.expression : "any";
    const promiseFrame = {
      type: "promise",
      promiseType: type,
      promiser: node.promiser.value,
      classes,
    } as const;
    const shownGuard = guard?.expression ?? "any";
    const onEmptyList = resolving
      ? undefined
      : (name: string) =>
          this.log.verbose(`Skipping iteration since variable '${name}' resolves to an empty list`);
    return this.ctx.callStack.within(promiseFrame, () => {
      let outcome: Outcome = "skipped";
      let index = 0;
      // A static promise has nothing to iterate over.
      for (const bindings of fixed
        ? [NO_BINDINGS]
        : iterate(
            this.ctx,
            promiseIterationTexts(deref),
            callsIfelse(deref.attributes.values()),
            onEmptyList,
          )) {
        this.iterationIndex = index++;
        outcome = combineOutcomes(
          outcome,
          // Built field by field: an object spread per iteration costs more than the rest of the turn.
          this.evaluateIteration(deref, handler.name, bindings, {
            pass,
            line,
            guard: shownGuard,
            resolving,
            fixed,
            iteration: index,
          }),
        );
        if (this.stopped()) break;
      }
      return outcome;
    });
  }

  private evaluateIteration(
    deref: DerefPromise,
    typeName: string,
    bindings: ReadonlyMap<string, string>,
    turn: IterationContext,
  ): Outcome {
    const { pass, line } = turn;
    const handler = this.handlerOf(typeName);
    const options = simulateOptions(this.ctx, deref.node, {
      bindings,
      bypassFunctionCache: setsIfElapsedZero(this.ctx, deref, bindings),
    });
    const ctx = this.ctx;
    const frame = ctx.currentFrame();
    this.setWith(deref, options, pass);
    const handle = this.handleOf(deref, options, line);
    frame.thisVars.set("handle", scalar(handle));
    const promiser = expandString(ctx, deref.node.promiser.value, options);
    frame.thisVars.set("promiser", scalar(promiser));
    const stackPath = this.trail.enterPromise(typeName, promiser, turn.iteration);
    // As 3.21 (ExpandDeRefPromise): a class already defined is not evaluated again.
    if (typeName === "classes" && ctx.isClassDefined(canonify(promiser))) return "skipped";
    const active = new ActivePromiseImpl(ctx, deref, promiser, pass, handle, options, line);
    if (!conditionsHold(ctx, this.log, active, pass === PASSES ? this.lastPassState : this.passState))
      return "skipped";
    if (
      handler.waitsForResolution &&
      pass < PASSES &&
      (handler.isUnresolved?.(active) ?? isUnresolved(promiser))
    )
      return "skipped";
    handler.everyPass?.(active, this);
    const once = typeof handler.oncePerRun === "function" ? handler.oncePerRun(active) : handler.oncePerRun;
    if (once) {
      const key = this.doneKey(active);
      if (this.done.has(key)) return "skipped";
      this.done.add(key);
      if (turn.fixed) this.staticDone.add(deref.node);
      if (!this.lockAcquired(active, key)) return "skipped";
    }
    if (!turn.resolving) {
      const announce = () => this.announce(active, turn, stackPath);
      if (handler.announcesItself) this.pendingBanner = announce;
      else announce();
    }
    // Never a silent "kept" for what tend does not implement.
    const unsupported = unsupportedReason(active, handler);
    const outcome =
      unsupported === undefined ? handler.evaluate(active, this) : this.refuse(active, unsupported);
    this.pendingBanner = undefined;
    // 3.21 applies no `classes` body to `classes` promises.
    const classes = typeName === "classes" ? [] : applyFinalOutcomeClasses(active, this, outcome);
    // 3.21 evaluates a variable twice in the type loop (its classes body too).
    if ((typeName === "vars" || typeName === "meta") && !turn.resolving) {
      if (outcome === "kept") logVariableComment(active, this);
      applyFinalOutcomeClasses(active, this, outcome);
    }
    summarizeTransaction(active, outcome, this.log);
    if (!turn.resolving && !this.failedFatally) {
      if (!this.editing) bannerStatus(this.log, typeName, promiser, outcome);
      // A report handing a value back acts before 3.21's audit.
      if (
        !(typeName === "reports" && active.raw("bundle_return_value_index") !== undefined) &&
        !handler.auditsItself
      )
        this.trail.count(typeName, outcome);
    }
    if (outcome !== "skipped") {
      if (deref.attributes.has("handle")) this.noteHandle(handle, outcome);
      this.recorder.record(active, outcome, classes, line, unsupported);
    }
    return outcome;
  }

  private isStatic(deref: DerefPromise): boolean {
    let known = this.staticNodes.get(deref.node);
    if (known === undefined) {
      const ns = this.ctx.currentNamespace();
      known = isStaticPromise(deref, (type, name) => this.index.findBody(type, name, ns)?.block);
      this.staticNodes.set(deref.node, known);
    }
    return known;
  }

  /** The verbose lines before a promise acts: "Computing value" for variables, else a promise banner. */
  private announce(promise: ActivePromiseImpl, turn: IterationContext, stackPath: string): void {
    if (!this.log.wouldLog("verbose")) return;
    const type = promise.type;
    if (type === "vars" || type === "meta") {
      this.log.verbose(`V:     Computing value of '${promise.promiser}'`);
      return;
    }
    if (!RunTrail.bannered(type, this.editing !== undefined)) return;
    // A report that hands a value back to its caller acts before 3.21's banner.
    if (type === "reports" && promise.raw("bundle_return_value_index") !== undefined) return;
    const handle = promise.text("handle");
    // A quoted class guard is an `ifvarclass` in 3.21.
    const varClass = promise.deref.varClass;
    const guarded = varClass === undefined ? undefined : expandString(this.ctx, varClass, promise.options);
    const condition = guarded ?? asText(promise.value("if") ?? promise.value("ifvarclass"));
    const unless = condition === undefined ? asText(promise.value("unless")) : undefined;
    promiseBanner(this.log, {
      handle: handle ?? `promise_${canonify(basename(promise.bundle.file))}_${turn.line}`,
      type,
      pass: this.trail.pass,
      promiser: promise.promiser,
      bundle: promise.bundle.block.name.text,
      argsText: this.trail.argsText,
      guard: varClass === undefined ? turn.guard : "any",
      condition:
        condition !== undefined
          ? { name: "if", value: condition }
          : unless !== undefined
            ? { name: "unless", value: unless }
            : undefined,
      stackPath,
      comment: promise.text("comment"),
    });
  }

  /** Without `-K`, a promise that acted less than `ifelapsed` minutes ago waits. */
  private lockAcquired(promise: ActivePromiseImpl, key: string): boolean {
    const locks = this.options.locks;
    if (!locks) return true;
    const own = asText(promise.bodyValue("action", "ifelapsed"));
    const minutes = parseCfInt(own ?? "") ?? this.options.control.ifelapsed;
    if (locks.acquire(key, minutes)) return true;
    this.log.verbose(
      `Skipping promise '${promise.promiser}': it ran less than ${minutes} minute(s) ago (ifelapsed)`,
    );
    return false;
  }

  /** `with => value` is `$(this.with)` in the promise, once it resolves (in the last pass, as it stands). */
  private setWith(deref: DerefPromise, options: ExpandOptions, pass: number): void {
    const frame = this.ctx.currentFrame();
    frame.thisVars.delete("with");
    const own = deref.attributes.get("with");
    if (!own) return;
    const value = expandRval(this.ctx, own.value, options);
    if (value && isScalar(value) && (pass === PASSES || !isUnresolved(value.value)))
      frame.thisVars.set("with", value);
  }

  private dependencyDone(handle: string): boolean {
    const outcome = this.handles.get(canonify(handle));
    return outcome === "kept" || outcome === "repaired";
  }

  private noteHandle(handle: string, outcome: Outcome): void {
    const prior = this.handles.get(handle);
    this.handles.set(handle, prior ? combineOutcomes(prior, outcome) : outcome);
  }

  /** The promise's handle, or 3.21's default `promise_<file>_<line>`. */
  private handleOf(deref: DerefPromise, options: ExpandOptions, line: number): string {
    const own = deref.attributes.get("handle");
    if (own) {
      const value = expandRval(this.ctx, own.value, options);
      if (value && isScalar(value)) return canonify(value.value);
    }
    let file = this.canonicalFileNames.get(deref.bundle.file);
    if (file === undefined) {
      file = canonify(basename(deref.bundle.file));
      this.canonicalFileNames.set(deref.bundle.file, file);
    }
    return `promise_${file}_${line}`;
  }

  private doneKey(promise: ActivePromiseImpl): string {
    const parts: string[] = [
      promise.type,
      promise.bundle.block.namespace,
      promise.bundle.block.name.text,
      promise.promiser,
    ];
    for (const [name, attribute] of promise.deref.attributes)
      parts.push(name, this.rvalKey(name, attribute.value, promise));
    for (const [bodyName, body] of promise.deref.bodies) {
      parts.push(bodyName, body.name);
      for (const name of body.attributes.keys())
        parts.push(name, valueKey(promise.bodyValue(bodyName, name)));
    }
    return parts.join("\u0000");
  }

  /** An attribute's expanded value for the done-cache key; a bundle call keys by its arguments. */
  private rvalKey(attribute: string, rval: Rval, promise: ActivePromiseImpl): string {
    // Expanded once: the promise type reads the same value from the promise's cache.
    if (rval.kind !== "call" || getFunction(rval.name)) return valueKey(promise.value(attribute));
    // A bundle call keys by its expanded name too (`usebundle => $(bundles)(x)` iterates).
    const name = expandString(this.ctx, rval.name, promise.options);
    return [name, ...rval.args.map((a) => valueKey(expandRval(this.ctx, a, promise.options)))].join("\u0002");
  }

  /** Splits a promise's attributes into its own and the bodies they reference. */
  private derefPromise(
    located: Located<Bundle>,
    type: string,
    node: PromiseNode,
    varClass?: string,
  ): DerefPromise {
    const sources = {
      ctx: this.ctx,
      index: this.index,
      defaultBodies: this.defaultBodies,
      problem: (message: string, fatal?: boolean) => (fatal ? this.fatal(message) : this.log.error(message)),
      verbose: (message: string) => this.log.verbose(message),
    };
    return derefPromise(sources, located, type, node, varClass);
  }

  private lineOf(located: Located<Bundle>, node: PromiseNode): number {
    return this.recorder.lineOf(located.file, node.promiser.span[0]);
  }

  /** The registered type, or a stand-in (made on first use) for one tend does not implement: not kept. */
  private handlerOf(type: string): PromiseType {
    let handler = this.types.get(type) ?? this.unsupportedTypes.get(type);
    if (!handler) {
      handler = unsupportedPromiseType(type);
      this.unsupportedTypes.set(type, handler);
    }
    return handler;
  }

  private refuse(promise: ActivePromise, reason: string): Outcome {
    this.log.error(`tend cannot keep ${promise.type} promise '${promise.promiser}': ${reason}`);
    return "failed";
  }
}

/** Where an iteration of a promise stands in the run. */
interface IterationContext {
  readonly pass: number;
  readonly line: number;
  /** The class guard as written (`any` without one). */
  readonly guard: string;
  /** Evaluated again after `classes` (3.21's BundleResolve): nothing is logged. */
  readonly resolving: boolean;
  /** 1 for the first combination of the promise's lists. */
  readonly iteration: number;
  /** A static promise (nothing to iterate or expand): it acts once per run, whatever the pass. */
  readonly fixed: boolean;
}

/** Whether a bundle has promises of a type (3.21 prints a type banner only then). */
function hasPromises(bundle: Bundle, type: string): boolean {
  return bundle.sections.some((s) => s.type.text === type && s.groups.some((g) => g.promises.length > 0));
}

function valueKey(value: Value | undefined): string {
  if (!value) return "";
  if (isList(value)) return value.value.join("\u0001");
  if (value.type === "data") return JSON.stringify(value.value);
  return value.value;
}
