/**
 * The module worker: a thread that owns every promise module process of a
 * run and does all their I/O asynchronously. The agent's thread sends one
 * call at a time (see module-host.ts) and sleeps until the answer is
 * posted back and `signal[0]` is set.
 */
import { type MessagePort, workerData } from "node:worker_threads";
import type { ExchangeResult, HostCall } from "./exchange.js";
import { ModuleProcess } from "./module-process.js";

interface WorkerData {
  readonly port: MessagePort;
  readonly signal: SharedArrayBuffer;
}

const { port, signal } = workerData as WorkerData;
const flag = new Int32Array(signal);
const modules = new Map<string, ModuleProcess>();

function reply(answer: ExchangeResult): void {
  port.postMessage(answer);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

const failed = (error: string): ExchangeResult => ({ status: "failed", lines: [], stderr: "", error });
const done: ExchangeResult = { status: "ok", lines: [], stderr: "" };

async function handle(call: HostCall): Promise<ExchangeResult> {
  switch (call.op) {
    case "spawn": {
      const started = await ModuleProcess.start(call.argv);
      if (typeof started === "string") return failed(started);
      modules.set(call.key, started);
      return done;
    }
    case "exchange": {
      const module = modules.get(call.key);
      if (!module) return failed("the module is not running");
      return module.exchange(call.input, call.timeoutMs, call.maxBytes);
    }
    case "kill":
      await modules.get(call.key)?.kill();
      modules.delete(call.key);
      return done;
    case "close":
      await modules.get(call.key)?.close(call.graceMs);
      modules.delete(call.key);
      return done;
    case "shutdown":
      await Promise.all([...modules.values()].map((m) => m.kill()));
      modules.clear();
      return done;
  }
}

port.on("message", (call: HostCall) => {
  handle(call)
    .then(reply, (error: unknown) => reply(failed(`module worker: ${String(error)}`)))
    // With the port closed the thread has nothing left to wait for and ends.
    .finally(() => call.op === "shutdown" && port.close());
});
