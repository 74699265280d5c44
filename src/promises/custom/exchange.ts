/**
 * What passes between the agent's thread and the module worker (see
 * module-host.ts): requests to start, talk to and stop module processes,
 * and their results. A failed process is a result like a successful one.
 */

/** Starts a module process under `key` (no shell: `argv` as given). */
export interface SpawnCall {
  readonly op: "spawn";
  readonly key: string;
  readonly argv: readonly string[];
}

/**
 * Writes `input` to the module and reads its answer: the lines up to the
 * next empty line. Gives up after `timeoutMs`, or when the answer grows
 * past `maxBytes`; in both cases the module (its process group) is killed.
 */
export interface ExchangeCall {
  readonly op: "exchange";
  readonly key: string;
  readonly input: string;
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

/** Kills the module's process group at once. */
export interface KillCall {
  readonly op: "kill";
  readonly key: string;
}

/** Closes the module's input and waits `graceMs` for it to exit, then kills it. */
export interface CloseCall {
  readonly op: "close";
  readonly key: string;
  readonly graceMs: number;
}

/** Kills every module left and ends the worker. */
export interface ShutdownCall {
  readonly op: "shutdown";
}

export type HostCall = SpawnCall | ExchangeCall | KillCall | CloseCall | ShutdownCall;

export type ExchangeStatus =
  /** A complete answer arrived. */
  | "ok"
  /** No complete answer within the time limit; the module was killed. */
  | "timeout"
  /** The module closed its output (exited) before answering completely. */
  | "exited"
  /** The answer grew past the size limit; the module was killed. */
  | "too-large"
  /** There is no such running module, or it could not be started. */
  | "failed";

export interface ExchangeResult {
  readonly status: ExchangeStatus;
  /** The answer's lines; on failure, the complete lines received so far. */
  readonly lines: readonly string[];
  /** What the module wrote to standard error since the last exchange. */
  readonly stderr: string;
  /** How the module ended, when it did. */
  readonly exitCode?: number | null;
  readonly signal?: string | null;
  /** Why the call failed (`failed`), e.g. the error of a spawn. */
  readonly error?: string;
}
