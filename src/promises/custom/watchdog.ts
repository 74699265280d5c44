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

import { monotonicMs } from "./module-process.js";
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

/**
 * The perl timer once it says it watches, else the thread. Until the timer
 * has started, the agent does not block on an answer (see
 * module-channel.ts): it polls, so that a module answering before the
 * timer is up need not wait for it.
 */
export class ModuleWatchdog implements Watchdog {
  private chosen: Watchdog | undefined;
  /** The exchange armed before the choice, to hand to the thread if the timer fails. */
  private pending: { readonly pid: number; readonly outPath: string; readonly until: number } | undefined;

  /** `timer`: a started timer process, or none to use the thread. */
  constructor(private timer: TimerProcess | undefined) {}

  /** Watches the next exchange; returns its deadline (CLOCK_MONOTONIC milliseconds, see monotonicMs). */
  arm(pid: number, outPath: string, timeoutMs: number): number {
    const until = monotonicMs() + timeoutMs;
    if (this.chosen) {
      this.chosen.arm(pid, outPath, timeoutMs);
    } else {
      this.pending = { pid, outPath, until };
      this.timer?.arm(pid, outPath, timeoutMs);
    }
    return until;
  }

  /**
   * Whether something watches the armed exchange, so that the agent may
   * block on it: true once the timer has said so, or, when it never will,
   * once the thread has taken over; false while the timer is starting.
   */
  watchingNow(): boolean {
    if (this.chosen) return true;
    if (this.timer && !this.timer.settled()) return false;
    if (this.timer?.watching) {
      this.chosen = this.timer;
      return true;
    }
    this.timer = undefined;
    this.chosen = new ThreadWatchdog();
    const pending = this.pending;
    if (pending) this.chosen.arm(pending.pid, pending.outPath, Math.max(0, pending.until - monotonicMs()));
    return true;
  }

  disarm(pid: number): boolean {
    if (this.chosen) return this.chosen.disarm(pid);
    // Answered while the timer was starting: it must not act on this exchange later.
    const inTime = this.timer?.disarm() ?? true;
    return inTime && monotonicMs() <= (this.pending?.until ?? Number.POSITIVE_INFINITY);
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
