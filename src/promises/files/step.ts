/**
 * What every step of a files promise shares: the promise, the path it acts
 * on, whether it may change anything, and the outcome so far. Steps log
 * changes at `info`, refusals at `warning` and failures at `error`, in
 * cf-agent's words, and fold their result into the promise's outcome.
 *
 * As in cf-agent, every recorded event (a change, a check that found all
 * as promised, a failure) also defines the classes of the promise's
 * `classes` body for that event at once, with `$(this.promiser)` being the
 * path the step acts on. So one promise can define both its kept and its
 * repaired classes, as 3.21 does.
 */
import type { Rval } from "../../language/ast.js";
import type { Value } from "../../eval/values.js";
import { scalar } from "../../eval/values.js";
import { expandRval } from "../../eval/expand.js";
import { combineOutcomes, type Outcome } from "../outcome.js";
import { applyOutcomeClasses } from "../outcome-classes.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import { promiseRef } from "../promise-ref.js";
import { asText } from "../values.js";

export class FileStep {
  outcome: Outcome = "kept";
  /** `action_policy => "warn"` or a dry run: report what would change, change nothing. */
  readonly warnOnly: boolean;
  /** `action_policy => "warn"` itself (a dry run says only "Should ..."). */
  private readonly warnPolicy: boolean;

  /** `$(this.promiser)` for the classes of this step's events. */
  private readonly promiserPath: string;

  constructor(
    readonly promise: ActivePromise,
    readonly env: PromiseEnvironment,
    readonly path: string,
    promiserPath?: string,
  ) {
    this.warnPolicy = asText(promise.bodyValue("action", "action_policy")) === "warn";
    this.warnOnly = env.dryRun || this.warnPolicy;
    this.promiserPath = promiserPath ?? path;
  }

  /** A step of the same promise on another path, which is also its promiser (a leaf of a depth search). */
  forPath(path: string): FileStep {
    return new FileStep(this.promise, this.env, path);
  }

  /** A step acting on another path for the same promiser (a directory made on the way). */
  at(path: string): FileStep {
    return new FileStep(this.promise, this.env, path, this.promiserPath);
  }

  /**
   * Whether the step may go on to make the change `what` describes
   * ("delete file '/x'"); when it may not, says so and records a warning.
   */
  makingChanges(what: string): boolean {
    if (!this.warnOnly) return true;
    this.env.log.warning(this.warnPolicy ? `Should ${what}, but only warning promised` : `Should ${what}`);
    this.record("warn");
    this.update("warn");
    return false;
  }

  /** A change made: logged at info, repaired classes. */
  changed(message: string): void {
    this.env.log.info(message);
    this.record("repaired");
    this.update("repaired");
  }

  /** A failure: logged as an error, repair_failed classes. */
  failed(message: string): void {
    this.env.log.error(message);
    this.record("failed");
    this.update("failed");
  }

  /** A refusal: logged as a warning, repair_failed classes. */
  warned(message: string): void {
    this.env.log.warning(message);
    this.record("warn");
    this.update("warn");
  }

  /** A change the system refused (chown, chflags): an error, repair_denied classes. */
  denied(message: string): void {
    this.env.log.error(message);
    this.record("denied");
    this.update("denied");
  }

  /** An operation cut short: an error, repair_failed classes. */
  interrupted(message: string): void {
    this.env.log.error(message);
    this.record("interrupted");
    this.update("interrupted");
  }

  /** All as promised (cf-agent's RecordNoChange): logged in verbose mode, kept classes. */
  kept(message: string): void {
    this.env.log.verbose(message);
    this.record("kept");
  }

  /** cf-agent's PromiseRef after some errors: where the promise comes from. */
  ref(): void {
    promiseRef(this.env, "error", this.promise);
  }

  /** A verbose note that records no outcome. */
  unchanged(message: string): void {
    this.env.log.verbose(message);
  }

  /**
   * The promise's outcome for its path, as cf-agent's last cfPS in
   * VerifyFilePromise: the classes body is applied once more for the
   * combined outcome, with `$(this.promiser)` the path the promise was
   * verified for (a depth search's leaves defined theirs with their own).
   */
  concluded(outcome: Outcome = this.outcome): void {
    this.record(outcome);
  }

  update(outcome: Outcome): void {
    this.outcome = combineOutcomes(this.outcome, outcome);
  }

  /** Expands an attribute as written with `$(this.promiser)` being this step's path. */
  expandForPath(rval: Rval): Value | undefined {
    return withPromiser(this.env, this.promiserPath, () =>
      expandRval(this.env.ctx, rval, this.promise.options),
    );
  }

  /** Defines (and cancels) the classes body's classes for one event. */
  private record(outcome: Outcome): void {
    const body = this.promise.body("classes");
    if (!body) return;
    // Under --simulate the step acts on a copy in the chroot; classes name the real path.
    const path = this.env.changesChroot?.toNormal(this.promiserPath) ?? this.promiserPath;
    const read = (name: string): Value | undefined => {
      const rval = body.attributes.get(name)?.value;
      return rval
        ? withPromiser(this.env, path, () => expandRval(this.env.ctx, rval, this.promise.options))
        : undefined;
    };
    applyOutcomeClasses(this.promise, this.env, outcome, read);
  }
}

/** Runs `fn` with `$(this.promiser)` set to `path`, restoring it after. */
export function withPromiser<T>(env: PromiseEnvironment, path: string, fn: () => T): T {
  const vars = env.ctx.currentFrame().thisVars;
  const saved = vars.get("promiser");
  vars.set("promiser", scalar(path));
  try {
    return fn();
  } finally {
    if (saved) vars.set("promiser", saved);
    else vars.delete("promiser");
  }
}

/** A system error's text as cf-agent prints it (`No such file or directory`). */
export { errorText } from "../../providers/files/errors.js";
