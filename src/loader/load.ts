/**
 * Loading a whole policy as cf-promises does: read the entry file, then the
 * files named by `inputs` of `body common control` and `body file control`,
 * recursively and depth first, pre-evaluating each file as it is read so
 * that later inputs can use the variables and classes of earlier ones.
 *
 * Behaviour taken from 3.21:
 * - A relative input is relative to the directory of the entry file, not
 *   to the file that names it.
 * - `sys.inputdir` is the agent's input directory (`/var/lib/cfengine3/inputs`
 *   for root), not the entry file's directory; `sys.local_libdir` is `lib`.
 * - A file already loaded (same path, or same content) is skipped, so
 *   cycles end.
 * - An input that still holds an unresolved variable after pre-evaluation
 *   is skipped; 3.21 logs an error but does not fail (warning here).
 * - A missing or unreadable input makes cf-promises exit 1 at once, unless
 *   `ignore_missing_inputs` is set (option or common control); here it is
 *   an error diagnostic at the input's string, and loading goes on.
 * - `this.promise_dirname` is not defined in control bodies, only in
 *   bundle promises.
 *
 * Deviation: cf-promises does not follow the inputs of a file with syntax
 * errors; tend's parser recovers, so it follows them (the policy is invalid
 * anyway, and the user sees every problem at once).
 */
import type { Stats } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { PolicyFile, Rval, Span } from "../language/ast.js";
import { type Diagnostic, type DiagnosticCode, makeDiagnostic } from "../language/diagnostics.js";
import { type ParseResult, parse } from "../language/parser.js";
import type { ParsedFile, PolicySet } from "../language/policy-set.js";
import { SourceFile } from "../language/source.js";
import { loadAugments } from "../eval/augments.js";
import type { LoadMessage } from "../eval/augments-install.js";
import { loadHostSpecificData } from "../eval/cmdb.js";
import { type FunctionMessageSink, setFunctionMessageSink } from "../eval/functions/messages.js";
import type { EvalContext } from "../eval/context.js";
import { expandRval, hasUnresolvedReference } from "../eval/expand.js";
import { bundlesOf } from "../eval/policy-bundles.js";
import { createEvalContext } from "../eval/setup.js";
import { isList, isScalar } from "../eval/values.js";
import { type LoadedPolicy, controlBodies, effectiveAttribute, resolvePolicies } from "./control.js";
import { readPolicyFile } from "./read-policy.js";
import type { ResolveHooks } from "../eval/resolve.js";

export interface LoadOptions {
  /** Classes defined from the command line (`-D`). */
  defines?: string[];
  /** Hard classes of the run's log level (`inform_mode`...). */
  modeClasses?: readonly string[];
  /** Classes negated from the command line (`-N`). */
  negates?: string[];
  /** The program loading: `agent` (cf-agent), `server` (cf-serverd) or `common` (cf-promises, the default). */
  agentType?: "agent" | "common" | "server" | "monitor" | "executor";
  /** Persistent classes still in force, with their stored tags. */
  persistentClasses?: readonly { readonly name: string; readonly tags: readonly string[] }[];
  /** `$(sys.inputdir)`; defaults to `$(sys.workdir)/inputs`. */
  inputDir?: string;
  /** `$(sys.workdir)`; defaults to `/var/lib/cfengine3` for root, `~/.cfagent` otherwise. */
  workDir?: string;
  /** Skip missing inputs silently, as `ignore_missing_inputs => "true"` does. */
  ignoreMissingInputs?: boolean;
  /**
   * A classes promise with `persistence` defined its class while loading:
   * the agent keeps it across runs (cf-promises does not).
   */
  persistClass?: (name: string, minutes: number, tags: readonly string[]) => void;
  /** `--simulate`: unsafe functions are not called while loading either (see EvalContext). */
  skipUnsafeFunctions?: boolean;
  /**
   * Whether the results of system functions (execresult, returnszero, ...)
   * are kept for the run. cf-agent keeps them; cf-promises does not, so a
   * command such a function runs runs at every evaluation of the call.
   */
  cacheSystemFunctions?: boolean;
  /**
   * Where evaluation's messages go as they happen, in their order (without,
   * notes wait for a sink and function messages are only collected).
   */
  messages?: EvaluationMessageSinks;
  /**
   * Files parsed by an earlier load in the same run (the agent's policy
   * check, then its own load), which this one reuses where the text read
   * is the same, and adds to.
   */
  parsed?: ParseCache;
  /** Told of each file as soon as it is parsed (before its evaluation), to start what it will need. */
  onParsed?: (file: PolicyFile) => void;
  /**
   * What a policy file others may write (group or world write bits) is:
   * an error for the agent, which refuses to run it as cf-agent does (it
   * runs as root); a warning for the check (cf-promises says nothing).
   * Unset: not looked at.
   */
  writableByOthers?: "error" | "warning";
}

/** Parsed files by absolute path. The syntax trees are never changed once parsed, so sharing them is safe. */
export type ParseCache = Map<string, { readonly source: SourceFile; readonly result: ParseResult }>;

export interface EvaluationMessageSinks {
  note(level: "error" | "verbose", message: string): void;
  fromFunction: FunctionMessageSink;
}

export interface LoadResult {
  /** The files read, in the order cf-promises parses them (entry first). */
  set: PolicySet;
  /** Parse diagnostics of every file and loading problems. */
  diagnostics: Diagnostic[];
  /** The context after pre-evaluation: classes and variables known at load time. */
  context: EvalContext;
  /**
   * What reading host-specific data and augments had to say (3.21 logs it
   * and goes on: these never make the policy invalid).
   */
  messages: LoadMessage[];
}

/** Where an input was named: the including file and the span of the input's value. */
interface Origin {
  readonly file: string;
  readonly span: Span;
}

/** A file to load next, as the steps of loadFile ask for it. */
interface LoadRequest {
  readonly path: string;
  readonly origin: Origin;
}

type LoadSteps = Generator<LoadRequest, LoadedPolicy[], LoadedPolicy[]>;

class Loader {
  readonly files: ParsedFile[] = [];
  readonly diagnostics: Diagnostic[] = [];
  private readonly seenPaths = new Set<string>();
  /** Texts already loaded: a second file of the same text adds nothing (as 3.21, which compares hashes). */
  private readonly seenTexts = new Set<string>();
  private ignoreMissing: boolean;
  private readonly hooks: ResolveHooks;
  private readonly parsed: ParseCache | undefined;
  private readonly onParsed: ((file: PolicyFile) => void) | undefined;
  private readonly writableByOthers: "error" | "warning" | undefined;

  constructor(
    readonly ctx: EvalContext,
    private readonly inputDir: string,
    options: LoadOptions,
  ) {
    this.ignoreMissing = options.ignoreMissingInputs ?? false;
    this.hooks = options.persistClass ? { persistClass: options.persistClass } : {};
    this.parsed = options.parsed;
    this.onParsed = options.onParsed;
    this.writableByOthers = options.writableByOthers;
  }

  /**
   * Loads one file and, depth first, its inputs. Returns the files it added.
   * The steps run on a stack of their own, not the call stack: a chain of
   * inputs thousands of files long is as good as a short one.
   */
  loadFile(path: string, origin: Origin | null): LoadedPolicy[] {
    const stack: LoadSteps[] = [this.fileSteps(path, origin)];
    let reply: LoadedPolicy[] = [];
    for (;;) {
      const step = (stack.at(-1) as LoadSteps).next(reply);
      if (!step.done) {
        stack.push(this.fileSteps(step.value.path, step.value.origin));
        reply = [];
        continue;
      }
      stack.pop();
      if (stack.length === 0) return step.value;
      reply = step.value;
    }
  }

  /** loadFile's work for one file; it yields each input to load and is given what that added. */
  private *fileSteps(path: string, origin: Origin | null): LoadSteps {
    const key = resolve(path);
    if (this.seenPaths.has(key)) return [];
    const text = this.readText(path, origin);
    if (text === undefined) return [];
    this.seenPaths.add(key);
    if (this.seenTexts.has(text)) return [];
    this.seenTexts.add(text);
    const { source, result: parsed } = this.parse(key, path, text);
    this.onParsed?.(parsed.policy);
    this.files.push({ source, policy: parsed.policy });
    // bundlesmatching() during pre-evaluation sees the bundles read so far, as in 3.21.
    this.ctx.policyBundles = [...this.ctx.policyBundles, ...bundlesOf(parsed.policy)];
    for (const d of parsed.diagnostics) this.diagnostics.push(d);
    const loaded: LoadedPolicy = { path, policy: parsed.policy, lineOf: (o) => source.positionAt(o).line };
    this.applyIgnoreMissing(resolvePolicies(this.ctx, [loaded], this.hooks));
    const added = [loaded];
    for (const type of ["common", "file"]) {
      for (const body of controlBodies(parsed.policy, type)) {
        const inputs = effectiveAttribute(this.ctx, body, "inputs");
        if (inputs) for (const file of yield* this.inputSteps(inputs.value, path)) added.push(file);
      }
    }
    return added;
  }

  /** The file parsed, or as an earlier load parsed the same text. */
  private parse(key: string, path: string, text: string): { source: SourceFile; result: ParseResult } {
    const earlier = this.parsed?.get(key);
    if (earlier && earlier.source.path === path && earlier.source.text === text) return earlier;
    const source = new SourceFile(path, text);
    const parsed = { source, result: parse(source) };
    this.parsed?.set(key, parsed);
    return parsed;
  }

  private applyIgnoreMissing(setting: boolean | undefined): void {
    if (setting !== undefined) this.ignoreMissing = setting;
  }

  /** Loads the items of an `inputs` list, re-resolving earlier siblings before an item with variables. */
  private *inputSteps(rval: Rval, includingFile: string): LoadSteps {
    const items = rval.kind === "list" ? rval.items : [rval];
    const loaded: LoadedPolicy[] = [];
    for (const item of items) {
      // Re-resolving is costly (every file again); only an item that does not
      // resolve yet can gain from it.
      if (mayExpand(item) && loaded.length > 0 && !this.resolvesNow(item)) {
        this.applyIgnoreMissing(resolvePolicies(this.ctx, loaded, this.hooks));
      }
      const origin = { file: includingFile, span: item.span };
      for (const input of this.evaluateInput(item)) {
        for (const file of yield { path: input, origin }) loaded.push(file);
      }
    }
    return loaded;
  }

  /** Whether an inputs item expands fully with the context as it is. */
  private resolvesNow(item: Rval): boolean {
    this.ctx.pushFrame("default", "sys");
    try {
      const value = expandRval(this.ctx, item);
      if (!value) return false;
      if (isScalar(value)) return !hasUnresolvedReference(value.value);
      return isList(value) && !value.value.some(hasUnresolvedReference);
    } finally {
      this.ctx.popFrame();
    }
  }

  /**
   * The paths one inputs item stands for. An unresolved one is skipped
   * with an error logged, not a diagnostic: 3.21 logs it (on stdout, where
   * `cf-promises --show-vars | grep` and execresult see it) and goes on,
   * the policy still valid.
   */
  private evaluateInput(item: Rval): string[] {
    // 3.21 evaluates inputs in the `sys` scope, outside any bundle.
    this.ctx.pushFrame("default", "sys");
    let value: ReturnType<typeof expandRval>;
    try {
      value = expandRval(this.ctx, item);
    } finally {
      this.ctx.popFrame();
    }
    const strings = !value ? [] : isList(value) ? value.value : isScalar(value) ? [value.value] : [];
    if (!value) this.noteUnresolved(describeRval(item));
    const paths: string[] = [];
    for (const text of strings) {
      if (hasUnresolvedReference(text)) this.noteUnresolved(text);
      else paths.push(this.resolveInputPath(text));
    }
    return paths;
  }

  private noteUnresolved(text: string): void {
    this.ctx.note("error", `Unresolved variable '${text}' in input list, cannot parse`);
  }

  /** Absolute inputs stay; others are taken from the entry file's directory. */
  /** As 3.21 joins them, without normalising: `this.promise_filename` shows `dir/../x.cf`. */
  private resolveInputPath(input: string): string {
    return isAbsolute(input) ? input : `${this.inputDir}/${input}`;
  }

  /** Whether a policy file's mode lets it be used (see `writableByOthers`); reported when not. */
  private mayTrust(path: string, stats: Stats, origin: Origin | null, level: "error" | "warning"): boolean {
    if (!(stats.mode & 0o022) || !stats.isFile()) return true;
    const where = origin ?? { file: path, span: [0, 0] as const };
    const message = `File ${path} (owner ${stats.uid}) is writable by others (security exception)`;
    this.diagnostics.push(makeDiagnostic(where.file, where.span, level, WRITABLE_BY_OTHERS, message));
    return level === "warning";
  }

  private readText(path: string, origin: Origin | null): string | undefined {
    const level = this.writableByOthers;
    let distrusted = false;
    const read = readPolicyFile(path, (stats) => {
      if (!level || this.mayTrust(path, stats, origin, level)) return undefined;
      distrusted = true;
      return "writable by others";
    });
    if (read.ok) return read.text;
    if (distrusted) return undefined;
    const missing = read.code === "ENOENT" || read.code === "ENOTDIR" || read.code === "EISDIR";
    if (this.ignoreMissing && missing) return undefined;
    const where = origin ?? { file: path, span: [0, 0] as const };
    this.diagnostics.push(
      makeDiagnostic(
        where.file,
        where.span,
        "error",
        missing ? "input-not-found" : "input-unreadable",
        `cannot read policy file '${path}': ${read.reason}`,
      ),
    );
    return undefined;
  }
}

export const WRITABLE_BY_OTHERS: DiagnosticCode = "policy-writable-by-others";

function mayExpand(rval: Rval): boolean {
  return rval.kind !== "symbol" && hasUnresolvedReference(describeRval(rval));
}

function describeRval(rval: Rval): string {
  switch (rval.kind) {
    case "string":
      return rval.value;
    case "nakedvar":
      return rval.text;
    case "symbol":
      return rval.name;
    case "call":
      return `${rval.name}(...)`;
    case "list":
      return rval.items.map(describeRval).join(", ");
  }
}

/**
 * Loads a policy from its entry file. Never throws for problems in the
 * policy or the file system: they come back as diagnostics. A relative
 * `entryPath` is taken from the process's directory (see
 * `resolveEntryPath` for cf-promises' own rule for `-f`).
 */
export function loadPolicy(entryPath: string, options: LoadOptions = {}): LoadResult {
  const ctx = createEvalContext({
    defines: options.defines,
    negates: options.negates,
    persistentClasses: options.persistentClasses,
    agentType: options.agentType,
    modeClasses: options.modeClasses,
    inputdir: options.inputDir,
    workdir: options.workDir,
    entry: entryPath,
  });
  if (options.skipUnsafeFunctions) ctx.skipUnsafeFunctions = true;
  if (options.cacheSystemFunctions === false) ctx.cacheSystemFunctions = false;
  if (options.messages) {
    ctx.setNoteSink(options.messages.note);
    setFunctionMessageSink(ctx, options.messages.fromFunction);
  }
  const entryDir = dirname(entryPath);
  const loader = new Loader(ctx, entryDir, options);
  const messages: LoadMessage[] = [];
  const workdir = ctx.getVariable({ ns: null, scope: "sys", name: "workdir", indices: [] });
  // As 3.21: host-specific data first, then augments, which may not override it.
  if (workdir && isScalar(workdir)) loadHostSpecificData(ctx, workdir.value, messages);
  loadAugments(ctx, entryDir, messages, entryPath);
  loader.loadFile(entryPath, null);
  return { set: { files: loader.files }, diagnostics: loader.diagnostics, context: ctx, messages };
}

/**
 * cf-promises' rule for `-f FILE`: a path that starts with neither `/` nor
 * `.` is looked up in the input directory; others are used as given.
 */
export function resolveEntryPath(file: string, inputDir: string): string {
  if (isAbsolute(file) || file.startsWith(".")) return file;
  return join(inputDir, file);
}
