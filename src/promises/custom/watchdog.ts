/**
 * What kills a promise module that overruns the deadline of an exchange.
 *
 * The agent's thread reads a module's answer with a blocking read of a
 * FIFO (module-channel.ts): it wakes the moment the answer arrives, as
 * cf-agent does, but it cannot wake itself at a deadline. Something else
 * must then kill the module's process group (which ends the read), and
 * it must never let an answer through from a module it is killing.
 *
 * Measured on Node 20 (2 cores), the choices were:
 * - a worker thread armed through shared memory (thread-watchdog.ts):
 *   free per exchange, but 25-45 ms of CPU to boot and ~8 ms of the
 *   agent's thread to create, on every run with a custom promise;
 * - no helper, reads made non-blocking and retried with Atomics.wait
 *   between tries: a failed read costs ~9 µs and the shortest wait ~65 µs,
 *   so each exchange (~50 µs with a Python module) would come back late
 *   by tens of microseconds, +60 to +120 ms per 1,000 promises;
 * - a small perl process armed through a file (timer-process.ts): ~7 ms
 *   of CPU to start (with the shell that makes the FIFOs), off the agent's
 *   thread, and two positional writes per exchange (~3 µs idle, up to
 *   ~8 µs on a loaded machine). This is the one used: a run with one
 *   custom promise takes ~23 ms less CPU than with the thread, and 1,000
 *   promises (2,000 exchanges) about as much.
 * The thread remains for machines where the perl timer cannot run.
 */

import { ThreadWatchdog } from "./thread-watchdog.js";
import type { TimerProcess } from "./timer-process.js";

export interface Watchdog {
  /** Watches the next exchange with module `pid`, which writes to the FIFO `outPath`. */
  arm(pid: number, outPath: string, timeoutMs: number): void;
  /**
   * Ends the watch of the exchange. False when its deadline passed: the
   * module is (or may at any moment be) killed, and the answer must not
   * be used.
   */
  disarm(pid: number): boolean;
  /** The module is gone. */
  forget?(pid: number): void;
  shutdown(): void;
}

/** The perl timer if it starts and says it watches, else the thread. */
export class ModuleWatchdog implements Watchdog {
  private chosen: Watchdog | undefined;
  /** The exchange armed before the choice, to hand to the thread if the timer fails. */
  private pending: { readonly pid: number; readonly outPath: string; readonly until: number } | undefined;

  /** `timer`: a started timer process, or none to use the thread. */
  constructor(private timer: TimerProcess | undefined) {}

  arm(pid: number, outPath: string, timeoutMs: number): void {
    if (this.chosen) {
      this.chosen.arm(pid, outPath, timeoutMs);
      return;
    }
    this.pending = { pid, outPath, until: Date.now() + timeoutMs };
    this.timer?.arm(pid, outPath, timeoutMs);
  }

  /**
   * Makes sure something watches before the agent blocks on an armed
   * exchange. Called after the request is written, so that the first
   * exchange's wait for the timer to start overlaps the module's work.
   */
  watching(): void {
    if (this.chosen) return;
    if (this.timer?.ready()) {
      this.chosen = this.timer;
      return;
    }
    this.timer = undefined;
    this.chosen = new ThreadWatchdog();
    const pending = this.pending;
    if (pending) this.chosen.arm(pending.pid, pending.outPath, Math.max(0, pending.until - Date.now()));
  }

  disarm(pid: number): boolean {
    this.watching();
    return (this.chosen as Watchdog).disarm(pid);
  }

  forget(pid: number): void {
    this.chosen?.forget?.(pid);
  }

  shutdown(): void {
    this.timer?.shutdown();
    if (this.chosen !== this.timer) this.chosen?.shutdown();
    this.timer = undefined;
    this.chosen = undefined;
  }
}
