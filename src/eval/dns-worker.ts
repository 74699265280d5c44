/**
 * The thread behind host.ts's DNS lookups: it answers each request
 * (resolver.ts's queryDns) with a message, then wakes the thread waiting on
 * the shared counter. It never keeps the process alive.
 */
import { type MessagePort, workerData } from "node:worker_threads";
import { queryDns } from "./dns-query.js";
import type { DnsResult, ResolverConfig } from "./resolver.js";

/** A lookup asked of the worker. */
export interface DnsRequest {
  readonly id: number;
  readonly name: string;
  readonly config: ResolverConfig;
  readonly deadline: number;
}

/** Its answer. */
export interface DnsReply {
  readonly id: number;
  readonly result: DnsResult;
}

const data = workerData as { signal: SharedArrayBuffer; port: MessagePort };
const signal = new Int32Array(data.signal);

data.port.on("message", (request: DnsRequest) => {
  queryDns(request.name, request.config, request.deadline)
    .catch((): DnsResult => ({ status: "unavail" }))
    .then((result) => {
      data.port.postMessage({ id: request.id, result } satisfies DnsReply);
      Atomics.add(signal, 0, 1);
      Atomics.notify(signal, 0);
    });
});
