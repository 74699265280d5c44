/**
 * The watchdog as a small perl process (timer-script.ts), told through a
 * file both hold open when to wake the agent's read of a module's output.
 * The agent does not write per exchange: a watch it writes lasts a lease
 * past the time limit, and is written again only when an exchange starts
 * with less than its limit left, or far more (a shorter limit), so that
 * 1,000 exchanges in a second cost a few writes. A wake that comes while
 * no read waits is read, and ignored, at the next exchange (see
 * module-channel.ts): it kills nothing.
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
 * How much later than its time limit an exchange may be woken: a tenth of
 * the limit, within 10 ms and 1 s. This is also how often, at most, a run
 * of quick exchanges rewrites the watch.
 */
function leaseMs(timeoutMs: number): number {
  return Math.min(1_000, Math.max(10, timeoutMs / 10));
}

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
  /** The watch's record, kept to patch the sequence and wake time (views of one buffer). */
  private record = new Uint8Array(0);
  private words = new Uint32Array(0);
  private doubles = new Float64Array(0);
  /** The module whose output the record names. */
  private recordPid = 0;
  private sequence = 0;
  /** When the timer wakes the read (CLOCK_MONOTONIC milliseconds); 0 while nothing is watched. */
  private wakeAt = 0;
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

  /** The timer's process id. */
  get pid(): number {
    return this.child.pid as number;
  }

  /** Whether the timer still runs (someone may have killed it): a look at /proc. */
  alive(): boolean {
    return this.state !== "failed" && !exitStatus(this.pid).exited;
  }

  /**
   * Makes sure the read of module `pid` is woken no sooner than
   * `timeoutMs` from now, and at most a lease later.
   */
  watch(pid: number, outPath: string, timeoutMs: number): void {
    if (this.state === "failed") return;
    const now = monotonicMs();
    const earliest = now + timeoutMs;
    const lease = leaseMs(timeoutMs);
    if (pid === this.recordPid && this.wakeAt >= earliest && this.wakeAt <= earliest + lease) return;
    if (pid !== this.recordPid) this.prepareRecord(pid, outPath);
    this.sequence = this.sequence === 0xffffffff ? 1 : this.sequence + 1;
    this.wakeAt = earliest + lease;
    const words = this.words;
    words[0] = this.sequence;
    words[words.length - 1] = this.sequence;
    this.doubles[1] = this.wakeAt;
    writeSync(this.fd, this.record, 0, this.record.length, RECORD_OFFSET);
  }

  /** Nothing to do: a watch that outlives its exchange only wakes a read that ignores it. */
  done(): void {}

  /** The module is gone: its output is not watched any more. */
  forget(pid: number): void {
    if (this.state === "failed" || pid !== this.recordPid) return;
    writeSync(this.fd, this.zero, 0, 4, RECORD_OFFSET);
    this.recordPid = 0;
    this.wakeAt = 0;
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
   * The record for module `pid`'s output, in the machine's byte order (as
   * perl's native formats read it), the path padded so that the closing
   * sequence is aligned.
   */
  private prepareRecord(pid: number, outPath: string): void {
    const path = Buffer.from(outPath, "utf8").subarray(0, MAX_PATH_BYTES);
    const padded = (path.length + 3) & ~3;
    const buffer = new ArrayBuffer(24 + padded);
    this.record = new Uint8Array(buffer);
    this.words = new Uint32Array(buffer);
    this.doubles = new Float64Array(buffer, 0, 2);
    this.words[4] = path.length;
    this.record.set(path, 20);
    this.recordPid = pid;
  }
}
