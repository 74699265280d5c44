/**
 * The shared state of the thread watchdog (thread-watchdog.ts): the
 * agent's thread arms it with a module's process id and a deadline before
 * each exchange and disarms it after; the watchdog thread looks every few
 * milliseconds and, past the deadline, takes the arm and wakes the read
 * (once per arm). Deadlines are CLOCK_MONOTONIC milliseconds, the agent's
 * clock: Date.now() could jump and wake a read before the agent's own
 * deadline, which the agent would then ignore.
 */

const ARMED_PID = 0;
/** Byte offset of the Float64 deadline. */
const DEADLINE_OFFSET = 8;
export const SHARED_BYTES = 16;

/** Milliseconds of CLOCK_MONOTONIC, as module-process.ts reads them (this file also runs in the thread). */
function monotonicMs(): number {
  const [seconds, nanoseconds] = process.hrtime();
  return seconds * 1000 + nanoseconds / 1e6;
}

export class SharedState {
  private readonly ints: Int32Array;
  private readonly deadline: Float64Array;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.ints = new Int32Array(buffer, 0, 1);
    this.deadline = new Float64Array(buffer, DEADLINE_OFFSET, 1);
  }

  arm(pid: number, timeoutMs: number): void {
    this.deadline[0] = monotonicMs() + timeoutMs;
    Atomics.store(this.ints, ARMED_PID, pid);
  }

  disarm(pid: number): void {
    Atomics.compareExchange(this.ints, ARMED_PID, pid, 0);
  }

  /** The armed process id once its deadline has passed (taking the arm), else 0. */
  takeExpired(): number {
    const pid = Atomics.load(this.ints, ARMED_PID);
    if (pid === 0 || monotonicMs() <= this.deadline[0]) return 0;
    return Atomics.compareExchange(this.ints, ARMED_PID, pid, 0) === pid ? pid : 0;
  }
}
