/**
 * One promise module (one path) for the length of a run: started on first
 * use, spoken to for every promise of its types, terminated at the end.
 *
 * Sturdier than cf-agent: every exchange has a time limit and a size
 * limit, and a module that misses either, dies, or answers something tend
 * cannot read with certainty is killed at once. The promise that was being
 * handled is not kept; the next promise starts a fresh process, so no
 * promise can receive an answer meant for another. A module that fails to
 * start three times is not started again in the run.
 */
import { accessSync, constants, statSync } from "node:fs";
import type { Logger } from "../../system/logger.js";
import type { ExchangeResult } from "./exchange.js";
import { type FrameForm, ModuleChannel } from "./module-channel.js";
import {
  type ModuleHeader,
  type ModuleLogMessage,
  type ModuleReply,
  type ModuleRequest,
  agentHeader,
  clip,
  decodeReply,
  encodeRequest,
  logLines,
  parseHeader,
} from "./protocol.js";
import type { ModuleWatchdog } from "./watchdog.js";

/** An answer larger than this is refused (and the module killed). */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
/** Failed starts (no header, bad header) after which a module is left alone. */
const MAX_START_FAILURES = 3;
/** The longest wait for the answer to `terminate`, and then for the exit. */
const TERMINATE_LIMIT_MS = 10_000;
const EXIT_GRACE_MS = 2_000;

export interface ModuleSpec {
  readonly path: string;
  readonly interpreter?: string;
}

export type RequestResult =
  | { readonly ok: true; readonly reply: ModuleReply; readonly stderr: string }
  | {
      readonly ok: false;
      readonly error: string;
      /** Log lines the module sent before it failed, to be shown all the same. */
      readonly log: readonly ModuleLogMessage[];
      readonly stderr: string;
    };

export class ModuleSession {
  header: ModuleHeader | undefined;
  /** Whether the module ever started (a path then keeps its interpreter). */
  everStarted = false;
  private channel: ModuleChannel | undefined;
  /** The process started ahead (startEarly), not yet spoken to, and what its files were then. */
  private early: { readonly channel: ModuleChannel; readonly files: string } | undefined;
  private startFailures = 0;

  constructor(
    readonly spec: ModuleSpec,
    private readonly watchdog: () => ModuleWatchdog,
  ) {}

  get running(): boolean {
    return this.channel !== undefined;
  }

  /** Starts the module unless it runs; returns why it cannot run. */
  ensureStarted(timeoutMs: number, log: Logger): string | undefined {
    if (this.channel) return undefined;
    const path = this.spec.path;
    if (this.startFailures >= MAX_START_FAILURES) {
      return `Promise module '${path}' failed to start ${this.startFailures} times; it is not started again in this run`;
    }
    const unusable = this.checkFiles();
    if (unusable) return unusable;
    const argv = this.argv();
    log.verbose(`Starting custom promise module '${path}' with command '${argv.join(" ")}'`);
    const channel = this.takeEarly() ?? ModuleChannel.start(this.watchdog(), argv);
    if (typeof channel === "string")
      return this.startFailed(`Could not start promise module '${path}': ${channel}`);
    this.channel = channel;
    const answer = this.exchange(agentHeader(), timeoutMs, false, "header");
    logStderr(log, `Promise module '${path}'`, answer.stderr, answer.status !== "ok");
    if (answer.status !== "ok") {
      return this.startFailed(
        `Did not receive header from promise module '${path}': ${describe(answer, timeoutMs)}`,
      );
    }
    const header = parseHeader(answer.lines);
    if (!header.ok) return this.startFailed(`Promise module '${path}' sent ${header.error}`);
    for (const warning of header.value.warnings) {
      log.warning(`Promise module '${path}' sent ${warning}. Please report this as a bug in the module`);
    }
    this.header = header.value;
    this.everStarted = true;
    this.startFailures = 0;
    return undefined;
  }

  /**
   * Starts the module's process ahead of its first promise, which then
   * takes it over (ensureStarted) if its files are still those it was
   * started from. Nothing is sent to it until then. See early-start.ts.
   */
  startEarly(): void {
    if (this.channel || this.early || this.startFailures > 0 || this.checkFiles() !== undefined) return;
    const files = this.fileIdentity();
    const channel = ModuleChannel.start(this.watchdog(), this.argv());
    if (typeof channel !== "string") this.early = { channel, files };
  }

  /**
   * Sends one request and reads its answer; on any failure the module is
   * stopped. A module found to have exited before a promise's first request
   * reached it (it had answered and ended, as some do) is started again and
   * asked again, once. With `stderrLater`, a successful answer comes
   * without the module's standard error, left for the next request or
   * `takeStderr`.
   */
  request(request: ModuleRequest, timeoutMs: number, log: Logger, stderrLater = false): RequestResult {
    const header = this.header;
    if (!this.channel || !header)
      return { ok: false, error: "the module is not running", log: [], stderr: "" };
    let answer = this.exchange(encodeRequest(request, header.form), timeoutMs, stderrLater);
    if (answer.undelivered && request.operation === "validate_promise") {
      logStderr(log, `Promise module '${this.spec.path}'`, answer.stderr, false);
      const how = answer.signal ? `killed by ${answer.signal}` : `exit code ${answer.exitCode ?? "unknown"}`;
      log.verbose(`Promise module '${this.spec.path}' had exited (${how}); starting it again`);
      const restarted = this.ensureStarted(timeoutMs, log);
      if (restarted !== undefined) return { ok: false, error: restarted, log: [], stderr: "" };
      answer = this.exchange(encodeRequest(request, this.header!.form), timeoutMs, stderrLater);
    }
    if (answer.status !== "ok") {
      this.stop();
      return {
        ok: false,
        error: describe(answer, timeoutMs),
        log: logLines(answer.lines),
        stderr: answer.stderr,
      };
    }
    const reply = decodeReply(answer.lines, header.form);
    const wrong = reply.ok ? mismatch(request, reply.value) : reply.error;
    if (!reply.ok || wrong) {
      this.stop();
      return { ok: false, error: `it sent ${wrong}`, log: logLines(answer.lines), stderr: answer.stderr };
    }
    return { ok: true, reply: reply.value, stderr: answer.stderr };
  }

  /**
   * Says `terminate`, then ends the module's input; with `wait`, waits for
   * it to exit, and kills one that lingers. Without, `awaitExit` does that
   * (the agent finishes its run meanwhile).
   */
  terminate(timeoutMs: number, log: Logger, wait = true): void {
    this.dropEarly();
    if (!this.channel || !this.header) return;
    const path = this.spec.path;
    const limit = Math.min(timeoutMs, TERMINATE_LIMIT_MS);
    const answer = this.exchange(encodeRequest({ operation: "terminate" }, this.header.form), limit);
    logStderr(log, `Promise module '${path}'`, answer.stderr, answer.status !== "ok");
    const reply = answer.status === "ok" ? decodeReply(answer.lines, this.header.form) : undefined;
    if (reply?.ok && reply.value.result === "failure")
      log.warning(`Promise module '${path}' failed to terminate`);
    else if (!reply?.ok) log.verbose(`Promise module '${path}' did not answer 'terminate' properly`);
    this.channel?.endInput();
    if (wait) this.awaitExit();
  }

  /** Waits for a terminated module to exit; one that lingers is killed. */
  awaitExit(): void {
    this.channel?.close(EXIT_GRACE_MS);
    this.channel = undefined;
  }

  /** Kills the module; the next request starts a fresh one. */
  stop(): void {
    this.dropEarly();
    this.channel?.kill();
    this.channel = undefined;
  }

  private argv(): string[] {
    return this.spec.interpreter ? [this.spec.interpreter, this.spec.path] : [this.spec.path];
  }

  /** The process started ahead, if its files are still those it was started from. */
  private takeEarly(): ModuleChannel | undefined {
    const early = this.early;
    this.early = undefined;
    if (early && early.files === this.fileIdentity()) return early.channel;
    early?.channel.kill();
    return undefined;
  }

  /** A process started ahead and never used is killed: it was told nothing. */
  private dropEarly(): void {
    this.early?.channel.kill();
    this.early = undefined;
  }

  /** What tells the module's files apart from others put in their place (device, inode, size, times). */
  private fileIdentity(): string {
    return [this.spec.interpreter, this.spec.path]
      .map((file) => {
        const stats = file === undefined ? undefined : statSync(file, { throwIfNoEntry: false });
        return stats ? `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}` : "-";
      })
      .join(" ");
  }

  /** Standard error the last request left for later (see `request`). */
  takeStderr(): string {
    return this.channel?.takeStderr() ?? "";
  }

  private exchange(
    input: string,
    timeoutMs: number,
    stderrLater = false,
    form: FrameForm = "answer",
  ): ExchangeResult {
    const channel = this.channel;
    if (!channel) return { status: "failed", lines: [], stderr: "", error: "the module is not running" };
    const answer = channel.exchange(input, timeoutMs, MAX_ANSWER_BYTES, stderrLater, form);
    if (answer.status !== "ok") this.channel = undefined;
    return answer;
  }

  private startFailed(message: string): string {
    this.stop();
    this.startFailures++;
    return message;
  }

  /** cf-agent's checks before starting a module, with its messages. */
  private checkFiles(): string | undefined {
    const { path, interpreter } = this.spec;
    if (interpreter !== undefined && !isExecutable(interpreter)) {
      return `Promise module interpreter '${interpreter}' is not an executable file`;
    }
    if (interpreter === undefined && !isExecutable(path)) {
      return `Promise module path '${path}' is not an executable file`;
    }
    try {
      accessSync(path, constants.F_OK);
    } catch {
      return `Promise module '${path}' does not exist`;
    }
    return undefined;
  }
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** A reply that answers another operation than the one asked. */
function mismatch(request: ModuleRequest, reply: ModuleReply): string | undefined {
  if (reply.operation !== undefined && reply.operation !== request.operation) {
    return `an answer to '${clip(reply.operation)}' when asked to '${request.operation}'`;
  }
  return undefined;
}

/** What went wrong with an exchange, for a message. */
export function describe(answer: ExchangeResult, timeoutMs: number): string {
  switch (answer.status) {
    case "timeout":
      return `no complete answer within ${timeoutMs / 1000} seconds, so it was killed`;
    case "too-large":
      return `an answer larger than ${MAX_ANSWER_BYTES / (1024 * 1024)} MiB, so it was killed`;
    case "exited":
      return exitText(answer);
    case "failed":
      return answer.error ?? "it could not be reached";
    case "ok":
      return "a complete answer";
  }
}

function exitText(answer: ExchangeResult): string {
  if (answer.signal) return `it was killed by signal ${answer.signal} before answering`;
  if (typeof answer.exitCode === "number") return `it exited with code ${answer.exitCode} before answering`;
  return "it closed its output before answering";
}

/** Standard error of a module, one log line per line: errors when the exchange failed. */
export function logStderr(log: Logger, source: string, stderr: string, failed: boolean): void {
  for (const line of stderr.split("\n")) {
    if (line.trim() === "") continue;
    log.log(failed ? "error" : "warning", `${source} wrote to standard error: ${line}`);
  }
}
