/**
 * Runs a program through the spawn worker (spawn-worker.ts) and waits for
 * it synchronously, as the agent's evaluation needs. The worker starts at
 * the first program of the run and does not keep the process alive.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MessageChannel, type MessagePort, Worker, receiveMessageOnPort } from "node:worker_threads";
import type { SpawnReply, SpawnRequest, SpawnWorkerData } from "./spawn-protocol.js";

interface SpawnWorker {
  readonly port: MessagePort;
  readonly ready: Int32Array;
}

let current: SpawnWorker | undefined;

function startWorker(): SpawnWorker {
  const fifoDir = mkdtempSync(join(tmpdir(), "tend-commands-"));
  process.once("exit", () => rmSync(fifoDir, { recursive: true, force: true }));
  const ready = new SharedArrayBuffer(4);
  const { port1, port2 } = new MessageChannel();
  const data: SpawnWorkerData & { port: MessagePort } = { fifoDir, ready, port: port2 };
  const worker = new Worker(new URL("./spawn-worker.js", import.meta.url), {
    workerData: data,
    transferList: [port2],
  });
  worker.unref();
  port1.unref();
  worker.on("error", () => {
    // A broken worker is replaced at the next program.
    current = undefined;
  });
  return { port: port1, ready: new Int32Array(ready) };
}

/**
 * Runs `request` and blocks until it is over. A program that cannot start
 * is a reply with `error` set, like any other.
 */
export function spawnAndWait(request: SpawnRequest): SpawnReply {
  current ??= startWorker();
  const { port, ready } = current;
  Atomics.store(ready, 0, 0);
  port.postMessage(request);
  Atomics.wait(ready, 0, 0);
  const received = receiveMessageOnPort(port);
  if (received === undefined) {
    current = undefined;
    return { exitCode: null, signal: null, timedOut: false, output: new Uint8Array(0), error: "no reply" };
  }
  return received.message as SpawnReply;
}
