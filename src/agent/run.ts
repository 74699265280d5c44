/**
 * `runAgent`: what `cf-agent` does, as a library call.
 *
 * 1. Classes from `-D`, negations from `-N`; hard classes and `sys.*`.
 * 2. Persistent classes from the work directory.
 * 3. Loading (inputs followed, each file pre-evaluated) and validation;
 *    an invalid policy is not run (cf-agent would fall back to failsafe.cf;
 *    tend refuses and says why).
 * 4. Every promise of every bundle expanded once (load-expansion.ts), then
 *    pre-evaluation once more over all files.
 * 5. The bundlesequence: `-b`, else `body common control`, else `main`.
 *
 * Nothing is printed: reports and log lines go to the injected sinks.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Body, ListValue, PolicyFile } from "../language/ast.js";
import { type Diagnostic, type DiagnosticCode, hasErrors } from "../language/diagnostics.js";
import { validatePolicy } from "../language/validate/index.js";
import { unsupportedControlMessages } from "../promises/unsupported-check.js";
import { resolvePolicies } from "../loader/control.js";
import {
  type EvaluationMessageSinks,
  type ParseCache,
  loadPolicy,
  WRITABLE_BY_OTHERS,
} from "../loader/load.js";
import type { EvalContext } from "../eval/context.js";
import { expandRval } from "../eval/expand.js";
import { setClassPersister } from "../eval/functions/class-persistence.js";
import { isGuardTrue } from "../eval/resolve.js";
import { logModeClasses } from "../eval/setup.js";
import { type Value, isList, isScalar, scalar } from "../eval/values.js";
import {
  CustomPromiseRuntime,
  countPromiseTypeDeclarations,
  registerCustomPromiseTypes,
  startModulesEarly,
} from "../promises/custom/index.js";
import { finishBackgroundCommands } from "../promises/commands/process.js";
import { startCommandRunnerEarly } from "../promises/commands/early-start.js";
import { warnSharedAnchors } from "../promises/edit/anchors.js";
import { builtinPromiseTypes, type PromiseTypeRegistry } from "../promises/registry.js";
import { asBoolean, asStrings, asText } from "../promises/values.js";
import { type AgentControl, controlAttribute, readAgentControl } from "./agent-control.js";
import { canonifyClassName } from "../eval/class-expression.js";
import { Engine } from "./engine.js";
import { ensureFailsafePolicy } from "./failsafe.js";
import { expandEveryPromise } from "./load-expansion.js";
import { endOfRun, formatArguments, quoteArgument, waitingForBackground } from "../promises/ornaments.js";
import { LockStore } from "./locks.js";
import { type LogLevel, type LogSink, Logger } from "../system/logger.js";
import { type Outcome, combineOutcomes } from "../promises/outcome.js";
import { PersistentClasses } from "../eval/persistent-classes.js";
import { AM_POLICY_HUB_FILE, readPolicyServer, splitHostPort } from "../eval/policy-server.js";
import { policyHubUpdateKeys } from "../net/keys.js";
import { evaluateAsPolicyCheck, isPolicyCheckDue, tagValidatedPolicy } from "./policy-check.js";
import { preEvaluationClassHooks } from "./preeval-classes.js";
import { PolicyIndex } from "../promises/policy-index.js";
import { type PromiseRecord, RunRecorder } from "./recorder.js";
import { auditChanges } from "./simulate/audit.js";
import { ChangesChroot, type SimulateMode } from "../promises/simulate/changes-chroot.js";
import { type AgentDirectories, agentDirectories, secureWorkDirectory } from "./workdir.js";

export interface AgentOptions extends AgentDirectories {
  /** The entry file. */
  readonly file: string;
  /**
   * Whether the entry file was named on the command line (-f, or a file
   * argument) rather than being the default `$(sys.inputdir)/promises.cf`
   * (where the policy check's tag goes); by default, whether it differs.
   */
  readonly fileGiven?: boolean;
  readonly defines?: readonly string[];
  readonly negates?: readonly string[];
  /** `-b`: bundles to run instead of the policy's bundlesequence. */
  readonly bundlesequence?: readonly string[];
  /** `-K`: ignore `ifelapsed` locks. */
  readonly ignoreLocks?: boolean;
  /** `-n`/`--simulate`: change nothing. */
  readonly dryRun?: boolean;
  /**
   * `--simulate=MODE`: a dry run in which files promises act on copies in a
   * changes chroot, shown at the end (see simulate/). Implies `dryRun`.
   */
  readonly simulate?: SimulateMode;
  readonly logLevel?: LogLevel;
  /** Keep a record of every promise evaluated (for `--json`). */
  readonly record?: boolean;
  /**
   * Run `$(sys.inputdir)/failsafe.cf` (written from tend's built-in one if
   * missing) when the policy is missing or invalid, as cf-agent does when no
   * terminal is attached. Off by default: the run then stops with exit 1.
   */
  readonly failsafe?: boolean;
  /** The promise types to run with (default: every built-in one); a type missing from it is not kept. */
  readonly promiseTypes?: PromiseTypeRegistry;
}

export interface AgentSinks {
  readonly log: LogSink;
  /** One report line, without the `R: ` prefix. */
  readonly report: (text: string) => void;
  /** Raw text a command run by a function printed, passed through as cf-agent does (and `--simulate`'s report). */
  readonly output?: (text: string) => void;
  /** The problems of a policy that cannot run, as soon as they are known (before any failsafe run). */
  readonly invalidPolicy?: (diagnostics: readonly Diagnostic[]) => void;
}

export interface AgentResult {
  /** cf-agent's exit code for this run. */
  readonly exitCode: number;
  /** Problems found while loading and validating. */
  readonly diagnostics: readonly Diagnostic[];
  readonly outcome: Outcome;
  readonly records: readonly PromiseRecord[];
  /** Classes defined when the run ended. */
  readonly classes: readonly string[];
  /** Classes and variables as the run left them (absent when the policy did not run). */
  readonly context?: EvalContext;
}

/** On a policy hub, its own key trusted as its clients trust it (3.21's PolicyHubUpdateKeys at start-up). */
function updateHubKey(workdir: string, statedir: string, log: Logger): void {
  if (!existsSync(join(statedir, AM_POLICY_HUB_FILE))) return;
  const server = readPolicyServer(workdir);
  policyHubUpdateKeys(join(workdir, "ppkeys"), statedir, server && splitHostPort(server).host, log);
}

export function runAgent(options: AgentOptions, sinks: AgentSinks): AgentResult {
  const dirs = agentDirectories(options);
  const chroot = options.simulate
    ? new ChangesChroot(join(dirs.statedir, `${process.pid}.changes`), options.simulate)
    : undefined;
  // Log lines name the real files, never their copies in the chroot.
  const logSink: LogSink = chroot ? (r) => sinks.log({ ...r, message: chroot.hide(r.message) }) : sinks.log;
  const log = new Logger(logSink, options.logLevel ?? "notice");
  const trust = secureWorkDirectory(dirs, log);
  if (!chroot) updateHubKey(dirs.workdir, dirs.statedir, log);
  if (chroot) log.warning(`All changes in files will be made in the '${chroot.root}' chroot`);
  const persistent = new PersistentClasses(dirs.statedir, Date.now, trust);
  const persistentClasses = persistent.load();
  let entry = options.file;
  const checkPlace = {
    file: resolve(options.file),
    fromCommandLine: options.fileGiven ?? resolve(options.file) !== join(dirs.inputdir, "promises.cf"),
    ...dirs,
  };
  const checkDue = isPolicyCheckDue(checkPlace, log);
  // A function's fatal error stops the run: the engine's once it runs, else this flag.
  let fatalTarget: { fatal(message: string): void } | undefined;
  let fatalBeforeRun = false;
  // Evaluation's messages are logged as they happen, while loading too (as 3.21).
  const messages: EvaluationMessageSinks = {
    note: (level, message) => log.log(level, message),
    fromFunction: (m) => {
      if (m.level === "output") sinks.output?.(m.message);
      else if (m.level === "output-info") {
        if (log.wouldLog("info")) sinks.output?.(m.message);
      } else if (m.level === "fatal") {
        if (fatalTarget) fatalTarget.fatal(m.message);
        else {
          log.error(m.message);
          fatalBeforeRun = true;
        }
      } else log.log(m.level, m.message);
    },
  };
  // The policy check and the load read the same files: each is parsed once.
  const parsed: ParseCache = new Map();
  // Promise modules; from here on, a run that ends must end them too. The
  // helper that makes their pipes starts as soon as a file declares one.
  const modules = new CustomPromiseRuntime();
  const prepareModules = (file: PolicyFile) => modules.prepare(countPromiseTypeDeclarations([file]));
  const load = (file: string, extra: readonly string[] = []) =>
    loadAndValidate(
      file,
      [...(options.defines ?? []), ...extra],
      { persistent, persistentClasses, messages, parsed, onParsed: prepareModules },
      options,
      dirs,
      log,
    );
  const types = options.promiseTypes ?? builtinPromiseTypes();
  const checked =
    checkDue && options.simulate === undefined
      ? evaluateAsPolicyCheck(
          {
            entry,
            defines: [...(options.defines ?? [])],
            negates: [...(options.negates ?? [])],
            persistentClasses,
            workDir: dirs.workdir,
            inputDir: dirs.inputdir,
            parsed,
            onParsed: prepareModules,
            // Unlike cf-promises, the check runs nothing from a file others could have written.
            writableByOthers: "error",
          },
          log,
        )
      : undefined;
  // Promise modules start while the policy loads (see promises/custom/early-start.ts).
  if (checked && !hasErrors(checked.diagnostics))
    startModulesEarly(modules, types, new PolicyIndex(checked.set, entry), checked.context);
  // The failsafe policy is not checked (no cf-promises run for it in 3.21).
  let { loaded, diagnostics } = load(entry);
  if (checkDue && !hasErrors(diagnostics)) tagValidatedPolicy(checkPlace, log);
  const fail = (): AgentResult => {
    modules.shutdown(log);
    return { exitCode: 1, diagnostics, outcome: "failed", records: [], classes: [] };
  };
  // A policy others could have written is never run, not even its failsafe (as cf-agent).
  const refused = diagnostics.find((d) => d.code === WRITABLE_BY_OTHERS);
  if (refused) {
    log.error(refused.message);
    return fail();
  }
  if (hasErrors(diagnostics)) {
    sinks.invalidPolicy?.(diagnostics);
    if (diagnostics.some(isSyntaxError)) log.error("There are syntax errors in policy files");
    const failsafe = failsafeEntry(options, dirs.inputdir, log);
    if (!failsafe) {
      log.error("Error reading CFEngine policy. Exiting...");
      return fail();
    }
    entry = failsafe;
    const fallback = load(failsafe, ["failsafe_fallback"]);
    if (hasErrors(fallback.diagnostics)) {
      sinks.invalidPolicy?.(fallback.diagnostics);
      log.error("Error reading CFEngine policy. Exiting...");
      return fail();
    }
    loaded = fallback.loaded;
  }
  const ctx = loaded.context;
  const index = new PolicyIndex(loaded.set, entry);
  startCommandRunnerEarly(loaded.set);
  registerCustomPromiseTypes(types, index, modules);
  startModulesEarly(modules, types, index, ctx);
  setClassPersister(ctx, (name, minutes, tags) => persistent.add(name, minutes, tags));
  warnSharedAnchors(ctx, index, log);
  const classHooks = preEvaluationClassHooks(ctx, index, (name, minutes, tags) =>
    persistent.add(name, minutes, tags),
  );
  const sources = new Map(loaded.set.files.map((f) => [f.source.path, f.source]));
  const lineOf = (file: string, offset: number) => sources.get(file)?.positionAt(offset).line ?? 0;
  // Read after the per-file pre-evaluations (which still cache): 3.21 sets it
  // as it resolves the control body, after that file's bundles.
  ctx.cacheSystemFunctions = asBoolean(expandControl(ctx, index, "cache_system_functions"), true);
  // Between the per-file pre-evaluations and the last one, as 3.21 (see load-expansion.ts).
  if (!expandEveryPromise({ ctx, index, log, lineOf, hooks: classHooks })) return fail();
  if (fatalBeforeRun) return fail();
  resolvePolicies(
    ctx,
    loaded.set.files.map((f) => ({
      path: f.source.path,
      policy: f.policy,
      lineOf: (o: number) => f.source.positionAt(o).line,
    })),
    // cf-agent (unlike cf-promises) also evaluates every bundle's meta promises while loading.
    { ...classHooks, metaPromises: true },
  );
  if (fatalBeforeRun) return fail();
  ctx.packageInventory = asStrings(expandControl(ctx, index, "package_inventory"));
  const recorder = new RunRecorder(
    loaded.set.files.map((f) => f.source),
    options.record ?? false,
  );
  const lockStore = new LockStore(dirs.statedir, Date.now, trust);
  const locks = options.ignoreLocks ? undefined : lockStore;
  const control = readAgentControl(ctx, index);
  applyLogControl(log, control);
  // Settings tend does not act on are said, not silently dropped.
  for (const message of unsupportedControlMessages(loaded.set)) log.error(message);
  const engine = new Engine(
    ctx,
    index,
    log,
    types,
    recorder,
    {
      report: sinks.report,
      persistClass: (name, minutes, tags) => persistent.add(name, minutes, tags),
      forgetPersistentClass: (name) => persistent.remove(name),
    },
    {
      dryRun: options.dryRun || chroot !== undefined || control.dryRun === true,
      control,
      locks,
      changesChroot: chroot,
    },
  );
  fatalTarget = engine;
  for (const name of ctx.listClasses()) engine.checkAbort(name);
  for (const name of control.addClasses) {
    log.verbose(`... ${name}`);
    ctx.defineClass(canonifyClassName(name));
    engine.checkAbort(canonifyClassName(name));
  }
  if (options.bundlesequence) log.info("Using command line specified bundlesequence");
  const sequence =
    options.bundlesequence?.map((name) => ({ name, args: [] as Value[] })) ?? bundlesequence(ctx, index);
  const missing = sequence.filter((item) => !engine.findBundle(item.name));
  const ignoreMissing = asBoolean(expandControl(ctx, index, "ignore_missing_bundles"), false);
  for (const item of missing) {
    if (ignoreMissing) log.verbose(`Ignoring missing bundle '${item.name}'`);
    else log.error(`Bundle '${item.name}' listed in the bundlesequence was not found`);
  }
  if (missing.length > 0 && !ignoreMissing) {
    log.error("Fatal CFEngine error: Errors in agent bundles");
    return fail();
  }
  // 3.21 evaluates (and audits) every meta promise once while loading.
  engine.trail.counters.note("kept", countMetaPromises(ctx, index));
  let outcome: Outcome = "skipped";
  log.verbose(`Using bundlesequence => ${formatArguments(sequence.map(describeSequenceItem))}`);
  try {
    for (const item of sequence) {
      if (engine.aborted) break;
      const bundle = engine.findBundle(item.name);
      if (!bundle) continue;
      const argsText =
        item.args.length > 0 ? formatArguments(item.args.map((a) => quoteArgument(a))) : undefined;
      outcome = combineOutcomes(outcome, engine.runBundle(bundle, item.args, false, undefined, { argsText }));
      engine.endBundleBanner(bundle.block.name.text);
    }
    if (!engine.failedFatally) for (const type of types.all()) type.runFinished?.(engine);
  } catch (error) {
    // A run that breaks off leaves no copies behind, and no modules.
    chroot?.remove();
    modules.shutdown(log);
    throw error;
  } finally {
    // Promise modules are told to terminate when the run ends, however it
    // ends (the run waits for their exits last, while they exit); then, as
    // cf-agent, the run waits for its background commands.
    modules.terminate(log);
    finishBackgroundCommands();
    engine.runState.close();
  }
  // After a fatal error 3.21 exits at once, with only its compliance line.
  if (!engine.failedFatally) {
    waitingForBackground(log);
    lockStore.purgeStale(log);
  }
  endOfRun(log, engine.trail.counters, asText(expandControl(ctx, index, "version")));
  if (!persistent.save()) log.warning(`Could not write persistent classes under '${dirs.statedir}'`);
  if (!lockStore.save()) log.warning(`Could not write promise locks under '${dirs.statedir}'`);
  if (chroot) showSimulatedChanges(chroot, log, sinks, dirs.workdir);
  modules.awaitExits();
  // cf-agent exits 1 after a fatal error, 6 when an abort class stopped the run.
  const exitCode = engine.failedFatally ? 1 : engine.aborted ? 6 : 0;
  return {
    exitCode,
    diagnostics,
    outcome,
    records: recorder.records,
    classes: ctx.listClasses(),
    context: ctx,
  };
}

/** What --simulate changed, shown as its mode asks; then the chroot is deleted, as 3.21 does. */
function showSimulatedChanges(chroot: ChangesChroot, log: Logger, sinks: AgentSinks, workdir: string): void {
  const options = { bindir: join(workdir, "bin"), columns: process.env.COLUMNS };
  auditChanges(chroot, log, options, (text) => sinks.output?.(text));
  log.verbose(`Deleting changes chroot '${chroot.root}'`);
  chroot.remove();
}

/** `inform` and `verbose` of body agent control raise the level (or lower it back), as in 3.21. */
function applyLogControl(log: Logger, control: AgentControl): void {
  const rank = (level: LogLevel) => ["error", "warning", "notice", "info", "verbose", "debug"].indexOf(level);
  if (control.inform === true && rank(log.level) < rank("info")) log.setLevel("info");
  if (control.inform === false && rank(log.level) >= rank("info")) log.setLevel("notice");
  if (control.verbose === true && rank(log.level) < rank("verbose")) log.setLevel("verbose");
  if (control.verbose === false && rank(log.level) >= rank("verbose")) log.setLevel("info");
}

/** Loads a policy and, if it loaded, validates it as cf-promises would. */
function loadAndValidate(
  file: string,
  defines: readonly string[],
  state: {
    persistent: PersistentClasses;
    persistentClasses: ReturnType<PersistentClasses["load"]>;
    messages: EvaluationMessageSinks;
    parsed: ParseCache;
    onParsed: (file: PolicyFile) => void;
  },
  options: AgentOptions,
  dirs: { workdir: string; inputdir: string },
  log: Logger,
) {
  const loaded = loadPolicy(file, {
    defines: [...defines],
    persistentClasses: state.persistentClasses,
    persistClass: (name, minutes, tags) => state.persistent.add(name, minutes, tags),
    agentType: "agent",
    modeClasses: logModeClasses(options.logLevel),
    negates: [...(options.negates ?? [])],
    workDir: dirs.workdir,
    inputDir: dirs.inputdir,
    skipUnsafeFunctions: options.simulate !== undefined,
    messages: state.messages,
    parsed: state.parsed,
    onParsed: state.onParsed,
    writableByOthers: "error",
  });
  for (const message of loaded.messages) log.log(message.level, message.text);
  const diagnostics = [...loaded.diagnostics];
  // As cf-agent, a bundlesequence given with -b is not checked against the policy's own.
  const checkBundleSequence = options.bundlesequence === undefined;
  if (!hasErrors(diagnostics))
    diagnostics.push(...validatePolicy(loaded.set, { fullCheck: true, checkBundleSequence }));
  return { loaded, diagnostics };
}

/** What cf-promises finds while parsing a file; the references between files are checked after. */
const CHECKED_AFTER_PARSING: ReadonlySet<DiagnosticCode> = new Set([
  "undefined-body",
  "undefined-bundle",
  "undefined-promise-type",
]);

/** An error cf-promises 3.21 reports as a syntax error ("There are syntax errors in policy files"). */
function isSyntaxError(diagnostic: Diagnostic): boolean {
  return diagnostic.severity === "error" && !CHECKED_AFTER_PARSING.has(diagnostic.code);
}

/** The failsafe policy to run instead of an invalid one, or undefined (logged) when there is none. */
function failsafeEntry(options: AgentOptions, inputdir: string, log: Logger): string | undefined {
  if (!options.failsafe) {
    log.error("Failsafe condition triggered. Interactive session detected, skipping failsafe.cf execution.");
    return undefined;
  }
  log.error("CFEngine was not able to get confirmation of promises from cf-promises, so going to failsafe");
  const path = ensureFailsafePolicy(inputdir, log);
  if (path) log.error(`CFEngine failsafe.cf: ${inputdir} ${path}`);
  return path;
}

/** The meta promises of all bundles whose guards hold (for the run's accounting). */
function countMetaPromises(ctx: EvalContext, index: PolicyIndex): number {
  let count = 0;
  for (const { block } of index.allBundles()) {
    for (const section of block.sections) {
      if (section.type.text !== "meta") continue;
      for (const group of section.groups) if (isGuardTrue(ctx, group.guard)) count += group.promises.length;
    }
  }
  return count;
}

/** A bundlesequence item as cf-agent's verbose log writes it: `"main"` or `sub("q")`. */
function describeSequenceItem(item: SequenceItem): string {
  if (item.args.length === 0) return `"${item.name}"`;
  return `${item.name}(${item.args.map((a) => quoteArgument(a)).join(",")})`;
}

interface SequenceItem {
  readonly name: string;
  readonly args: readonly Value[];
}

/** `bundlesequence` of `body common control`, else `main`. */
function bundlesequence(ctx: EvalContext, index: PolicyIndex): SequenceItem[] {
  for (const { block, file } of index.controlBodiesOf("common")) {
    const attribute = findAttribute(ctx, block, "bundlesequence");
    if (attribute?.kind !== "list") continue;
    // `$(this.promise_filename)` names the file of the control body.
    const path = resolve(file);
    ctx.pushFrame(
      block.namespace,
      "control_common",
      new Map([
        ["promise_filename", scalar(path)],
        ["promise_dirname", scalar(dirname(path))],
      ]),
    );
    try {
      return sequenceItems(ctx, attribute);
    } finally {
      ctx.popFrame();
    }
  }
  return [{ name: "main", args: [] }];
}

function sequenceItems(ctx: EvalContext, attribute: ListValue): SequenceItem[] {
  {
    const items: SequenceItem[] = [];
    for (const item of attribute.items) {
      if (item.kind === "call") {
        const args = item.args.map((a) => expandRval(ctx, a)).filter((v): v is Value => v !== undefined);
        items.push({ name: item.name, args });
        continue;
      }
      const value = expandRval(ctx, item);
      if (!value) continue;
      if (isList(value)) items.push(...value.value.map((name) => ({ name, args: [] })));
      else if (isScalar(value)) items.push({ name: value.value, args: [] });
    }
    return items;
  }
}

function findAttribute(ctx: EvalContext, body: Body, name: string) {
  for (const group of body.groups) {
    if (!isGuardTrue(ctx, group.guard)) continue;
    const found = group.attributes.find((a) => a.name.text === name);
    if (found) return found.value;
  }
  return undefined;
}

/** A `body common control` attribute, expanded. */
function expandControl(ctx: EvalContext, index: PolicyIndex, name: string): Value | undefined {
  const rval = controlAttribute(ctx, index, "common", name);
  return rval ? expandRval(ctx, rval) : undefined;
}
