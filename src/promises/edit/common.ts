/**
 * What the edit_line promise types share: the file being edited (or a
 * skip outside edit bundles), cf-agent's closing line for each promise,
 * and whether the promise may change anything.
 */
import type { Outcome } from "../../agent/outcome.js";
import type { ActivePromise, EditSession, PromiseEnvironment } from "../contract.js";
import { asText } from "../values.js";

/** Whether the promise may make a change; otherwise logs the warning and notes it. */
export function mayChange(
  promise: ActivePromise,
  env: PromiseEnvironment,
  what: string,
  note: (o: Outcome) => void,
): boolean {
  if (!env.dryRun && asText(promise.bodyValue("action", "action_policy")) !== "warn") return true;
  env.log.warning(`Should ${what}, but only warning promised`);
  note("warn");
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
      editInfo(env, `${type} promise '${promise.promiser}' repaired`);
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

/** The session, or undefined (the promise is skipped) outside an edit bundle. */
export function sessionOf(env: PromiseEnvironment): EditSession | undefined {
  return env.editing;
}

/**
 * How many lines of `chunk` (split at newlines) match the file's lines from
 * `at` on, one line each: 0 unless every piece matches in turn.
 */
export function matchChunk(
  chunk: string,
  lines: readonly string[],
  at: number,
  same: (piece: string, line: string) => boolean,
): number {
  if (at < 0) return 0;
  const pieces = chunk.split("\n");
  for (let k = 0; k < pieces.length; k++) {
    const line = lines[at + k];
    if (line === undefined || !same(pieces[k] as string, line)) return 0;
  }
  return pieces.length;
}

/** Edit promises already acted on in a run (by the agent running it), by promise. */
const acted = new WeakMap<PromiseEnvironment, WeakMap<object, Set<string>>>();

/**
 * Whether this edit promise already acted on this file in this run. Like
 * cf-agent, an edit promise acts once per file per run, not in every pass:
 * later passes (and later edits of the same file by the same promise) skip it.
 */
export function alreadyActed(promise: ActivePromise, env: PromiseEnvironment, session: EditSession): boolean {
  let byNode = acted.get(env);
  if (!byNode) {
    byNode = new WeakMap();
    acted.set(env, byNode);
  }
  let keys = byNode.get(promise.node);
  if (!keys) {
    keys = new Set();
    byNode.set(promise.node, keys);
  }
  const key = `${session.filename}\u0000${promise.promiser}`;
  if (keys.has(key)) return true;
  keys.add(key);
  return false;
}

/** Info messages of edits held until the file is saved (cf-agent drops them otherwise). */
const held = new WeakMap<EditSession, string[]>();

/** Starts holding the info messages of edits to `session`; returns the list they go to. */
export function holdMessages(session: EditSession): string[] {
  const list: string[] = [];
  held.set(session, list);
  return list;
}

/** An info message about an edit: held with the session's messages, if they are held. */
export function editInfo(env: PromiseEnvironment, message: string): void {
  const list = env.editing ? held.get(env.editing) : undefined;
  if (list) list.push(message);
  else env.log.info(message);
}
