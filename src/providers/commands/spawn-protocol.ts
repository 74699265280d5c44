/**
 * What the agent's thread and the spawn worker (spawn-worker.ts) say to
 * each other: a request to run a program; for a background program a
 * note once it has started; a reply when it is over. Plain data, no I/O.
 */

export interface SpawnRequest {
  /** Names the request in the worker's messages about it. */
  readonly id: number;
  /** Whether the agent goes on once the program has started (it asks for the result later). */
  readonly background?: boolean;
  /** The program (a path) and its arguments; no shell is involved. */
  readonly argv: readonly string[];
  /** The program's umask (the agent's process has it too while the program starts). */
  readonly umask: number;
  readonly cwd?: string;
  readonly uid?: number;
  readonly gid?: number;
  /** Milliseconds; the program runs in its own process group, all killed at the limit. */
  readonly timeoutMs?: number;
  /** Bytes of output kept; the output is closed there (the program gets SIGPIPE if it writes on). */
  readonly maxOutput: number;
  /** Stop reading at the first line holding this text (the program then gets SIGPIPE on writing). */
  readonly stopAt?: string;
  /** A file the program reads as its standard input; /dev/null when absent. */
  readonly stdinPath?: string;
  /** Variables added to (or replacing those of) the environment the program inherits; null removes one. */
  readonly env?: Readonly<Record<string, string | null>>;
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

/** A message of the worker; each one also bumps the shared counter. */
export type SpawnMessage =
  | { readonly id: number; readonly kind: "started" }
  | { readonly id: number; readonly kind: "done"; readonly reply: SpawnReply };

/** What the worker is started with. */
export interface SpawnWorkerData {
  /** A private directory for the worker's FIFOs, removed by the agent's thread at exit. */
  readonly fifoDir: string;
  /** One Int32 the worker increments (and notifies) after posting each message. */
  readonly ready: SharedArrayBuffer;
}
