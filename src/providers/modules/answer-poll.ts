/**
 * How long the agent polls for a module's answer before it blocks on it.
 *
 * Why poll at all: a blocking read leaves the agent's CPU idle while the
 * module works, and an idle CPU is slow to wake when the answer comes
 * (in a virtual machine the CPU is halted, and the host must schedule it
 * again). With answers that take tens of microseconds, as a Python module
 * gives them, that wake-up was most of an exchange. Measured on 2 virtual
 * CPUs, 1,000 promises through a JSON module: blocking at once, the
 * requests took 115 to 330 ms from run to run; polling first, 115 to 170.
 *
 * Polling costs CPU (a failed read is ~3 µs), so it is done only where it
 * can pay: with more than one CPU to run on (else the module could not
 * answer while the agent polls), and for at most twice the time answers
 * have lately taken, never past LONGEST_POLL_US. A module whose answers
 * take longer is not polled for.
 */
import { availableParallelism } from "node:os";

/** The longest poll, in microseconds: past it a wake-up is small beside the wait. */
const LONGEST_POLL_US = 200;

export class AnswerPoll {
  private readonly useful: boolean;
  /** How long answers have lately taken to start coming (µs), smoothed. */
  private typicalUs = LONGEST_POLL_US / 2;

  constructor(cpus = availableParallelism()) {
    this.useful = cpus > 1;
  }

  /** How long to poll for the next answer (µs); 0 not to poll. */
  budgetUs(): number {
    if (!this.useful || this.typicalUs > LONGEST_POLL_US) return 0;
    return Math.min(LONGEST_POLL_US, 2 * this.typicalUs);
  }

  /** An answer started coming `us` microseconds after its request was written. */
  observe(us: number): void {
    this.typicalUs += (us - this.typicalUs) / 4;
  }
}
