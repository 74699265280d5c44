/**
 * How tend talks to promise modules, and why so.
 *
 * The engine evaluates promises synchronously (as cf-agent does), and a
 * promise module is a long-lived process spoken to over pipes, with time
 * limits. Making the whole engine asynchronous would touch every promise
 * type for the sake of one; doing every exchange through a worker thread
 * costs thread hops per message, which made 1,000 promises several times
 * slower than cf-agent on a busy machine. So the agent's thread starts the
 * modules and does their I/O itself, synchronously, on FIFOs
 * (module-channel.ts): a blocking read wakes exactly when the module
 * answers, as in cf-agent. The one thing that must run while that read
 * waits is the watchdog: this thread, which kills a module past the
 * deadline of its exchange and so ends the read. It is told about modules
 * by message and armed through shared memory; the agent never waits on it.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";
import type { WatchdogMessage } from "./exchange.js";
import { SHARED_BYTES, SharedState } from "./watchdog.js";

/**
 * The watchdog's script: next to this file in dist/src, or next to the
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
  readonly state = new SharedState(new SharedArrayBuffer(SHARED_BYTES));

  constructor() {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(workerScript(), {
      workerData: { port: port2, shared: this.state.buffer },
      transferList: [port2],
      stdout: true,
      stderr: true,
    });
    // The watchdog must never keep the agent alive.
    this.worker.unref();
    this.port.unref();
  }

  /** Tells the watchdog about a module or that it is gone (it need not have booted yet). */
  tell(message: WatchdogMessage): void {
    this.port.postMessage(message);
  }

  /** Ends the watchdog thread. */
  shutdown(): void {
    this.port.close();
    void this.worker.terminate();
  }
}
