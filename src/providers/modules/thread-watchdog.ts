/**
 * The watchdog as a worker thread (module-worker.ts), armed through shared
 * memory: what is used where the timer process cannot run (no perl, or
 * perl without Time::HiRes). It keeps the same guarantees at a higher
 * fixed cost: booting a thread takes 25 to 45 ms of CPU (Node 20), and
 * ~8 ms of the agent's own thread to create it.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";
import type { WatchdogMessage } from "./exchange.js";
import type { Watchdog } from "./watchdog.js";
import { SHARED_BYTES, SharedState } from "./watchdog-state.js";

/**
 * The watchdog's script: next to this file in dist/src, or next to the
 * bundle's chunk in dist/bundle (scripts/bundle.js emits it there).
 */
function workerScript(): string {
  const path = fileURLToPath(new URL("./module-worker.js", import.meta.url));
  if (existsSync(path)) return path;
  return fileURLToPath(new URL("../src/providers/modules/module-worker.js", import.meta.url));
}

export class ThreadWatchdog implements Watchdog {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly state = new SharedState(new SharedArrayBuffer(SHARED_BYTES));
  /** The modules the thread knows about (it is told once per module). */
  private readonly told = new Set<number>();

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

  /** The thread watches from the moment it has booted; a deadline passed before then is seen then. */
  ready(): boolean {
    return true;
  }

  watch(pid: number, outPath: string, timeoutMs: number): void {
    if (!this.told.has(pid)) {
      this.told.add(pid);
      this.tell({ op: "watch", pid, outPath });
    }
    this.state.arm(pid, timeoutMs);
  }

  done(pid: number): void {
    this.state.disarm(pid);
  }

  forget(pid: number): void {
    if (this.told.delete(pid)) this.tell({ op: "forget", pid });
  }

  shutdown(): void {
    this.port.close();
    void this.worker.terminate();
  }

  private tell(message: WatchdogMessage): void {
    this.port.postMessage(message);
  }
}
