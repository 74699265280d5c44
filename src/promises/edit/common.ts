/**
 * What the edit_line promise types share: a record of one promise's work
 * on the file (its outcome and cf-agent's messages), whether it may change
 * anything, its closing message, and the run-wide cache that lets an edit
 * promise act once per file and run.
 */
import { type Outcome, combineOutcomes } from "../outcome.js";
import { applyOutcomeClasses } from "../outcome-classes.js";
import type { Value } from "../../eval/values.js";
import type { LogLevel } from "../../system/logger.js";
import type { ActivePromise, EditSession, PromiseEnvironment } from "../contract.js";
import { promiseRef } from "../promise-ref.js";
import type { RunSlot } from "../run-state.js";
import { asText } from "../values.js";

/**
 * One edit promise at work. Like cf-agent's Record* calls, each message
 * also defines the promise's outcome classes for what it reports, so a
 * promise that kept one line and added another gets both kinds.
 */
export class EditRecord {
  outcome: Outcome = "kept";

  constructor(
    readonly promise: ActivePromise,
    readonly env: PromiseEnvironment,
    readonly session: EditSession,
  ) {}

  get filename(): string {
    return this.session.filename;
  }

  update(outcome: Outcome): void {
    this.outcome = combineOutcomes(this.outcome, outcome);
  }

  /** A change made: an info message, repaired. */
  changed(message: string): void {
    this.env.log.info(message);
    applyOutcomeClasses(this.promise, this.env, "repaired");
    this.update("repaired");
  }

  /** Nothing to do: a verbose message. */
  unchanged(message: string): void {
    this.env.log.verbose(message);
    applyOutcomeClasses(this.promise, this.env, "kept");
  }

  /** The promise cannot go on: an error; interrupted. */
  interrupted(message: string): void {
    this.env.log.error(message);
    applyOutcomeClasses(this.promise, this.env, "interrupted");
    this.update("interrupted");
  }

  failed(message: string): void {
    this.env.log.error(message);
    applyOutcomeClasses(this.promise, this.env, "failed");
    this.update("failed");
  }

  /**
   * Whether the change `what` may be made; in a dry run or with
   * `action_policy => "warn"` it says what it should do and the outcome
   * becomes a warning (as cf-agent's MakingChanges).
   */
  making(what: string): boolean {
    return makingChanges(this.promise, this.env, what, (o) => {
      this.outcome = o;
    });
  }

  /** Where the promise comes from (cf-agent's PromiseRef), at `level`. */
  ref(level: LogLevel): void {
    promiseRef(this.env, level, this.promise);
  }

  /** cf-agent's closing line for the promise, by outcome; returns the outcome. */
  close(type: string): Outcome {
    return closeEditPromise(type, this.promise, this.env, this.outcome);
  }
}

/** Whether a promise may change things (not a dry run, no `action_policy => "warn"`). */
export function makingChanges(
  promise: ActivePromise,
  env: PromiseEnvironment,
  what: string,
  setOutcome: (o: Outcome) => void,
): boolean {
  const warnOnly = asText(promise.bodyValue("action", "action_policy")) === "warn";
  if (!env.dryRun && !warnOnly) return true;
  env.log.warning(warnOnly ? `Should ${what}, but only warning promised` : `Should ${what}`);
  applyOutcomeClasses(promise, env, "warn");
  setOutcome("warn");
  return false;
}

/** The closing line cf-agent logs for each edit promise, by its result. */
export function closeEditPromise(
  type: string,
  promise: ActivePromise,
  env: PromiseEnvironment,
  outcome: Outcome,
): Outcome {
  switch (outcome) {
    case "kept":
      env.log.verbose(`No changes done for the ${type} promise '${promise.promiser}'`);
      break;
    case "repaired":
      env.log.info(`${type} promise '${promise.promiser}' repaired`);
      break;
    case "warn":
      env.log.warning(`Warnings encountered when actuating ${type} promise '${promise.promiser}'`);
      break;
    case "skipped":
      break;
    default:
      env.log.error(`Errors encountered when actuating ${type} promise '${promise.promiser}'`);
  }
  return outcome;
}

// ---- once per file and run ---------------------------------------------------

/** Edit promises already acted on in this run. */
const ACTED: RunSlot<Set<string>> = { name: "edit promises acted on", create: () => new Set() };

function valueKey(value: Value | undefined): string {
  if (!value) return "";
  if (value.type === "data") return JSON.stringify(value.value);
  return Array.isArray(value.value) ? value.value.join("\u0001") : String(value.value);
}

/** What identifies a promise as cf-agent's lock hash does: promiser, bundle, constraints. */
function promiseKey(promise: ActivePromise, salt: string): string {
  const bundle = promise.bundle.block;
  const parts = [promise.type, salt, bundle.namespace, bundle.name.text, promise.promiser];
  for (const attribute of promise.node.attributes) {
    const name = attribute.name.text;
    const body = promise.body(name);
    if (!body) {
      parts.push(name, valueKey(promise.value(name)));
      continue;
    }
    parts.push(name, body.name);
    for (const inner of body.attributes.keys()) parts.push(inner, valueKey(promise.bodyValue(name, inner)));
  }
  return parts.join("\u0000");
}

/**
 * Whether this edit promise already acted on this file in this run. Like
 * cf-agent's lock cache, an edit promise acts once per file and run (not
 * in every pass, nor again when a later files promise edits the same file
 * with the same bundle); `salt` distinguishes what the lock name does.
 */
export function alreadyActed(promise: ActivePromise, env: PromiseEnvironment, salt: string): boolean {
  const keys = env.runState.get(ACTED);
  const key = promiseKey(promise, salt);
  if (keys.has(key)) return true;
  keys.add(key);
  return false;
}
