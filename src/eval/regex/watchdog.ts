/**
 * A bounded time for every match of a pattern from policy or data.
 *
 * JavaScript's backtracking engine has no match limit, where PCRE stops
 * after ten million steps and cf-agent takes that as "no match". Patterns
 * V8's linear-time engine can run need nothing more: V8 is told here,
 * before any pattern is compiled, to finish them there once they backtrack
 * too much. The rest (back references, lookarounds, atomic groups, large
 * counted repeats) are matched here, in a worker thread the caller waits for synchronously: a
 * match that runs past the limit is abandoned with its worker and counts as
 * no match, silently, as in cf-agent.
 */
import { setFlagsFromString } from "node:v8";
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";

// bin/tend.js sets the same flags before it compiles the bundle (its code
// cache is tied to the flags): a flag added here goes there too.
setFlagsFromString("--enable-experimental-regexp-engine");
setFlagsFromString("--enable-experimental-regexp-engine-on-excessive-backtracks");
// A million backtracks (milliseconds) before the switch: the linear engine is
// slow on long subjects, where an ordinary pattern can backtrack once per line.
setFlagsFromString("--regexp-backtracks-before-fallback=1000000");

/** Whether V8 can run this regex in linear time (the `l` flag accepts it). */
export function runsInLinearTime(source: string, flags: string): boolean {
  try {
    new RegExp(source, `${flags}l`);
    return true;
  } catch {
    return false;
  }
}

/**
 * A RegExp for a pattern from policy or data, whose matches take a bounded
 * time: a plain RegExp when V8 can run it in linear time (its builtin fast
 * paths stay), a BoundedRegExp otherwise.
 */
export function boundedRegExp(source: string, flags = ""): RegExp {
  return runsInLinearTime(source, flags) ? new RegExp(source, flags) : new BoundedRegExp(source, flags);
}

/**
 * A RegExp whose exec takes a bounded time: natively when V8 can finish it
 * in linear time, under the watchdog otherwise. Use it for every pattern
 * that comes from policy or data. A match that runs out of time is no
 * match; asked again on the same subject, it is no match at once.
 */
export class BoundedRegExp extends RegExp {
  /**
   * How exec runs: "linear" natively (V8 bounds it), "guarded" under the
   * watchdog; "lines" natively on subjects without a newline through
   * `singleLine`, under the watchdog otherwise.
   */
  mode: "linear" | "lines" | "guarded";
  /** The same pattern for subjects without a newline (mode "lines"). */
  singleLine: RegExp | undefined;
  /** Subjects (with the start position) on which a match ran out of time. */
  private outOfTime: Set<string> | undefined;

  constructor(pattern: string | RegExp, flags?: string) {
    super(pattern, flags);
    this.mode = runsInLinearTime(this.source, this.flags) ? "linear" : "guarded";
  }

  /** Mode "lines": `source` is the pattern for subjects without a newline. */
  useForSingleLines(source: string): void {
    if (this.mode !== "guarded" || !runsInLinearTime(source, this.flags)) return;
    this.mode = "lines";
    this.singleLine = new RegExp(source, this.flags);
  }

  override exec(subject: string): RegExpExecArray | null {
    if (this.mode === "linear") return super.exec(subject);
    const single = this.singleLine;
    if (single !== undefined && !subject.includes("\n")) {
      single.lastIndex = this.lastIndex;
      const match = single.exec(subject);
      this.lastIndex = single.lastIndex;
      return match;
    }
    const key = `${this.lastIndex}:${subject}`;
    if (this.outOfTime?.has(key)) {
      if (this.global || this.sticky) this.lastIndex = 0;
      return null;
    }
    const match = execWithTimeLimit(this, subject);
    if (match === TIMED_OUT) {
      this.outOfTime ??= new Set();
      if (this.outOfTime.size < 64 && subject.length <= REMEMBERED_SUBJECT) this.outOfTime.add(key);
      return null;
    }
    return match;
  }
}

/** The longest subject whose time-out is remembered (larger ones are timed out again). */
const REMEMBERED_SUBJECT = 64 * 1024;

/** How long one match may run before it counts as no match. */
export const MATCH_TIME_LIMIT_MS = 250;
/** How long a new worker may take to start. */
const START_TIME_LIMIT_MS = 10_000;

/** What the worker answers: the match's items, where it starts, the new lastIndex. */
interface Answer {
  readonly items: (string | undefined)[] | null;
  readonly index: number;
  readonly lastIndex: number;
}

/** The worker: compiles (with a small cache) and runs one exec per message. */
const WORKER_SOURCE = `
const { workerData } = require("node:worker_threads");
const flag = new Int32Array(workerData.flag);
const port = workerData.port;
const cache = new Map();
port.on("message", (job) => {
  const key = job.flags + "\\u0000" + job.source;
  let regex = cache.get(key);
  if (!regex) {
    if (cache.size > 200) cache.clear();
    regex = new RegExp(job.source, job.flags);
    cache.set(key, regex);
  }
  regex.lastIndex = job.lastIndex;
  const match = regex.exec(job.subject);
  port.postMessage({
    items: match === null ? null : Array.from(match),
    index: match === null ? -1 : match.index,
    lastIndex: regex.lastIndex,
  });
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
});
Atomics.store(flag, 0, 1);
Atomics.notify(flag, 0);
`;

interface Matcher {
  readonly worker: Worker;
  readonly port: MessagePort;
  readonly flag: Int32Array;
}

let matcher: Matcher | undefined;

function startMatcher(): Matcher | undefined {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { flag: flag.buffer, port: port2 },
    transferList: [port2],
  });
  worker.unref();
  port1.unref();
  worker.on("error", () => {});
  if (Atomics.wait(flag, 0, 0, START_TIME_LIMIT_MS) === "timed-out") {
    void worker.terminate();
    return undefined;
  }
  return { worker, port: port1, flag };
}

/** What execWithTimeLimit gives when the match ran out of time. */
const TIMED_OUT = Symbol("timed out");

/**
 * `regex.exec(subject)` with a bounded time, in the worker (`regex` holds
 * lastIndex, which is read and updated). On time-out: TIMED_OUT, and
 * lastIndex reset as on a failed match.
 */
function execWithTimeLimit(regex: RegExp, subject: string): RegExpExecArray | null | typeof TIMED_OUT {
  matcher ??= startMatcher();
  const current = matcher;
  if (current === undefined) return giveUp(regex);
  Atomics.store(current.flag, 0, 0);
  current.port.postMessage({ source: regex.source, flags: regex.flags, lastIndex: regex.lastIndex, subject });
  if (Atomics.wait(current.flag, 0, 0, MATCH_TIME_LIMIT_MS) === "timed-out") {
    matcher = undefined;
    void current.worker.terminate();
    return giveUp(regex);
  }
  const received = receiveMessageOnPort(current.port);
  if (received === undefined) return giveUp(regex);
  const answer = received.message as Answer;
  regex.lastIndex = answer.lastIndex;
  if (answer.items === null) return null;
  return Object.assign(answer.items, {
    index: answer.index,
    input: subject,
    groups: undefined,
  }) as RegExpExecArray;
}

function giveUp(regex: RegExp): typeof TIMED_OUT {
  if (regex.global || regex.sticky) regex.lastIndex = 0;
  return TIMED_OUT;
}
