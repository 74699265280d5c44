/**
 * Runs programs in the foreground, waiting synchronously as the agent's
 * evaluation needs, or in the background, collected at the end of the run:
 * through a runner process (script-runner.ts) in Python or else perl,
 * where one is installed, else through the spawn worker (spawn-worker.ts),
 * a thread that starts them from Node. `TEND_SPAWNER` (python, perl or
 * node) asks for one of them. Each starts with the first program of the
 * run and does not keep the process alive.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MessageChannel, type MessagePort, Worker, receiveMessageOnPort } from "node:worker_threads";
import { type RunnerKind, ScriptRunner } from "./script-runner.js";
import type { SpawnMessage, SpawnReply, SpawnRequest, SpawnWorkerData } from "./spawn-protocol.js";

/** What to run; the id is the client's. */
export type SpawnOrder = Omit<SpawnRequest, "id" | "background">;

function runnerKinds(asked: string | undefined): RunnerKind[] {
  if (asked === "python" || asked === "perl") return [asked];
  return asked === "node" ? [] : ["python", "perl"];
}

/** Runs `start` with the process's umask set as asked: a program started from Node inherits it. */
function withUmask<T>(umask: number, start: () => T): T {
  const previous = process.umask(umask);
  try {
    return start();
  } finally {
    process.umask(previous);
  }
}

/**
 * The runner processes of this process, by what TEND_SPAWNER asked: they
 * are resources of the process (started once, reused by every run).
 */
class RunnerPool {
  /** The runner in use; undefined when none could start. */
  private readonly runners = new Map<string, ScriptRunner | undefined>();
  /** A runner started ahead of its first program. */
  private readonly early = new Map<string, ScriptRunner>();
  /** Runners that have background programs to collect (a dead one's fail, still to be handed over). */
  readonly withBackground = new Set<ScriptRunner>();

  startEarly(asked: string): void {
    if (this.runners.has(asked) || this.early.has(asked)) return;
    const kind = runnerKinds(asked)[0];
    const runner = kind === undefined ? undefined : ScriptRunner.launch(kind);
    if (runner) this.early.set(asked, runner);
  }

  /** The runner (started at first use, and again after one died), or undefined for the worker. */
  current(asked: string): ScriptRunner | undefined {
    const current = this.runners.get(asked);
    if (this.runners.has(asked) && !current?.dead) return current;
    let started: ScriptRunner | undefined;
    const launched = this.early.get(asked);
    this.early.delete(asked);
    for (const kind of runnerKinds(asked)) {
      started = launched?.kind === kind ? launched : ScriptRunner.launch(kind);
      if (started?.ready()) break;
      started = undefined;
    }
    this.runners.set(asked, started);
    return started;
  }

  finishBackground(): void {
    for (const runner of this.withBackground) runner.finishBackground();
    this.withBackground.clear();
  }
}

interface WorkerPort {
  readonly port: MessagePort;
  readonly ready: Int32Array;
}

function startWorker(): WorkerPort {
  const fifoDir = mkdtempSync(join(tmpdir(), "tend-commands-"));
  process.once("exit", () => rmSync(fifoDir, { recursive: true, force: true }));
  const ready = new SharedArrayBuffer(4);
  const { port1, port2 } = new MessageChannel();
  const data: SpawnWorkerData & { port: MessagePort } = { fifoDir, ready, port: port2 };
  const worker = new Worker(new URL("./spawn-worker.js", import.meta.url), {
    workerData: data,
    transferList: [port2],
    // The worker hands its FIFO descriptors to sockets, which close them;
    // Node's bookkeeping of a worker's descriptors would warn at each reuse.
    trackUnmanagedFds: false,
  });
  worker.unref();
  port1.unref();
  return { port: port1, ready: new Int32Array(ready) };
}

/** The spawn worker of this process (started at its first program) and its requests. */
class WorkerClient {
  private worker: WorkerPort | undefined;
  private nextId = 0;
  /** Requests whose program has started (background ones report it). */
  private readonly started = new Set<number>();
  /** Replies received and not yet claimed, by request. */
  private readonly finished = new Map<number, SpawnReply>();
  /** Background programs not yet collected, with what to do with each result. */
  private readonly background = new Map<number, (reply: SpawnReply) => void>();

  run(order: SpawnOrder): SpawnReply {
    // The umask stays set until the worker has started the program, which is when it is over here.
    return withUmask(order.umask, () => {
      const id = this.send(order, false);
      this.waitUntil(() => this.finished.has(id));
      return this.claim(id);
    });
  }

  runInBackground(order: SpawnOrder, collect: (reply: SpawnReply) => void): void {
    withUmask(order.umask, () => {
      const id = this.send(order, true);
      this.background.set(id, collect);
      this.waitUntil(() => this.started.has(id) || this.finished.has(id));
    });
  }

  finishBackground(): void {
    while (this.background.size > 0) {
      this.waitUntil(() => [...this.background.keys()].some((id) => this.finished.has(id)));
      for (const id of [...this.finished.keys()]) {
        const collect = this.background.get(id);
        if (!collect) continue;
        this.background.delete(id);
        collect(this.claim(id));
      }
    }
  }

  /** Takes every message the worker has posted so far. */
  private drain(port: MessagePort): void {
    for (let received = receiveMessageOnPort(port); received; received = receiveMessageOnPort(port)) {
      const message = received.message as SpawnMessage;
      if (message.kind === "started") this.started.add(message.id);
      else this.finished.set(message.id, message.reply);
    }
  }

  /** Blocks until `done` holds, reading the worker's messages as they come. */
  private waitUntil(done: () => boolean): void {
    const worker = this.worker!;
    for (;;) {
      // Read the counter first: a message posted after this read changes it, so the wait cannot miss it.
      const seen = Atomics.load(worker.ready, 0);
      this.drain(worker.port);
      if (done()) return;
      Atomics.wait(worker.ready, 0, seen);
    }
  }

  private send(order: SpawnOrder, inBackground: boolean): number {
    this.worker ??= startWorker();
    const id = ++this.nextId;
    const request: SpawnRequest = { ...order, id, background: inBackground };
    this.worker.port.postMessage(request);
    return id;
  }

  private claim(id: number): SpawnReply {
    const reply = this.finished.get(id)!;
    this.finished.delete(id);
    this.started.delete(id);
    return reply;
  }
}

/** What starts programs for this process: its runner processes and its spawn worker. */
const runners = new RunnerPool();
const worker = new WorkerClient();

function asked(): string {
  return process.env.TEND_SPAWNER ?? "";
}

/**
 * Starts the runner now, so that it is ready by the first program (it runs
 * alongside the agent meanwhile); it is used by the first program of the
 * run, or left to end with the agent.
 */
export function startRunnerEarly(): void {
  runners.startEarly(asked());
}

/**
 * Runs a program and blocks until it is over. A program that cannot start
 * is a reply with `error` set, like any other.
 */
export function spawnAndWait(order: SpawnOrder): SpawnReply {
  const runner = runners.current(asked());
  return runner ? runner.run(order) : worker.run(order);
}

/**
 * Starts a program and returns (from the worker once it runs, so that what
 * the agent's process lends it, such as the umask, may change again);
 * `collect` gets its result in finishBackground().
 */
export function spawnInBackground(order: SpawnOrder, collect: (reply: SpawnReply) => void): void {
  const runner = runners.current(asked());
  if (runner) {
    runners.withBackground.add(runner);
    runner.runInBackground(order, collect);
    return;
  }
  worker.runInBackground(order, collect);
}

/** Waits for every background program, handing each result over in the order they end. */
export function finishBackground(): void {
  runners.finishBackground();
  worker.finishBackground();
}
