/**
 * Runs programs through the spawn worker (spawn-worker.ts): in the
 * foreground, waiting synchronously as the agent's evaluation needs, or
 * in the background, collected at the end of the run. The worker starts
 * with the first program of the run and does not keep the process alive.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MessageChannel, type MessagePort, Worker, receiveMessageOnPort } from "node:worker_threads";
import type { SpawnMessage, SpawnReply, SpawnRequest, SpawnWorkerData } from "./spawn-protocol.js";

/** What to run; the id is the client's. */
export type SpawnOrder = Omit<SpawnRequest, "id" | "background">;

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
  const id = send(order, false);
  waitUntil(() => finished.has(id));
  return claim(id);
}

/**
 * Starts a program and returns once it runs (so that what the agent's
 * process lends it, such as the umask, may change again); `collect` gets
 * its result in finishBackground().
 */
export function spawnInBackground(order: SpawnOrder, collect: (reply: SpawnReply) => void): void {
  const id = send(order, true);
  background.set(id, collect);
  waitUntil(() => started.has(id) || finished.has(id));
}

/** Waits for every background program, handing each result over in the order they end. */
export function finishBackground(): void {
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
