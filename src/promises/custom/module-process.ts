/**
 * One promise module process, driven asynchronously (this runs in the
 * module worker, never on the agent's thread): started in its own process
 * group so that a kill reaches everything it started, its output cut into
 * answers at empty lines, its standard error collected for the agent to log.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
import type { ExchangeResult } from "./exchange.js";

/** Standard error kept per exchange; more is cut (and said so). */
const MAX_STDERR = 64 * 1024;
/** After its output ends, how long to wait for the exit status. */
const EXIT_WAIT_MS = 500;

interface Pending {
  readonly resolve: (result: ExchangeResult) => void;
  readonly maxBytes: number;
  readonly timer: NodeJS.Timeout;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class ModuleProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly decoder = new StringDecoder("utf8");
  /** Output not yet taken as an answer. */
  private buffer = "";
  /** Where to resume looking for the end of an answer in `buffer`. */
  private scanned = 0;
  private stderr = "";
  private stderrCut = false;
  private pending: Pending | undefined;
  private outputEnded = false;
  private exit: { code: number | null; signal: string | null } | undefined;
  private readonly exitWaiters: (() => void)[] = [];
  /** Settles when standard error is closed: all of it has been read. */
  private readonly stderrClosed: Promise<void>;

  private constructor(child: ChildProcessWithoutNullStreams) {
    this.child = child;
    child.stdout.on("data", (chunk: Buffer) => this.onOutput(this.decoder.write(chunk)));
    child.stdout.on("end", () => this.onOutputEnd());
    child.stderr.on("data", (chunk: Buffer) => this.onStderr(chunk.toString("utf8")));
    this.stderrClosed = new Promise((resolve) => child.stderr.once("close", () => resolve()));
    // A module that stops reading makes writes fail (EPIPE); its answer, or
    // its exit, tells the rest.
    child.stdin.on("error", () => {});
    child.on("exit", (code, signal) => {
      this.exit = { code, signal };
      for (const wake of this.exitWaiters.splice(0)) wake();
    });
  }

  /** Starts `argv` (no shell); resolves once it runs, or with the reason it cannot. */
  static start(argv: readonly string[]): Promise<ModuleProcess | string> {
    return new Promise((resolve) => {
      let child: ChildProcessWithoutNullStreams;
      try {
        child = spawn(argv[0], argv.slice(1), { stdio: "pipe", detached: true });
      } catch (error) {
        resolve((error as Error).message);
        return;
      }
      child.once("spawn", () => resolve(new ModuleProcess(child)));
      child.once("error", (error) => resolve(error.message));
    });
  }

  get running(): boolean {
    return this.exit === undefined && !this.outputEnded;
  }

  /** Sends `input` and waits for the next answer (see ExchangeCall). */
  exchange(input: string, timeoutMs: number, maxBytes: number): Promise<ExchangeResult> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.fail("timeout"), timeoutMs);
      this.pending = { resolve, maxBytes, timer };
      if (input !== "" && !this.child.stdin.destroyed) this.child.stdin.write(input);
      // An answer may already be waiting (a module may write ahead), or the
      // module may be gone already.
      this.onOutput("");
      if (this.pending && this.outputEnded) this.onOutputEnd();
    });
  }

  /** Kills the whole process group and waits for the exit. */
  async kill(): Promise<void> {
    this.signalGroup("SIGKILL");
    await this.waitForExit(EXIT_WAIT_MS * 4);
  }

  /** Ends the module's input; kills it if it has not exited after `graceMs`. */
  async close(graceMs: number): Promise<void> {
    this.child.stdin.end();
    if (await this.waitForExit(graceMs)) return;
    await this.kill();
  }

  private signalGroup(signal: NodeJS.Signals): void {
    if (this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, signal);
    } catch {
      // Already gone.
    }
  }

  private waitForExit(ms: number): Promise<boolean> {
    if (this.exit) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      this.exitWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  private onOutput(text: string): void {
    this.buffer += text;
    const pending = this.pending;
    if (!pending) return;
    const frame = this.takeFrame();
    if (frame) {
      this.finish({ status: "ok", lines: frame, stderr: this.takeStderr() });
    } else if (this.buffer.length > pending.maxBytes) {
      // Characters, not bytes: cheap to check on every chunk, and never more than the bytes.
      this.fail("too-large");
    }
  }

  /** The lines up to the first empty line, taken out of the buffer. */
  private takeFrame(): string[] | undefined {
    if (this.buffer.startsWith("\n")) {
      this.buffer = this.buffer.slice(1);
      this.scanned = 0;
      return [];
    }
    const end = this.buffer.indexOf("\n\n", Math.max(0, this.scanned - 1));
    if (end < 0) {
      this.scanned = this.buffer.length;
      return undefined;
    }
    const frame = this.buffer.slice(0, end).split("\n");
    this.buffer = this.buffer.slice(end + 2);
    this.scanned = 0;
    return frame;
  }

  private onOutputEnd(): void {
    this.outputEnded = true;
    if (!this.pending) return;
    this.onOutput(this.decoder.end());
    const pending = this.pending;
    if (!pending) return;
    void this.waitForExit(EXIT_WAIT_MS).then(() => {
      if (this.pending === pending) this.fail("exited");
    });
  }

  private onStderr(text: string): void {
    if (this.stderr.length >= MAX_STDERR) {
      this.stderrCut = true;
      return;
    }
    this.stderr += text;
  }

  private takeStderr(): string {
    const text = this.stderrCut ? `${this.stderr}\n[more standard error was dropped]` : this.stderr;
    this.stderr = "";
    this.stderrCut = false;
    return text;
  }

  private fail(status: "timeout" | "exited" | "too-large"): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    clearTimeout(pending.timer);
    // Complete lines received so far: log lines among them are worth showing.
    const lines = this.buffer.split("\n").slice(0, -1);
    this.buffer = "";
    if (status !== "exited") this.signalGroup("SIGKILL");
    const resolveAfterExit = async () => {
      // The exit status and the last of standard error (a traceback, say)
      // explain the failure; a grandchild holding the pipe open must not stall it.
      const settled = Promise.all([this.waitForExit(EXIT_WAIT_MS), this.stderrClosed]);
      await Promise.race([settled, delay(EXIT_WAIT_MS)]);
      pending.resolve({
        status,
        lines,
        stderr: this.takeStderr(),
        exitCode: this.exit?.code,
        signal: this.exit?.signal,
      });
    };
    void resolveAfterExit();
  }

  private finish(result: ExchangeResult): void {
    const pending = this.pending;
    if (!pending) return;
    clearTimeout(pending.timer);
    this.pending = undefined;
    pending.resolve(result);
  }
}
