/**
 * The client's requests, synchronous, for the agent's synchronous
 * evaluation: the async client (client.ts) runs on a worker thread
 * (sync-worker.ts) while this thread blocks on a shared counter
 * (Atomics.wait) and reads the reply with receiveMessageOnPort, as
 * src/providers/commands/spawn-client.ts does for programs. The worker
 * starts with the first connection and never keeps the process alive.
 *
 * Every wait is bounded: the client bounds each read by its timeout, and
 * this side gives up on its own when the worker shows no progress for
 * twice that (a worker that died), so a dead server cannot hang the agent.
 * Log lines the client writes come back with each reply and go to the
 * caller's logger.
 */
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import type { Logger } from "../system/logger.js";
import type { ConnectOptions, RemoteStat } from "./client.js";
import { NetError } from "./errors.js";
import type { SyncOperation, SyncReply, SyncRequest, SyncWorkerData } from "./sync-protocol.js";

const DEFAULT_TIMEOUT_MS = 30_000;
/** Beyond the client's own timeouts: the worker's answer may take this much longer. */
const GRACE_MS = 5_000;

interface WorkerHandle {
  readonly port: MessagePort;
  readonly signal: Int32Array;
}

function startWorker(): WorkerHandle {
  const signal = new SharedArrayBuffer(8);
  const { port1, port2 } = new MessageChannel();
  const data: SyncWorkerData & { port: MessagePort } = { signal, port: port2 };
  const worker = new Worker(new URL("./sync-worker.js", import.meta.url), {
    workerData: data,
    transferList: [port2],
  });
  worker.unref();
  port1.unref();
  return { port: port1, signal: new Int32Array(signal) };
}

/** The worker of this process and the replies it has posted. */
class Channel {
  private handle: WorkerHandle | undefined;
  private nextId = 0;
  private nextConnection = 0;
  private readonly replies = new Map<number, SyncReply>();

  newConnectionId(): number {
    return ++this.nextConnection;
  }

  /** Sends `operation` and waits for its reply, at most `timeoutMs` without progress. */
  request(connection: number, operation: SyncOperation, timeoutMs: number): SyncReply {
    this.handle ??= startWorker();
    const { port, signal } = this.handle;
    const id = ++this.nextId;
    const request: SyncRequest = { ...operation, id, connection };
    port.postMessage(request);
    let progress = Atomics.load(signal, 1);
    for (;;) {
      // Read the counter first: a reply posted after this read changes it, so the wait cannot miss it.
      const seen = Atomics.load(signal, 0);
      this.drain(port);
      const reply = this.replies.get(id);
      if (reply) {
        this.replies.delete(id);
        return reply;
      }
      if (Atomics.wait(signal, 0, seen, timeoutMs) !== "timed-out") continue;
      const now = Atomics.load(signal, 1);
      if (now !== progress) {
        progress = now;
        continue;
      }
      this.drain(port);
      if (this.replies.has(id)) continue;
      return {
        id,
        ok: false,
        error: { kind: "timeout", message: `no answer in ${Math.round(timeoutMs / 1000)} s` },
        logs: [],
      };
    }
  }

  /** Sends without waiting (close). */
  send(connection: number, operation: SyncOperation): void {
    if (!this.handle) return;
    this.handle.port.postMessage({ ...operation, id: ++this.nextId, connection } satisfies SyncRequest);
  }

  private drain(port: MessagePort): void {
    for (let received = receiveMessageOnPort(port); received; received = receiveMessageOnPort(port)) {
      const reply = received.message as SyncReply;
      this.replies.set(reply.id, reply);
    }
  }
}

const channel = new Channel();

/** The result of a reply: its log lines written, its error thrown. */
function settle<T>(reply: SyncReply, logger: Logger | undefined): T {
  for (const line of reply.logs) logger?.log(line.level, line.message);
  if (!reply.ok) throw new NetError(reply.error?.kind ?? "protocol", reply.error?.message ?? "failed");
  return reply.value as T;
}

/** One connection to a server, its requests answered synchronously (the contract's ServerConnection). */
export class SyncServerConnection {
  private closed = false;
  /** Set by a timeout or a lost connection: no further request is sent. */
  private broken: NetError | undefined;

  private constructor(
    private readonly id: number,
    private readonly timeoutMs: number,
    private readonly logger: Logger | undefined,
    readonly serverDigest: string,
    readonly serverVersion: string,
    readonly address: string,
  ) {}

  /** Connects (TLS, key check, dialog); throws NetError as the async client does. */
  static connect(options: ConnectOptions): SyncServerConnection {
    const { logger, ...rest } = options;
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const id = channel.newConnectionId();
    const reply = channel.request(
      id,
      { op: "connect", options: rest as Record<string, unknown>, logLevel: logger?.level ?? "error" },
      2 * timeoutMs + GRACE_MS,
    );
    const info = settle<{ serverDigest: string; serverVersion: string; address: string }>(reply, logger);
    return new SyncServerConnection(
      id,
      timeoutMs,
      logger,
      info.serverDigest,
      info.serverVersion,
      info.address,
    );
  }

  /** Whether requests may still be sent. */
  get usable(): boolean {
    return !this.closed && this.broken === undefined;
  }

  private call<T>(operation: SyncOperation): T {
    if (this.closed) throw new NetError("closed", `connection to ${this.address} closed`);
    if (this.broken) throw this.broken;
    const reply = channel.request(this.id, operation, 2 * this.timeoutMs + GRACE_MS);
    try {
      return settle<T>(reply, this.logger);
    } catch (error) {
      if (error instanceof NetError && error.kind !== "refused") this.broken = error;
      throw error;
    }
  }

  stat(path: string): RemoteStat {
    return this.call({ op: "stat", path });
  }

  /** The file's bytes (small files; getToFile for copies). */
  get(path: string, size: number): Buffer {
    const value = this.call<Uint8Array | undefined>({ op: "get", path, size });
    return Buffer.from(value ?? new Uint8Array());
  }

  /** GET into the new file `destination` (O_EXCL, `mode`), written by the worker as it arrives. */
  getToFile(path: string, size: number, destination: string, mode: number): void {
    this.call({ op: "getToFile", path, size, destination, mode });
  }

  opendir(path: string): string[] {
    return this.call({ op: "opendir", path });
  }

  md5Differs(path: string, localMd5: Buffer): boolean {
    return this.call({ op: "md5Differs", path, md5: new Uint8Array(localMd5) });
  }

  version(): string {
    return this.call({ op: "version" });
  }

  context(regex: string): string[] {
    return this.call({ op: "context", regex });
  }

  var(handle: string): string | undefined {
    return this.call({ op: "var", handle });
  }

  /** EXEC; the server's lines are handed over once it is done. */
  exec(options: { defineClasses?: string[]; bundles?: string[] }, onLine: (line: string) => void): void {
    const lines = this.call<string[]>({ op: "exec", ...options });
    for (const line of lines) onLine(line);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    channel.send(this.id, { op: "close" });
  }
}
