/**
 * What ends an exchange with a promise module that overruns its time limit.
 *
 * The agent's thread reads a module's answer with a blocking read of a
 * FIFO (module-channel.ts): it wakes the moment the answer arrives, as
 * cf-agent does, but it cannot wake itself at a deadline. The watchdog
 * does that: at the deadline, or a little after, it writes one wake byte
 * (NUL, which the protocol never carries) to the module's output. The
 * agent drops wake bytes from what it reads; having read one, it looks at
 * its own clock, and past the exchange's deadline it kills the module
 * itself. So only the agent decides an exchange, a wake that comes early
 * or late (or while no exchange runs) does no harm, and the watchdog
 * needs to hear of an exchange only when its deadline moves out of the
 * range it watches.
 *
 * Measured on Node 20 (2 cores), the choices were:
 * - a worker thread armed through shared memory (thread-watchdog.ts):
 *   free per exchange, but 25-45 ms of CPU to boot and ~8 ms of the
 *   agent's thread to create, on every run with a custom promise;
 * - no helper, reads made non-blocking and retried with Atomics.wait
 *   between tries: a failed read costs ~9 µs and the shortest wait ~65 µs,
 *   so each exchange (~50 µs with a Python module) would come back late
 *   by tens of microseconds, +60 to +120 ms per 1,000 promises;
 * - a small perl process told through a file (timer-process.ts): ~7 ms
 *   of CPU to start (with the shell that makes the FIFOs), off the agent's
 *   thread. Told of every exchange (two positional writes, ~6 µs each on
 *   the agent's thread), it cost ~30 ms per 1,000 promises; told only
 *   when a lease runs out, a few writes a second. This is the one used.
 * The thread remains for machines where the perl timer cannot run, and
 * takes over from a timer found dead before a read blocks (someone killed
 * it; the agent looks at most every 100 ms).
 */

import { monotonicMs } from "./module-process.js";
import { ThreadWatchdog } from "./thread-watchdog.js";
import type { TimerProcess } from "./timer-process.js";

/** How often, at most, the agent looks whether the timer still runs (a look reads /proc). */
const TIMER_LOOK_MS = 100;

export interface Watchdog {
  /**
   * Wakes the next read of module `pid`'s output FIFO `outPath` no sooner
   * than `timeoutMs` from now, and not much later.
   */
  watch(pid: number, outPath: string, timeoutMs: number): void;
  /** The exchange is over. */
  done(pid: number): void;
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
export class ModuleWatchdog {
  private chosen: Watchdog | undefined;
  /** When the timer was last found alive (see beforeBlocking). */
  private timerSeenAt = Number.NEGATIVE_INFINITY;
  /** The exchange watched before the choice, to hand to the thread if the timer fails. */
  private pending: { readonly pid: number; readonly outPath: string; readonly until: number } | undefined;

  /** `timer`: a started timer process, or none to use the thread. */
  constructor(private timer: TimerProcess | undefined) {}

  /**
   * Starts watching an exchange with module `pid` whose time limit is
   * `timeoutMs`; returns its deadline (CLOCK_MONOTONIC milliseconds, see
   * monotonicMs), read before the watchdog's own clock, so that a wake for
   * this exchange never comes before it.
   */
  watch(pid: number, outPath: string, timeoutMs: number): number {
    const until = monotonicMs() + timeoutMs;
    if (this.chosen) {
      this.chosen.watch(pid, outPath, timeoutMs);
    } else {
      this.pending = { pid, outPath, until };
      this.timer?.watch(pid, outPath, timeoutMs);
    }
    return until;
  }

  /**
   * Whether something watches the exchange, so that the agent may block
   * on it: true once the timer has said so, or, when it never will, once
   * the thread has taken over; false while the timer is starting.
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
    if (pending) this.chosen.watch(pending.pid, pending.outPath, Math.max(0, pending.until - monotonicMs()));
    return true;
  }

  /**
   * Before the agent blocks on module `pid`'s answer (due at `deadline`):
   * a timer found dead (the agent looks at most every TIMER_LOOK_MS) gives
   * way to the thread, so that a timer killed during a run leaves reads
   * unwatched for that long at most (a read that blocks meanwhile waits
   * for its module).
   */
  beforeBlocking(pid: number, outPath: string, deadline: number): void {
    if (!this.timer || this.chosen !== this.timer) return;
    const now = monotonicMs();
    if (now - this.timerSeenAt < TIMER_LOOK_MS) return;
    this.timerSeenAt = now;
    if (this.timer.alive()) return;
    this.timer.shutdown();
    this.timer = undefined;
    this.chosen = new ThreadWatchdog();
    this.chosen.watch(pid, outPath, Math.max(0, deadline - now));
  }

  done(pid: number): void {
    this.pending = undefined;
    this.chosen?.done(pid);
  }

  forget(pid: number): void {
    (this.chosen ?? this.timer)?.forget?.(pid);
  }

  shutdown(): void {
    this.timer?.shutdown();
    if (this.chosen !== this.timer) this.chosen?.shutdown();
    this.timer = undefined;
    this.chosen = undefined;
  }
}
