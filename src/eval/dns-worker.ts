/**
 * The thread behind host.ts's getHostFacts when the host's names need
 * more than /etc/hosts and were not found beforehand: it finds them
 * (host-resolver.ts), posts them, and wakes the waiting thread through the
 * shared counter.
 */
import { type MessagePort, workerData } from "node:worker_threads";
import { resolveHostNames } from "./host-resolver.js";

const data = workerData as { signal: SharedArrayBuffer; port: MessagePort; hostname: string };
const signal = new Int32Array(data.signal);

resolveHostNames(data.hostname, "/etc", process.env).then(
  (names) => {
    data.port.postMessage(names);
    Atomics.add(signal, 0, 1);
    Atomics.notify(signal, 0);
  },
  () => {
    // The waiting thread gives up at its own bound.
  },
);
