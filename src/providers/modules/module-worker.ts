/**
 * The watchdog thread: wakes the agent's read of a promise module's output
 * once the deadline of the exchange has passed, by writing the wake byte
 * to the module's output FIFO; the agent then kills the module (see
 * watchdog.ts). The agent's thread arms the deadline in shared memory
 * before each exchange and disarms it after; this thread looks every few
 * milliseconds, so the normal case costs no message and no thread hop.
 */
import { closeSync, constants, openSync, writeSync } from "node:fs";
import { type MessagePort, workerData } from "node:worker_threads";
import { WAKE_BYTE, type WatchdogMessage } from "./exchange.js";
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
const WAKE = new Uint8Array([WAKE_BYTE]);

function watch(): void {
  const pid = state.takeExpired();
  if (pid === 0) return;
  const outPath = outputs.get(pid);
  if (outPath === undefined) return;
  try {
    const fd = openSync(outPath, constants.O_WRONLY | constants.O_NONBLOCK);
    writeSync(fd, WAKE);
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
