/**
 * The watchdog thread: kills a promise module that overruns the deadline
 * of its exchange. The agent's thread arms the deadline in shared memory
 * before each exchange and disarms it after (see watchdog.ts); this thread
 * looks every few milliseconds, so the normal case costs no message and no
 * thread hop. After the kill it writes to the module's output FIFO, so that
 * a read waiting there returns even if something the module started still
 * holds the FIFO open.
 */
import { closeSync, constants, openSync, writeSync } from "node:fs";
import { type MessagePort, workerData } from "node:worker_threads";
import type { WatchdogMessage } from "./exchange.js";
import { SharedState } from "./watchdog-state.js";

interface WorkerData {
  readonly port: MessagePort;
  readonly shared: SharedArrayBuffer;
}

/** How often the watchdog looks at the deadline. */
const WATCH_INTERVAL_MS = 20;

const { port, shared } = workerData as WorkerData;
const state = new SharedState(shared);
const outputs = new Map<number, string>();

function watch(): void {
  const pid = state.takeExpired();
  if (pid === 0) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
  const outPath = outputs.get(pid);
  if (outPath === undefined) return;
  try {
    const fd = openSync(outPath, constants.O_WRONLY | constants.O_NONBLOCK);
    writeSync(fd, "\n\n");
    closeSync(fd);
  } catch {
    // No reader left: nothing waits.
  }
}

setInterval(watch, WATCH_INTERVAL_MS);
port.on("message", (message: WatchdogMessage) => {
  if (message.op === "watch") outputs.set(message.pid, message.outPath);
  else outputs.delete(message.pid);
});
