/**
 * The one contract every promise type plugs in through, built-in or
 * external: a name, and `evaluate`, which inspects the promise's state,
 * repairs it unless the run is a dry run, and returns an outcome.
 *
 * The engine has already done everything common to all types before it
 * calls `evaluate`: class guards, `if`/`unless`, `depends_on`, iteration,
 * and the once-per-run check. After it returns, the engine applies the
 * `classes` body and records the outcome.
 */
import type { RunState } from "./run-state.js";
import type { Bundle, Promise as PromiseNode, Rval } from "../language/ast.js";
import type { EntryMeta, EvalContext } from "../eval/context.js";
import type { ExpandOptions } from "../eval/expand.js";
import type { Value } from "../eval/values.js";
import type { BodyInstance } from "./bodies.js";
import type { Logger } from "../system/logger.js";
import type { ChangesChroot } from "./simulate/changes-chroot.js";
import type { Outcome } from "./outcome.js";
import type { Located } from "./policy-index.js";
import type { LineList } from "./edit/lines.js";

/** One iteration of a promise, expanded for its type to act on. */
export interface ActivePromise {
  readonly type: string;
  /** The promiser after expansion. */
  readonly promiser: string;
  readonly node: PromiseNode;
  readonly bundle: Located<Bundle>;
  /** 1, 2 or 3. */
  readonly pass: number;
  readonly handle: string;
  /** The line of the promiser in its file (for messages). */
  readonly line?: number;
  /** Bindings of this iteration, for expanding attributes. */
  readonly options: ExpandOptions;
  /** An attribute as written (own or from a body), unexpanded; undefined if absent. */
  raw(name: string): Rval | undefined;
  /** An attribute expanded; undefined if absent or a function call in it failed. */
  value(name: string): Value | undefined;
  /** A scalar attribute expanded to a string. */
  text(name: string): string | undefined;
  /** A body-typed attribute resolved (`classes`, `action`, ...). */
  body(name: string): BodyInstance | undefined;
  /** An attribute of a body-typed attribute, expanded. */
  bodyValue(body: string, name: string): Value | undefined;
}

/** What a promise type can use from the running agent. */
export interface PromiseEnvironment {
  readonly ctx: EvalContext;
  readonly log: Logger;
  /** State of this run that promise types keep between promises (see run-state.ts). */
  readonly runState: RunState;
  /** `--dry-run` / `--simulate` / `action_policy => "warn"`: inspect, never change. */
  readonly dryRun: boolean;
  /** `--simulate`: files promises act on copies in this chroot (the run itself is a dry run). */
  readonly changesChroot?: ChangesChroot;
  /** Prints a report line (`R: ...`). */
  report(text: string): void;
  /**
   * Runs a bundle (methods, or an edit_line bundle for a files promise);
   * returns the combined outcome of its promises. `edit` is the file being
   * edited: promise types of edit bundles work on it through `editing`.
   */
  runBundle(
    bundle: Located<Bundle>,
    args: readonly Value[],
    inherit: boolean,
    edit?: EditSession,
    call?: BundleCallInfo,
  ): Outcome;
  /** Counts an outcome in the run's accounting, for types the engine does not count by itself. */
  audit?(outcome: Outcome): void;
  /** The verbose banner that closes a bundle call, once the caller is done with it. */
  endBundleBanner?(name: string): void;
  /** The file an edit bundle being run is editing; undefined outside edit bundles. */
  readonly editing: EditSession | undefined;
  /** Finds a bundle of one of `types` (default agent and common: what a method may call). */
  findBundle(name: string, types?: readonly string[]): Located<Bundle> | undefined;
  /** `ignore_missing_bundles`: a method naming a missing bundle fails without stopping the run. */
  readonly ignoresMissingBundles?: boolean;
  /** Set once `fatal` was called: the run is over, nothing more is reported. */
  readonly failedFatally?: boolean;
  /** Logs an error cf-agent cannot continue after; the run stops and exits 1. */
  fatal(message: string): void;
  /**
   * An attribute of a control body (`body agent control`, `body common
   * control`...), expanded; undefined when not set.
   */
  controlValue?(type: string, name: string): Value | undefined;
  /**
   * Defines a class as the promise's bundle would (local in agent bundles),
   * with the tags and comment 3.21 keeps for it (none unless given).
   */
  defineClass(name: string, scope: "bundle" | "namespace", persistMinutes?: number, meta?: EntryMeta): void;
  /** Forgets a class kept across runs (`persistence`), if it was. */
  cancelPersistentClass?(name: string): void;
  /** A body of the policy by type and name (`package_module => "name"` in body common control names one). */
  findBody?(type: string, name: string): BodyInstance | undefined;
  /**
   * Takes a named lock kept across runs unless it was taken less than
   * `ifelapsedMinutes` ago (default: `ifelapsed` of body agent control);
   * always granted with `-K`.
   */
  acquireLock?(name: string, ifelapsedMinutes?: number): boolean;
  /**
   * Shows the promise's verbose banner now (types with `announcesItself`);
   * once, unless `again` keeps it for another call (3.21 shows a services
   * promise's banner twice).
   */
  promiseBanner?(again?: boolean): void;
}

/** How a bundle is being called, beyond its arguments. */
export interface BundleCallInfo {
  /** The arguments as cf-agent's verbose banners show them (` {"a","b"}`). */
  readonly argsText?: string;
  /** Per argument: "s" for a string, "f" for a function call (for verbose logs). */
  readonly argKinds?: readonly string[];
  /** Called by a methods promise: 3.21 then resolves the bundle's variables first. */
  readonly method?: boolean;
}

/**
 * A file being edited by an edit_line (or edit_xml) bundle: its lines, which
 * edit promise types change in place, and whether they changed. The files
 * promise that started the edit writes the result (atomically) afterwards.
 */
export interface EditSession {
  /** The file's path (for messages and `$(edit.filename)`). */
  readonly filename: string;
  /** The file's lines, without line ends; edit_line promises change them in place. */
  readonly lines: LineList;
  /** Edits made (cf-agent's `num_edits`): the file is saved only after some. */
  edits: number;
}

export interface PromiseType {
  readonly name: string;
  /**
   * Whether the engine should skip the promise while its promiser still
   * holds unresolved references in passes 1 and 2 (true for most types).
   */
  readonly waitsForResolution?: boolean;
  /**
   * With `waitsForResolution`: whether the promise still holds unresolved
   * references (default: its promiser does). Asked in passes 1 and 2 only,
   * before the once-per-run check, so a promise that never resolves still
   * reaches `evaluate` in the last pass.
   */
  isUnresolved?(promise: ActivePromise): boolean;
  /** Whether each distinct expansion acts once per run (the "already done" cache); may depend on the promise. */
  readonly oncePerRun?: boolean | ((promise: ActivePromise) => boolean);
  /**
   * Runs in every pass, before the once-per-run check, even for a promise
   * that has acted already: for what 3.21 does each time it reads the
   * promise's attributes (such as noting a user that does not exist).
   */
  everyPass?(promise: ActivePromise, env: PromiseEnvironment): void;
  /**
   * Called as each agent (or common) bundle starts running, before its
   * first pass, whether or not it holds promises of this type: for state a
   * type keeps per bundle (3.21 reads the process table again).
   */
  bundleStarted?(bundle: string, env: PromiseEnvironment): void;
  evaluate(promise: ActivePromise, env: PromiseEnvironment): Outcome;
  /**
   * Called after each pass over a bundle's promises of this type, as 3.21
   * does for package_method operations it scheduled (they run then).
   */
  sectionFinished?(env: PromiseEnvironment): void;
  /**
   * The type counts its outcomes in the run's accounting itself (through
   * `env.audit`, once per verdict as 3.21's cfPS does), not the engine.
   */
  readonly auditsItself?: boolean;
  /**
   * The type shows the promise's banner itself (`env.promiseBanner`), as
   * 3.21 does for packages promises only once their checks pass.
   */
  readonly announcesItself?: boolean;
  /** Called once the bundlesequence has run (3.21 refreshes the package inventories then). */
  runFinished?(env: PromiseEnvironment): void;
}
