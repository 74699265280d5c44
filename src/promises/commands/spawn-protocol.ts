/**
 * What the agent's thread and the spawn worker (spawn-worker.ts) say to
 * each other: one request to run a program, one reply when it is over.
 * Plain data, no I/O.
 */

export interface SpawnRequest {
  /** The program (a path) and its arguments; no shell is involved. */
  readonly argv: readonly string[];
  readonly cwd?: string;
  readonly uid?: number;
  readonly gid?: number;
  /** Milliseconds; the program runs in its own process group, all killed at the limit. */
  readonly timeoutMs?: number;
  /** Bytes of output kept; more is read and dropped. */
  readonly maxOutput: number;
  /** Stop reading at the first line holding this text (the program then gets SIGPIPE on writing). */
  readonly stopAt?: string;
}

export interface SpawnReply {
  /** The exit status; null when the program did not exit by itself. */
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  /** Standard output and standard error, in the order written. */
  readonly output: Uint8Array;
  /** Why the program could not be started. */
  readonly error?: string;
}

/** What the worker is started with. */
export interface SpawnWorkerData {
  /** A private directory for the worker's FIFOs, removed by the agent's thread at exit. */
  readonly fifoDir: string;
  /** One Int32: the worker sets it to 1 (and notifies) when a reply is posted. */
  readonly ready: SharedArrayBuffer;
}
