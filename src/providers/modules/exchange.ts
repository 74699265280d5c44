/**
 * What one exchange with a promise module gives, and what the watchdogs
 * say to the agent's thread and it to them. A failed exchange is a result
 * like a successful one.
 */

/**
 * What a watchdog writes to a module's output to wake the agent's read at
 * a deadline (see watchdog.ts): NUL, which the protocol never carries.
 */
export const WAKE_BYTE = 0;

/** Tells the watchdog about a module (the FIFO it writes to end a read that waits), or that it is gone. */
export type WatchdogMessage =
  | { readonly op: "watch"; readonly pid: number; readonly outPath: string }
  | { readonly op: "forget"; readonly pid: number };

export type ExchangeStatus =
  /** A complete answer arrived. */
  | "ok"
  /** No complete answer within the time limit; the module was killed. */
  | "timeout"
  /** The module closed its output (exited) before answering completely. */
  | "exited"
  /** The answer grew past the size limit; the module was killed. */
  | "too-large"
  /** There is no such running module. */
  | "failed";

export interface ExchangeResult {
  readonly status: ExchangeStatus;
  /** The answer's lines; on failure, the complete lines received so far. */
  readonly lines: readonly string[];
  /** What the module wrote to standard error since the last exchange. */
  readonly stderr: string;
  /** How the module ended, when it did (and it is known). */
  readonly exitCode?: number | null;
  readonly signal?: string | null;
  /** Why the exchange failed (`failed`). */
  readonly error?: string;
  /**
   * The module had already exited: the request could not be written and
   * nothing was read, so it never saw the request.
   */
  readonly undelivered?: boolean;
}
