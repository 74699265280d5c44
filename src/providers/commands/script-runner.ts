/**
 * Runs programs through a long-lived runner process, in Python
 * (python-runner-script.ts) or perl (perl-runner-script.ts), talking to it
 * synchronously from the agent's thread: a request written to its
 * standard input, the reply read from its standard output, both FIFOs the
 * agent holds with blocking descriptors (Node gives no synchronous access
 * to a child's pipes). The runner starts the program, reads its output
 * and reaps it, so a command costs a spawn from a small process and one
 * round trip, with nothing relayed through a thread.
 *
 * A runner says `tend-runner` once it is ready; one that does not (its
 * interpreter too old, say) is not used. When a runner ends or stops
 * answering, every program waiting for a reply fails with the reason, and
 * the runner is dead: the next program gets a new one.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  closeSync,
  constants,
  existsSync,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  writeSync,
} from "node:fs";
import { constants as osConstants, tmpdir } from "node:os";
import { join } from "node:path";
import { PERL_RUNNER_SCRIPT } from "./perl-runner-script.js";
import { PYTHON_RUNNER_SCRIPT } from "./python-runner-script.js";
import type { SpawnReply, SpawnRequest } from "./spawn-protocol.js";

export type RunnerKind = "python" | "perl";

/** How to start each runner: the interpreter and its arguments. */
const INTERPRETERS: Record<RunnerKind, () => readonly [string, string[]]> = {
  // -I -S: nothing from the environment or site packages changes the runner.
  python: () => [
    "/usr/bin/python3",
    [
      "-I",
      "-S",
      "-c",
      PYTHON_RUNNER_SCRIPT,
      process.env.LC_CTYPE === undefined ? "-" : `=${process.env.LC_CTYPE}`,
    ],
  ],
  perl: () => ["/usr/bin/perl", ["-e", PERL_RUNNER_SCRIPT]],
};

const READY = "tend-runner\n";

/** What to run; the id is the runner's. */
export type RunOrder = Omit<SpawnRequest, "id" | "background">;

/** The environment's fields of a request: their count, then each `NAME=value` (or `NAME`: removed). */
function environmentFields(env: Readonly<Record<string, string | null>> | undefined): string[] {
  const entries = Object.entries(env ?? {}).map(([name, value]) =>
    value === null ? name : `${name}=${value}`,
  );
  return [String(entries.length), ...entries];
}

const SIGNAL_NAMES = new Map(Object.entries(osConstants.signals).map(([name, number]) => [number, name]));

function failure(error: string): SpawnReply {
  return { exitCode: null, signal: null, timedOut: false, output: new Uint8Array(0), error };
}

interface Channel {
  readonly child: ChildProcess;
  /** The agent's ends: it writes requests and reads replies. */
  readonly requests: number;
  readonly replies: number;
}

/**
 * Starts perl on a pair of FIFOs. Each FIFO is first held open read-write
 * (which never blocks) so that no open below waits; the holds are closed
 * once perl has its ends, so that perl's end is seen as the end of the
 * replies (and a closed agent as the end of the requests).
 */
function startChannel(program: string, args: readonly string[]): Channel | string {
  const dir = mkdtempSync(join(tmpdir(), "tend-runner-"));
  try {
    const paths = [join(dir, "requests"), join(dir, "replies")];
    const made = spawnSync("mkfifo", ["-m", "600", ...paths], { encoding: "utf8" });
    if (made.status !== 0) return `mkfifo: ${made.error?.message ?? made.stderr.trim()}`;
    const holds = paths.map((path) => openSync(path, constants.O_RDWR));
    const runnerIn = openSync(paths[0], constants.O_RDONLY);
    const runnerOut = openSync(paths[1], constants.O_WRONLY);
    const requests = openSync(paths[0], constants.O_WRONLY);
    const replies = openSync(paths[1], constants.O_RDONLY);
    let child: ChildProcess;
    try {
      // Its own failures are told through its replies (or their end), never on the agent's output.
      child = spawn(program, args, { stdio: [runnerIn, runnerOut, "ignore"] });
    } finally {
      for (const fd of [runnerIn, runnerOut, ...holds]) closeSync(fd);
    }
    child.on("error", () => {});
    child.unref();
    return { child, requests, replies };
  } catch (error) {
    return (error as Error).message;
  } finally {
    // The descriptors stay open; the names are not needed any more.
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The reply being read: its header, and the body (output, then error text) filled so far. */
interface PartialReply {
  readonly id: number;
  readonly code: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly outputLength: number;
  readonly body: Buffer;
  filled: number;
}

export class ScriptRunner {
  private readonly chunk = Buffer.allocUnsafe(64 * 1024);
  /** Bytes read past the last complete header or body. */
  private pending = Buffer.alloc(0);
  private partial: PartialReply | undefined;
  private nextId = 0;
  /** Replies received and not yet claimed, by request. */
  private readonly finished = new Map<number, SpawnReply>();
  /** Requests sent and not answered yet. */
  private readonly inFlight = new Set<number>();
  /** Background programs not yet collected, with what to do with each result. */
  private readonly background = new Map<number, (reply: SpawnReply) => void>();
  /** Why the runner stopped: its programs fail with this, and no more are sent to it. */
  private deathReason: string | undefined;

  private constructor(
    readonly kind: RunnerKind,
    private readonly channel: Channel,
  ) {}

  /**
   * Starts a runner without waiting for it (ready() does); undefined when
   * its interpreter is missing or could not be started.
   */
  static launch(kind: RunnerKind): ScriptRunner | undefined {
    const [program, args] = INTERPRETERS[kind]();
    if (!existsSync(program)) return undefined;
    const channel = startChannel(program, args);
    return typeof channel === "string" ? undefined : new ScriptRunner(kind, channel);
  }

  /** Waits (once) for the runner to say it is ready; false when it will not run programs. */
  ready(): boolean {
    if (this.readyState === undefined) {
      this.readyState = this.readReady();
      if (!this.readyState) this.die("the runner did not start");
    }
    return this.readyState;
  }

  private readyState: boolean | undefined;

  /** Reads the runner's first line; whether it says it is ready. */
  private readReady(): boolean {
    let line = "";
    try {
      while (!line.includes("\n")) {
        const count = readSync(this.channel.replies, this.chunk, 0, READY.length - line.length, null);
        if (count === 0) return false;
        line += this.chunk.toString("latin1", 0, count);
      }
    } catch {
      return false;
    }
    return line === READY;
  }

  get dead(): boolean {
    return this.deathReason !== undefined;
  }

  /** Runs a program and blocks until it is over; a program that cannot start is a reply with `error`. */
  run(order: RunOrder): SpawnReply {
    const id = this.send(order);
    while (!this.finished.has(id)) this.receive();
    return this.claim(id);
  }

  /** Starts a program and returns at once; `collect` gets its result in finishBackground(). */
  runInBackground(order: RunOrder, collect: (reply: SpawnReply) => void): void {
    this.background.set(this.send(order), collect);
  }

  /** Waits for every background program, handing each result over in the order they end. */
  finishBackground(): void {
    while (this.background.size > 0) {
      for (const id of [...this.finished.keys()]) {
        const collect = this.background.get(id);
        if (!collect) continue;
        this.background.delete(id);
        collect(this.claim(id));
      }
      if (this.background.size > 0) this.receive();
    }
  }

  private send(order: RunOrder): number {
    const id = ++this.nextId;
    this.inFlight.add(id);
    if (this.dead) {
      this.answer(id, failure(this.deathReason!));
      return id;
    }
    const number = (value: number | undefined) => (value === undefined ? "" : String(value >>> 0));
    const fields = [
      String(id),
      order.umask.toString(8),
      order.cwd ?? "",
      number(order.uid),
      number(order.gid),
      order.timeoutMs === undefined ? "" : String(Math.round(order.timeoutMs)),
      String(order.maxOutput),
      order.stopAt ?? "",
      order.stdinPath ?? "",
      ...environmentFields(order.env),
      ...order.argv,
    ];
    const record = Buffer.from(fields.join("\0"));
    try {
      this.write(Buffer.concat([Buffer.from(`${record.length}\n`), record]));
    } catch (error) {
      this.die(`the runner stopped reading (${(error as Error).message})`);
    }
    return id;
  }

  private write(bytes: Buffer): void {
    for (let done = 0; done < bytes.length; ) done += writeSync(this.channel.requests, bytes, done);
  }

  /** Blocks for the runner's next bytes and takes every reply they complete. */
  private receive(): void {
    if (this.dead) return;
    let count: number;
    try {
      const into = this.partial && this.pending.length === 0 ? this.partial : undefined;
      // A body is read straight into its buffer; anything else through the chunk.
      count = into
        ? readSync(this.channel.replies, into.body, into.filled, into.body.length - into.filled, null)
        : readSync(this.channel.replies, this.chunk, 0, this.chunk.length, null);
      if (count > 0 && into) {
        into.filled += count;
        this.completeBody();
        return;
      }
    } catch (error) {
      this.die(`the runner failed (${(error as Error).message})`);
      return;
    }
    if (count === 0) {
      this.die("the runner ended");
      return;
    }
    this.pending = this.pending.length
      ? Buffer.concat([this.pending, this.chunk.subarray(0, count)])
      : Buffer.from(this.chunk.subarray(0, count));
    this.parse();
  }

  /** Takes headers and bodies out of the pending bytes. */
  private parse(): void {
    for (;;) {
      if (!this.partial) {
        const end = this.pending.indexOf(10);
        if (end < 0) return;
        this.partial = this.readHeader(this.pending.toString("latin1", 0, end));
        this.pending = this.pending.subarray(end + 1);
      }
      const body = this.partial;
      const take = Math.min(body.body.length - body.filled, this.pending.length);
      this.pending.copy(body.body, body.filled, 0, take);
      body.filled += take;
      this.pending = this.pending.subarray(take);
      if (!this.completeBody()) return;
    }
  }

  private readHeader(line: string): PartialReply {
    const [id, code, signal, timedOut, outputLength, errorLength] = line.split(" ");
    const signalNumber = Number(signal);
    return {
      id: Number(id),
      code: code === "" ? null : Number(code),
      signal: signalNumber === 0 ? null : (SIGNAL_NAMES.get(signalNumber) ?? `signal ${signalNumber}`),
      timedOut: timedOut === "1",
      outputLength: Number(outputLength),
      body: Buffer.allocUnsafe(Number(outputLength) + Number(errorLength)),
      filled: 0,
    };
  }

  /** Files the reply being read if its body is complete; whether it was. */
  private completeBody(): boolean {
    const reply = this.partial!;
    if (reply.filled < reply.body.length) return false;
    this.partial = undefined;
    const output = reply.body.subarray(0, reply.outputLength);
    const error = reply.body.toString("utf8", reply.outputLength);
    if (error !== "") this.answer(reply.id, { ...failure(error), output });
    else {
      const { code: exitCode, signal, timedOut } = reply;
      this.answer(reply.id, { exitCode, signal, timedOut, output });
    }
    return true;
  }

  private answer(id: number, reply: SpawnReply): void {
    if (this.inFlight.delete(id)) this.finished.set(id, reply);
  }

  private claim(id: number): SpawnReply {
    const reply = this.finished.get(id)!;
    this.finished.delete(id);
    return reply;
  }

  private die(reason: string): void {
    if (this.dead) return;
    this.deathReason = reason;
    for (const id of [...this.inFlight]) this.answer(id, failure(reason));
    for (const fd of [this.channel.requests, this.channel.replies]) {
      try {
        closeSync(fd);
      } catch {
        // Closed already.
      }
    }
    try {
      this.channel.child.kill("SIGKILL");
    } catch {
      // Gone already.
    }
  }
}
