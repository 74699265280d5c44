/**
 * What storage promises keep during a run (3.21's mount list, its fstab
 * edits and its mount-all flag) and how a verdict is given (3.21's cfPS:
 * logged, the `classes` body applied and the outcome counted at once).
 */
import type { LogLevel } from "../../system/logger.js";
import type { Outcome } from "../outcome.js";
import { applyOutcomeClasses } from "../outcome-classes.js";
import { DEFAULT_FSTAB, FstabEdits, type MountEntry } from "../../providers/mounts/index.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import { logPromiseContext } from "../promise-context.js";
import { asText } from "../values.js";

/** What a run keeps between storage promises: 3.21's mount list, fstab edits and mount-all flag. */
export class StorageRun {
  /** The mount table, read by the first promise of a storage section. */
  table: MountEntry[] | undefined;
  readonly fstab = new FstabEdits(DEFAULT_FSTAB);
  /** Mount everything in fstab at the end of each storage section (`mountfilesystems`, or a mount missing). */
  mountAll: boolean;

  constructor(env: PromiseEnvironment) {
    const control = asText(env.controlValue?.("agent", "mountfilesystems"));
    this.mountAll = control === "true" || control === "yes" || control === "on";
    if (control !== undefined) env.log.verbose(`Setting mountfilesystems to '${this.mountAll}'`);
  }
}

/** One promise on one path: its verdicts, as 3.21's cfPS gives them. */
export class Verdicts {
  constructor(
    readonly promise: ActivePromise,
    readonly env: PromiseEnvironment,
  ) {}

  record(level: LogLevel, outcome: Outcome, message: string): Outcome {
    if (level === "verbose" || level === "debug") logPromiseContext(this.promise, this.env);
    this.env.log.log(level, message);
    applyOutcomeClasses(this.promise, this.env, outcome);
    this.env.audit?.(outcome);
    return outcome;
  }
}

/** Whether the agent runs as root (3.21 mounts only then). */
export function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/** cf-agent's fstab path in its messages. */
export const FSTAB_NAME = DEFAULT_FSTAB;
