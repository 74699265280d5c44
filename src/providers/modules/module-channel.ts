/**
 * A running promise module as the agent's thread talks to it: requests are
 * written to its standard input and answers read from its standard output
 * synchronously, through FIFOs (Node gives no synchronous access to a
 * child's pipes). Each exchange has a deadline, which this judges: the
 * watchdog only wakes a read that waits past it (see watchdog.ts), and
 * writes never block. Standard error goes to a file, read after each
 * exchange, so a module can never block on it and its lines stay with the
 * exchange that wrote them.
 */
import type { ChildProcess } from "node:child_process";
import { closeSync, constants, openSync, readSync, truncateSync, writeSync } from "node:fs";
import { join } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { AnswerPoll } from "./answer-poll.js";
import { type ExchangeResult, type ExchangeStatus, WAKE_BYTE } from "./exchange.js";
import { STDERR_FILE, openDescriptors, removePipes, takePipes } from "./module-pipes.js";
import {
  type ExitStatus,
  killGroup,
  monotonicMs,
  sleep,
  startProcess,
  waitForExit,
} from "./module-process.js";
import type { ModuleWatchdog } from "./watchdog.js";

/** Standard error kept per exchange; more is cut (and said so). */
const MAX_STDERR = 64 * 1024;
/** The size at which the standard error file is emptied. */
const STDERR_FILE_LIMIT = 1024 * 1024;
/** How often the output is read while the watchdog starts, and a full input written again. */
const POLL_MS = 0.5;
/** After the module's output ends, how long to wait for its exit status. */
const EXIT_WAIT_MS = 500;

/** How an exchange that got no answer ended. */
type Unanswered = Exclude<ExchangeStatus, "ok" | "failed">;

interface Descriptors {
  readonly input: number;
  readonly output: number;
  readonly stderr: number;
}

export class ModuleChannel {
  private readonly decoder = new StringDecoder("utf8");
  private readonly chunk = Buffer.allocUnsafe(64 * 1024);
  private readonly answerPoll = new AnswerPoll();
  /** Output not yet taken as an answer (a module may write ahead). */
  private buffer = "";
  private stderrOffset = 0;
  /** A non-blocking descriptor of the output, for polling (see readOutput). */
  private polling: number | undefined;
  private closed = false;
  private inputEnded = false;
  private readonly stderrPath: string;
  private readonly outPath: string;

  private constructor(
    private readonly watchdog: ModuleWatchdog,
    /** Kept so that the process handle lives as long as the channel. */
    private readonly child: ChildProcess,
    readonly pid: number,
    private readonly dir: string,
    private readonly fds: Descriptors,
  ) {
    this.stderrPath = join(dir, STDERR_FILE);
    this.outPath = join(dir, "out");
  }

  /** Starts `argv` as a module; a string says why it could not start. */
  static start(watchdog: ModuleWatchdog, argv: readonly string[]): ModuleChannel | string {
    const dir = takePipes();
    if (typeof dir !== "string") return dir.error;
    const fds = openDescriptors(dir);
    const child = startProcess(argv, fds.child);
    for (const fd of fds.child) closeSync(fd);
    if (typeof child === "string") {
      for (const fd of [fds.input, fds.output, fds.stderr]) closeSync(fd);
      removePipes(dir);
      return child;
    }
    return new ModuleChannel(watchdog, child, child.pid as number, dir, fds);
  }

  /**
   * Writes `input` and reads the next answer: the lines up to an empty
   * line. Past `timeoutMs`, or past `maxBytes` of answer, the module is
   * killed. With `stderrLater`, an answer comes without the standard
   * error written meanwhile, which the next look takes (a read saved).
   */
  exchange(
    input: string,
    timeoutMs: number,
    maxBytes: number,
    stderrLater = false,
    form: FrameForm = "answer",
  ): ExchangeResult {
    if (this.closed) return { status: "failed", lines: [], stderr: "", error: "the module is not running" };
    const deadline = this.watchdog.watch(this.pid, this.outPath, timeoutMs);
    const written = this.write(input, deadline);
    let answer: string[] | Unanswered;
    if (written === "timeout") {
      answer = "timeout";
    } else {
      try {
        answer = this.readFrame(maxBytes, deadline, monotonicMs(), form);
      } catch {
        answer = "exited";
      }
    }
    this.watchdog.done(this.pid);
    if (typeof answer !== "string")
      return { status: "ok", lines: answer, stderr: stderrLater ? "" : this.takeStderr() };
    // Complete lines received so far: log lines among them are worth showing.
    const received = this.buffer.split("\n").slice(0, -1);
    const undelivered = written === "closed" && answer === "exited" && this.buffer === "";
    const result = this.failure(answer, received);
    return undelivered ? { ...result, undelivered } : result;
  }

  /** Ends the module's input and waits `graceMs` for it to exit, then kills it. */
  close(graceMs: number): void {
    if (this.closed) return;
    this.endInput();
    if (!waitForExit(this.pid, graceMs).exited) killGroup(this.pid);
    this.release();
  }

  /** Ends the module's input (it sees the end of it), leaving `close` to wait for its exit. */
  endInput(): void {
    if (this.inputEnded) return;
    this.inputEnded = true;
    closeSync(this.fds.input);
  }

  /** Kills the module (its whole process group) at once. */
  kill(): void {
    if (this.closed) return;
    killGroup(this.pid);
    this.endInput();
    this.release();
  }

  /**
   * Writes all of `input` to the module's input, which does not block: a
   * module that stops reading cannot hold the agent past the deadline.
   * "closed" when the module no longer reads at all (it exited): an answer
   * it wrote ahead may still be there.
   */
  private write(input: string, deadline: number): "written" | "closed" | "timeout" {
    let done = 0;
    try {
      // Most requests fit the pipe: written whole, without a buffer made for them.
      done = writeSync(this.fds.input, input);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") return "closed";
    }
    if (done === Buffer.byteLength(input)) return "written";
    const bytes = Buffer.from(input, "utf8");
    while (done < bytes.length) {
      try {
        done += writeSync(this.fds.input, bytes, done);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EAGAIN") return "closed";
        if (monotonicMs() > deadline) return "timeout";
        sleep(POLL_MS);
      }
    }
    return "written";
  }

  /**
   * Reads until a complete answer is buffered, or why none came: the end
   * of output, more than `maxBytes`, or a wake past `deadline`.
   */
  private readFrame(
    maxBytes: number,
    deadline: number,
    sentAt: number,
    form: FrameForm,
  ): string[] | Unanswered {
    let scanned = 0;
    let woken = false;
    let first = true;
    const take = (from: number) => (form === "header" ? this.takeHeader() : this.takeFrame(from));
    for (;;) {
      const frame = take(scanned);
      if (frame) return frame;
      scanned = this.buffer.length;
      // Characters, not bytes: cheap to check, and never more than the bytes.
      if (this.buffer.length > maxBytes) return "too-large";
      // A wake from before this exchange (or early) is no reason to stop.
      if (woken && monotonicMs() > deadline) return "timeout";
      const count = this.readOutput(deadline, first ? this.answerPoll.budgetUs() : 0);
      if (count === undefined) return "timeout";
      if (first) this.answerPoll.observe((monotonicMs() - sentAt) * 1000);
      first = false;
      if (count === 0) {
        this.buffer += this.decoder.end();
        return take(0) ?? "exited";
      }
      let bytes: Buffer = this.chunk.subarray(0, count);
      woken = bytes.indexOf(WAKE_BYTE) !== -1;
      if (woken) bytes = withoutWakes(bytes);
      this.buffer += this.decoder.write(bytes);
    }
  }

  /**
   * Reads what the module writes next (0 at the end of its output): first
   * by polling for `pollUs` microseconds (see answer-poll.ts); then, once
   * the watchdog watches, with a blocking read, which wakes the moment the
   * module writes or the watchdog wakes it; until then (the timer process
   * is starting) by polling, giving up (undefined) past `deadline`.
   */
  private readOutput(deadline: number, pollUs: number): number | undefined {
    if (pollUs > 0) {
      const count = this.poll(pollUs);
      if (count !== undefined) return count;
    }
    while (!this.watchdog.watchingNow()) {
      if (monotonicMs() > deadline) return undefined;
      try {
        return readSync(this.pollingDescriptor(), this.chunk, 0, this.chunk.length, null);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
      }
      sleep(POLL_MS);
    }
    this.watchdog.beforeBlocking(this.pid, this.outPath, deadline);
    return readSync(this.fds.output, this.chunk, 0, this.chunk.length, null);
  }

  private pollingDescriptor(): number {
    this.polling ??= openSync(this.outPath, constants.O_RDONLY | constants.O_NONBLOCK);
    return this.polling;
  }

  /** Reads what is there, trying for up to `us` microseconds; undefined if nothing came. */
  private poll(us: number): number | undefined {
    const fd = this.pollingDescriptor();
    const until = monotonicMs() + us / 1000;
    const stackTraceLimit = Error.stackTraceLimit;
    // A read that finds nothing throws: without a stack, the error costs a third.
    Error.stackTraceLimit = 0;
    try {
      do {
        try {
          return readSync(fd, this.chunk, 0, this.chunk.length, null);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
        }
      } while (monotonicMs() < until);
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    return undefined;
  }

  /** The lines up to the first empty line, taken out of the buffer. */
  private takeFrame(scanned: number): string[] | undefined {
    if (this.buffer.startsWith("\n")) {
      this.buffer = this.buffer.slice(1);
      return [];
    }
    const end = this.buffer.indexOf("\n\n", Math.max(0, scanned - 1));
    if (end < 0) return undefined;
    const frame = this.buffer.slice(0, end).split("\n");
    this.buffer = this.buffer.slice(end + 2);
    return frame;
  }

  /**
   * The header and the line after it, taken out of the buffer: just the
   * header when that line is empty, as it must be; both when it is not, so
   * the header is refused at once instead of waiting for an empty line (as
   * 3.21, which reads exactly two lines). An empty first line is `[]`.
   */
  private takeHeader(): string[] | undefined {
    const first = this.buffer.indexOf("\n");
    if (first < 0) return undefined;
    if (first === 0) {
      this.buffer = this.buffer.slice(1);
      return [];
    }
    const second = this.buffer.indexOf("\n", first + 1);
    if (second < 0) return undefined;
    const lines = [this.buffer.slice(0, first), this.buffer.slice(first + 1, second)];
    this.buffer = this.buffer.slice(second + 1);
    return lines[1] === "" ? [lines[0]] : lines;
  }

  /** The module is killed (unless it has exited); what it managed to say, and how it ended. */
  private failure(status: Unanswered, lines: readonly string[]): ExchangeResult {
    this.buffer = "";
    // An exit explains itself; otherwise (or if it lingers) the module is killed.
    let ended: ExitStatus = status === "exited" ? waitForExit(this.pid, EXIT_WAIT_MS) : { exited: false };
    if (!ended.exited) ended = killGroup(this.pid);
    const stderr = this.takeStderr();
    this.endInput();
    this.release();
    return { status, lines, stderr, exitCode: ended.exitCode, signal: ended.signal };
  }

  /** What the module wrote to standard error since the last look. */
  takeStderr(): string {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const count = readSync(this.fds.stderr, this.chunk, 0, this.chunk.length, this.stderrOffset);
      if (count === 0) break;
      this.stderrOffset += count;
      if (total < MAX_STDERR) chunks.push(Buffer.from(this.chunk.subarray(0, count)));
      total += count;
    }
    // The file is emptied now and then, so a chatty module cannot fill the disk.
    if (this.stderrOffset > STDERR_FILE_LIMIT) {
      truncateSync(this.stderrPath, 0);
      this.stderrOffset = 0;
    }
    const text = Buffer.concat(chunks).subarray(0, MAX_STDERR).toString("utf8");
    return total > MAX_STDERR
      ? `${text}\n[${total - MAX_STDERR} more bytes of standard error were dropped]`
      : text;
  }

  private release(): void {
    this.closed = true;
    this.watchdog.forget?.(this.pid);
    closeSync(this.fds.output);
    closeSync(this.fds.stderr);
    if (this.polling !== undefined) closeSync(this.polling);
    removePipes(this.dir);
  }
}

/** How an answer ends: at an empty line, or (the module's header) after two lines. */
export type FrameForm = "answer" | "header";

/** `bytes` without its wake bytes (a copy). */
function withoutWakes(bytes: Buffer): Buffer {
  const kept = Buffer.allocUnsafe(bytes.length);
  let length = 0;
  for (const byte of bytes) if (byte !== WAKE_BYTE) kept[length++] = byte;
  return kept.subarray(0, length);
}
