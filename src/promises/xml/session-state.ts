/**
 * The state of one edit_xml edit: the document (undefined when the file
 * could not be parsed: every promise then fails), how many edits were made
 * (cf-agent's `num_edits`: the file is compared and saved only if some
 * were), and the per-run locks of the promises acting on it.
 */
import type { ActivePromise, EditSession, PromiseEnvironment } from "../contract.js";
import type { RunSlot } from "../run-state.js";
import type { XmlDocument } from "./parse.js";

export interface XmlEditSession {
  readonly filename: string;
  readonly document: XmlDocument | undefined;
  edits: number;
  readonly locks: RunLocks;
}

const sessions = new WeakMap<EditSession, XmlEditSession>();

export function attachXmlSession(edit: EditSession, xml: XmlEditSession): void {
  sessions.set(edit, xml);
}

/** The XML edit going on in the environment, if an edit_xml bundle is running. */
export function xmlSessionOf(env: PromiseEnvironment): XmlEditSession | undefined {
  return env.editing ? sessions.get(env.editing) : undefined;
}

/**
 * cf-agent locks each operation of each promise once per run (a lock
 * named after the operation and the file, hashed with the promise): the
 * first request succeeds, later passes are refused.
 */
export class RunLocks {
  private readonly taken = new WeakMap<object, Set<string>>();

  acquire(promise: ActivePromise, operation: string): boolean {
    let names = this.taken.get(promise.node);
    if (!names) {
      names = new Set();
      this.taken.set(promise.node, names);
    }
    const key = [
      operation,
      promise.promiser,
      promise.text("select_xpath") ?? "",
      promise.text("build_xpath") ?? "",
      promise.text("attribute_value") ?? "",
    ].join("\u0000");
    if (names.has(key)) return false;
    names.add(key);
    return true;
  }
}

const RUN_LOCKS: RunSlot<RunLocks> = { name: "edit_xml operation locks", create: () => new RunLocks() };

/** The locks of the whole run. */
export function runLocksOf(env: PromiseEnvironment): RunLocks {
  return env.runState.get(RUN_LOCKS);
}
