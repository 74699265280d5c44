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

/** The runner in use, by what TEND_SPAWNER asked; undefined when none could start. */
const runners = new Map<string, ScriptRunner | undefined>();
/** A runner started ahead of its first program, by what TEND_SPAWNER asked. */
const early = new Map<string, ScriptRunner>();
/** Runners that have background programs to collect (a dead one's fail, still to be handed over). */
const runnersWithBackground = new Set<ScriptRunner>();

function runnerKinds(asked: string | undefined): RunnerKind[] {
  if (asked === "python" || asked === "perl") return [asked];
  return asked === "node" ? [] : ["python", "perl"];
}

/**
 * Starts the runner now, so that it is ready by the first program (it runs
 * alongside the agent meanwhile); it is used by the first program of the
 * run, or left to end with the agent.
 */
export function startRunnerEarly(): void {
  const asked = process.env.TEND_SPAWNER ?? "";
  if (runners.has(asked) || early.has(asked)) return;
  const kind = runnerKinds(asked)[0];
  const runner = kind === undefined ? undefined : ScriptRunner.launch(kind);
  if (runner) early.set(asked, runner);
}

/** The runner (started at first use, and again after one died), or undefined for the worker. */
function scriptRunner(): ScriptRunner | undefined {
  const asked = process.env.TEND_SPAWNER ?? "";
  const current = runners.get(asked);
  if (runners.has(asked) && !current?.dead) return current;
  let started: ScriptRunner | undefined;
  const launched = early.get(asked);
  early.delete(asked);
  for (const kind of runnerKinds(asked)) {
    started = launched?.kind === kind ? launched : ScriptRunner.launch(kind);
    if (started?.ready()) break;
    started = undefined;
  }
  runners.set(asked, started);
  return started;
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

interface SpawnWorker {
  readonly port: MessagePort;
  readonly ready: Int32Array;
}

let current: SpawnWorker | undefined;
let nextId = 0;
/** Requests whose program has started (background ones report it). */
const started = new Set<number>();
/** Replies received and not yet claimed, by request. */
const finished = new Map<number, SpawnReply>();
/** Background programs not yet collected, with what to do with each result. */
const background = new Map<number, (reply: SpawnReply) => void>();

function startWorker(): SpawnWorker {
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

/** Takes every message the worker has posted so far. */
function drain(port: MessagePort): void {
  for (let received = receiveMessageOnPort(port); received; received = receiveMessageOnPort(port)) {
    const message = received.message as SpawnMessage;
    if (message.kind === "started") started.add(message.id);
    else finished.set(message.id, message.reply);
  }
}

/** Blocks until `done` holds, reading the worker's messages as they come. */
function waitUntil(done: () => boolean): void {
  const worker = current!;
  for (;;) {
    // Read the counter first: a message posted after this read changes it, so the wait cannot miss it.
    const seen = Atomics.load(worker.ready, 0);
    drain(worker.port);
    if (done()) return;
    Atomics.wait(worker.ready, 0, seen);
  }
}

function send(order: SpawnOrder, inBackground: boolean): number {
  current ??= startWorker();
  const id = ++nextId;
  const request: SpawnRequest = { ...order, id, background: inBackground };
  current.port.postMessage(request);
  return id;
}

function claim(id: number): SpawnReply {
  const reply = finished.get(id)!;
  finished.delete(id);
  started.delete(id);
  return reply;
}

/**
 * Runs a program and blocks until it is over. A program that cannot start
 * is a reply with `error` set, like any other.
 */
export function spawnAndWait(order: SpawnOrder): SpawnReply {
  const runner = scriptRunner();
  if (runner) return runner.run(order);
  // The umask stays set until the worker has started the program, which is when it is over here.
  return withUmask(order.umask, () => {
    const id = send(order, false);
    waitUntil(() => finished.has(id));
    return claim(id);
  });
}

/**
 * Starts a program and returns (from the worker once it runs, so that what
 * the agent's process lends it, such as the umask, may change again);
 * `collect` gets its result in finishBackground().
 */
export function spawnInBackground(order: SpawnOrder, collect: (reply: SpawnReply) => void): void {
  const runner = scriptRunner();
  if (runner) {
    runnersWithBackground.add(runner);
    runner.runInBackground(order, collect);
    return;
  }
  withUmask(order.umask, () => {
    const id = send(order, true);
    background.set(id, collect);
    waitUntil(() => started.has(id) || finished.has(id));
  });
}

/** Waits for every background program, handing each result over in the order they end. */
export function finishBackground(): void {
  for (const runner of runnersWithBackground) runner.finishBackground();
  runnersWithBackground.clear();
  while (background.size > 0) {
    waitUntil(() => [...background.keys()].some((id) => finished.has(id)));
    for (const id of [...finished.keys()]) {
      const collect = background.get(id);
      if (!collect) continue;
      background.delete(id);
      collect(claim(id));
    }
  }
}
