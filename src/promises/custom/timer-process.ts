/**
 * The watchdog as a small perl process (timer-script.ts), armed through a
 * file both hold open: before each exchange the agent writes the module's
 * process id and the deadline, after it a zero. That is two positional
 * writes (~1.5 µs each) per exchange and no message, no wake-up of the
 * timer and no thread; the timer looks every 20 ms.
 *
 * Exactly one side decides an exchange that ends near its deadline,
 * without a compare-and-swap between processes: both read CLOCK_MONOTONIC.
 * The timer kills only after it has seen the deadline pass and then found
 * the exchange still armed; the agent disarms, then reads the clock, and
 * takes the exchange for timed out (killing the module itself) when the
 * deadline has passed. If the agent's clock says "in time", its disarm
 * came before the deadline, hence before the timer's second look, so the
 * timer does not kill; otherwise the agent itself treats the answer as
 * late. Either way no answer is used from a module that is being killed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, closeSync, constants, openSync, readSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exitStatus, monotonicMs, sleep } from "./module-process.js";
import { TIMER_LAUNCH, TIMER_SCRIPT } from "./timer-script.js";
import type { Watchdog } from "./watchdog.js";

const READY = "tend-ok\n";
const RECORD_OFFSET = 8;
/** The longest output FIFO path the timer accepts (it is a temporary path, far shorter). */
const MAX_PATH_BYTES = 4096;
/** How long after its start the timer must say it watches (else the thread is used). */
const READY_WAIT_MS = 2_000;

let created = 0;

/**
 * Where the state file goes: /dev/shm (tmpfs) where there is one, since a
 * write to a file on a journalling file system also journals the file's
 * new modification time, which made each arm or disarm several times dearer.
 */
function stateDirectory(): string {
  try {
    accessSync("/dev/shm", constants.W_OK | constants.X_OK);
    return "/dev/shm";
  } catch {
    return tmpdir();
  }
}

/** A new state file, open read-write; removed again once the timer holds it. */
function createStateFile(): { readonly fd: number; readonly path: string } {
  const dir = stateDirectory();
  for (;;) {
    const path = join(dir, `tend-timer-${process.pid}-${Date.now()}-${created++}`);
    try {
      return { fd: openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL, 0o600), path };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}

export class TimerProcess implements Watchdog {
  private state: "starting" | "watching" | "failed" = "starting";
  /** The armed exchange's record, kept to patch the sequence and deadline (views of one buffer). */
  private record = new Uint8Array(0);
  private words = new Uint32Array(0);
  private doubles = new Float64Array(0);
  private recordPid = 0;
  private sequence = 0;
  private deadline = 0;
  private readonly zero = Buffer.alloc(4);
  private readonly readyBy = Date.now() + READY_WAIT_MS;

  private constructor(
    private readonly fd: number,
    private readonly child: ChildProcess,
  ) {}

  /**
   * Starts the timer, which first makes the FIFOs `fifos`; undefined when
   * it cannot be started (no temporary file, no process). `command` is
   * what runs the script (tests give one that fails).
   */
  static start(
    fifos: readonly string[] = [],
    command: readonly string[] = ["/bin/sh", "-c", TIMER_LAUNCH],
  ): TimerProcess | undefined {
    let file: { readonly fd: number; readonly path: string };
    try {
      file = createStateFile();
    } catch {
      return undefined;
    }
    let child: ChildProcess | undefined;
    try {
      child = spawn(command[0] as string, [...command.slice(1), TIMER_SCRIPT, ...fifos], {
        stdio: [file.fd, "ignore", "ignore"],
      });
      child.on("error", () => {});
      child.unref();
    } catch {
      child = undefined;
    }
    try {
      unlinkSync(file.path);
    } catch {
      // Both hold it open now; a file left behind is harmless, and one already gone as good.
    }
    if (child?.pid === undefined) {
      closeSync(file.fd);
      return undefined;
    }
    return new TimerProcess(file.fd, child);
  }

  /**
   * Whether the timer watches: the first time, waits until it says so, or
   * has ended (perl without Time::HiRes, say), or a while has passed.
   */
  ready(): boolean {
    while (!this.settled()) sleep(0.5);
    return this.state === "watching";
  }

  /**
   * Whether the timer is past its start, without waiting: it watches, or
   * never will (it ended, or is late), and the FIFOs it was to make are
   * made or never will be.
   */
  settled(): boolean {
    if (this.state !== "starting") return true;
    const mark = Buffer.alloc(READY.length);
    if (readSync(this.fd, mark, 0, mark.length, 0) === mark.length && mark.toString("latin1") === READY) {
      this.state = "watching";
    } else if (exitStatus(this.child.pid as number).exited || Date.now() >= this.readyBy) {
      this.shutdown();
    }
    return this.state !== "starting";
  }

  get watching(): boolean {
    return this.state === "watching";
  }

  arm(pid: number, outPath: string, timeoutMs: number): void {
    if (this.state === "failed") return;
    if (pid !== this.recordPid) this.prepareRecord(pid, outPath);
    this.sequence = this.sequence === 0xffffffff ? 1 : this.sequence + 1;
    this.deadline = monotonicMs() + timeoutMs;
    const words = this.words;
    words[0] = this.sequence;
    words[words.length - 1] = this.sequence;
    this.doubles[1] = this.deadline;
    writeSync(this.fd, this.record, 0, this.record.length, RECORD_OFFSET);
  }

  disarm(): boolean {
    if (this.state !== "failed") writeSync(this.fd, this.zero, 0, 4, RECORD_OFFSET);
    return monotonicMs() <= this.deadline;
  }

  shutdown(): void {
    if (this.state === "failed") return;
    this.state = "failed";
    try {
      this.child.kill("SIGKILL");
    } catch {
      // Gone already.
    }
    closeSync(this.fd);
  }

  /**
   * The record for module `pid`, in the machine's byte order (as perl's
   * native formats read it), the path padded so that the closing sequence
   * is aligned.
   */
  private prepareRecord(pid: number, outPath: string): void {
    const path = Buffer.from(outPath, "utf8").subarray(0, MAX_PATH_BYTES);
    const padded = (path.length + 3) & ~3;
    const buffer = new ArrayBuffer(24 + padded);
    this.record = new Uint8Array(buffer);
    this.words = new Uint32Array(buffer);
    this.doubles = new Float64Array(buffer, 0, 2);
    this.words[1] = pid;
    this.words[4] = path.length;
    this.record.set(path, 20);
    this.recordPid = pid;
  }
}
