/**
 * `checkPolicy`: what `cf-promises` does, as a library call. Loads a policy
 * (the entry file and, through `body common control` inputs, every file it
 * pulls in), then validates the whole set if it loaded without errors. Problems in the policy come back
 * as diagnostics; nothing is printed and nothing is thrown for them.
 */
import type { LoadMessage } from "../eval/augments-install.js";
import type { EvalContext } from "../eval/context.js";
import type { PolicyFile } from "../language/ast.js";
import { type Diagnostic, hasErrors, makeDiagnostic } from "../language/diagnostics.js";
import type { PolicySet } from "../language/policy-set.js";
import { SourceFile } from "../language/source.js";
import { validatePolicy } from "../language/validate/index.js";
import { resolvePolicies } from "../loader/control.js";
import { type EvaluationMessageSinks, type LoadResult, type ParseCache, loadPolicy } from "../loader/load.js";
import { readPolicyFile } from "../loader/read-policy.js";
import { unsupportedDiagnostics } from "../promises/unsupported-check.js";

export interface CheckOptions {
  /** The entry file, e.g. `promises.cf`; relative paths are taken from the process's directory. */
  readonly entry: string;
  /** Classes defined from the command line (`-D`). */
  readonly defines?: readonly string[];
  /** Classes negated from the command line (`-N`). */
  readonly negates?: readonly string[];
  /** `$(sys.inputdir)`; defaults to `$(sys.workdir)/inputs`. */
  readonly inputDir?: string;
  /** `$(sys.workdir)`; defaults to `/var/lib/cfengine3` for root. */
  readonly workDir?: string;
  /** Also run the checks cf-promises runs only with `--full-check`. */
  readonly fullCheck?: boolean;
  /** The bundlesequence to check against (`-b`), instead of the policy's own (not used yet). */
  readonly bundlesequence?: readonly string[] | null;
  /** Report missing inputs as warnings instead of errors. */
  readonly ignoreMissingInputs?: boolean;
  /** Persistent classes in force (cf-promises loads them too), with their tags. */
  readonly persistentClasses?: readonly { readonly name: string; readonly tags: readonly string[] }[];
  /**
   * Which promise types the agent implements: given, the check also warns
   * about what the policy uses that tend does not implement (types not
   * registered, unsupported attributes; see promises/unsupported.ts).
   */
  readonly implemented?: (type: string) => boolean;
  /** Where evaluation's messages go as they happen (function errors, ...); else they are dropped. */
  readonly messages?: EvaluationMessageSinks;
  /** Files parsed already, to reuse, and where to keep those parsed here (see LoadOptions). */
  readonly parsed?: ParseCache;
  /** Told of each file as soon as it is parsed (see LoadOptions). */
  readonly onParsed?: (file: PolicyFile) => void;
  /** How a policy file others may write is reported (see LoadOptions); unset: not looked at. */
  readonly writableByOthers?: "error" | "warning";
}

export interface CheckResult {
  /** True when no diagnostic is an error. */
  readonly valid: boolean;
  /** The files that could be read and parsed (entry first). */
  readonly set: PolicySet;
  /** Every diagnostic, in the order the stages reported them. */
  readonly diagnostics: readonly Diagnostic[];
  /** What reading host-specific data and augments logged (never errors of the policy). */
  readonly messages: readonly LoadMessage[];
  /** Classes and variables known after loading (pre-evaluation of each file as it was read, then of all). */
  readonly context: EvalContext;
}

/**
 * Loads a policy as cf-promises does: each file pre-evaluated as it is read,
 * then, when all loaded, every file once more; system functions' results
 * are not kept, so each evaluation of `execresult()` runs its command.
 */
export function loadAsCfPromises(options: Omit<CheckOptions, "fullCheck" | "bundlesequence">): LoadResult {
  const loaded = loadPolicy(options.entry, {
    defines: [...(options.defines ?? [])],
    negates: [...(options.negates ?? [])],
    inputDir: options.inputDir,
    workDir: options.workDir,
    ignoreMissingInputs: options.ignoreMissingInputs,
    persistentClasses: options.persistentClasses,
    cacheSystemFunctions: false,
    messages: options.messages,
    parsed: options.parsed,
    onParsed: options.onParsed,
    writableByOthers: options.writableByOthers,
  });
  if (!hasErrors(loaded.diagnostics)) {
    const files = loaded.set.files.map((f) => ({ path: f.source.path, policy: f.policy }));
    resolvePolicies(loaded.context, files);
  }
  return loaded;
}

/** Checks a policy; fails only by returning diagnostics. */
export function checkPolicy(options: CheckOptions): CheckResult {
  const loaded = loadAsCfPromises(options);
  const diagnostics = [...loaded.diagnostics];
  // As cf-promises, stop at syntax and loading errors: checks of a broken tree only add noise.
  if (!hasErrors(diagnostics)) {
    diagnostics.push(...validatePolicy(loaded.set, { fullCheck: options.fullCheck }));
    if (options.implemented) diagnostics.push(...unsupportedDiagnostics(loaded.set, options.implemented));
  }
  return {
    valid: !hasErrors(diagnostics),
    set: loaded.set,
    diagnostics,
    context: loaded.context,
    messages: loaded.messages,
  };
}

/** Reads a policy file; a failure becomes a diagnostic pointing at the file. */
export function readSource(path: string, diagnostics: Diagnostic[]): SourceFile | null {
  const read = readPolicyFile(path);
  if (read.ok) return new SourceFile(path, read.text);
  const missing = read.code === "ENOENT" || read.code === "ENOTDIR";
  const code = missing ? "input-not-found" : "input-unreadable";
  diagnostics.push(
    makeDiagnostic(path, [0, 0], "error", code, `cannot read policy file '${path}': ${read.reason}`),
  );
  return null;
}
