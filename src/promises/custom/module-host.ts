/**
 * The agent's side of the module worker: a synchronous bridge.
 *
 * Why a worker thread and a blocking wait: the engine evaluates promises
 * synchronously (as cf-agent does; `commands` run with spawnSync), but a
 * promise module is a long-lived process spoken to over pipes, with time
 * limits. Node cannot read a child's pipe synchronously with a time limit,
 * and making the whole engine asynchronous would touch every promise type
 * for the sake of one. So module I/O runs fully asynchronously (child_process,
 * timers) in a worker thread, and the agent's thread posts one call and
 * sleeps in `Atomics.wait` until the worker posts the answer and wakes it,
 * then takes the answer with `receiveMessageOnPort`. The cost is a thread
 * hop per message, a few tens of microseconds, paid only by policies that
 * use custom promise types (the worker starts on first use).
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { MessageChannel, type MessagePort, Worker, receiveMessageOnPort } from "node:worker_threads";
import type { ExchangeResult, HostCall } from "./exchange.js";

/** How much longer than the call's own limit to wait before declaring the worker dead. */
const WORKER_GRACE_MS = 10_000;

/**
 * The worker's script: next to this file in dist/src, or next to the
 * bundle's chunk in dist/bundle (scripts/bundle.js emits it there).
 */
function workerScript(): string {
  const path = fileURLToPath(new URL("./module-worker.js", import.meta.url));
  if (existsSync(path)) return path;
  return fileURLToPath(new URL("../src/promises/custom/module-worker.js", import.meta.url));
}

export class ModuleHost {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  /** Set when the worker failed to answer: every later call fails at once. */
  private broken: string | undefined;

  constructor() {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(workerScript(), {
      workerData: { port: port2, signal: this.flag.buffer },
      transferList: [port2],
      stdout: true,
      stderr: true,
    });
    // The worker must never keep the agent alive; modules are stopped by `shutdown`.
    this.worker.unref();
  }

  /** Posts `call` and blocks until the worker answers (at most `limitMs` plus a grace). */
  call(call: HostCall, limitMs: number): ExchangeResult {
    if (this.broken) return { status: "failed", lines: [], stderr: "", error: this.broken };
    Atomics.store(this.flag, 0, 0);
    this.port.postMessage(call);
    const waited = Atomics.wait(this.flag, 0, 0, limitMs + WORKER_GRACE_MS);
    const answer = waited === "timed-out" ? undefined : receiveMessageOnPort(this.port);
    if (!answer) {
      this.broken = "the module worker thread stopped answering";
      void this.worker.terminate();
      return { status: "failed", lines: [], stderr: "", error: this.broken };
    }
    return answer.message as ExchangeResult;
  }

  /** Kills every module left and ends the worker. */
  shutdown(): void {
    if (!this.broken) this.call({ op: "shutdown" }, WORKER_GRACE_MS);
    this.port.close();
    void this.worker.terminate();
  }
}
