/**
 * What every step of a files promise shares: the promise, the path it acts
 * on, whether it may change anything, and the outcome so far. Steps log
 * changes at `info`, refusals at `warning` and failures at `error`, in
 * cf-agent's words, and fold their result into the promise's outcome.
 */
import { combineOutcomes, type Outcome } from "../../agent/outcome.js";
import { applyOutcomeClasses } from "../../agent/outcome-classes.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import { asText } from "../values.js";

export class FileStep {
  outcome: Outcome = "kept";
  /** `action_policy => "warn"` or a dry run: report what would change, change nothing. */
  readonly warnOnly: boolean;

  constructor(
    readonly promise: ActivePromise,
    readonly env: PromiseEnvironment,
    readonly path: string,
  ) {
    this.warnOnly = env.dryRun || asText(promise.bodyValue("action", "action_policy")) === "warn";
  }

  /**
   * Whether the step may go on to make the change `what` describes
   * ("delete file '/x'"); when it may not, says so and records a warning.
   */
  makingChanges(what: string): boolean {
    if (!this.warnOnly) return true;
    this.env.log.warning(`Should ${what}, but only warning promised`);
    this.record("warn");
    return false;
  }

  /**
   * Like cf-agent's Record* calls, each change, failure or kept state also
   * defines the promise's outcome classes for it at once: a promise that
   * kept one thing and repaired another gets both kinds.
   */
  changed(message: string): void {
    this.env.log.info(message);
    this.record("repaired");
  }

  failed(message: string): void {
    this.env.log.error(message);
    this.record("failed");
  }

  /** Something already as promised (cf-agent's RecordNoChange): verbose, kept classes. */
  kept(message: string): void {
    this.env.log.verbose(message);
    applyOutcomeClasses(this.promise, this.env, "kept");
  }

  unchanged(message: string): void {
    this.env.log.verbose(message);
  }

  private record(outcome: Outcome): void {
    applyOutcomeClasses(this.promise, this.env, outcome);
    this.update(outcome);
  }

  update(outcome: Outcome): void {
    this.outcome = combineOutcomes(this.outcome, outcome);
  }
}

/** A system error's text as cf-agent prints it (`No such file or directory`). */
export function errorText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  return (code && SYSTEM_ERRORS[code]) ?? (error instanceof Error ? error.message : String(error));
}

const SYSTEM_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: "No such file or directory",
  EEXIST: "File exists",
  EACCES: "Permission denied",
  EPERM: "Operation not permitted",
  ENOTDIR: "Not a directory",
  EISDIR: "Is a directory",
  ENOTEMPTY: "Directory not empty",
  EROFS: "Read-only file system",
  ENOSPC: "No space left on device",
};
