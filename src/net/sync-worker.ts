/**
 * The thread behind sync-client.ts: it holds the async connections
 * (client.ts) of its process and answers one request at a time per
 * message, posting the reply and then waking the waiting thread through
 * the shared counter. A GET into a file is written here, block by block
 * as it arrives (holes where the blocks are zeros), so large files never
 * cross between the threads.
 */
import { closeSync, fsyncSync, ftruncateSync, openSync, writeSync } from "node:fs";
import { type MessagePort, workerData } from "node:worker_threads";
import { Logger, type LogLevel } from "../system/logger.js";
import { type ConnectOptions, ServerConnection } from "./client.js";
import { NetError } from "./errors.js";
import type { SyncLogLine, SyncReply, SyncRequest, SyncWorkerData } from "./sync-protocol.js";

const data = workerData as SyncWorkerData & { port: MessagePort };
const signal = new Int32Array(data.signal);
const port = data.port;
const connections = new Map<number, ServerConnection>();
/** The log lines of the request being answered (requests are answered one after another). */
let lines: SyncLogLine[] = [];
const loggers = new Map<LogLevel, Logger>();

function loggerAt(level: LogLevel): Logger {
  let logger = loggers.get(level);
  if (!logger) {
    logger = new Logger((record) => lines.push(record), level);
    loggers.set(level, logger);
  }
  return logger;
}

function post(reply: SyncReply): void {
  port.postMessage(reply);
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
}

function progress(): void {
  Atomics.add(signal, 1, 1);
}

function isZero(bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== 0) return false;
  return true;
}

/** GET into a new file: created O_EXCL with `mode`, zero blocks left as holes, flushed. */
async function getToFile(
  connection: ServerConnection,
  path: string,
  size: number,
  destination: string,
  mode: number,
): Promise<void> {
  const fd = openSync(destination, "wx", mode);
  let position = 0;
  try {
    await connection.get(path, size, (chunk) => {
      if (!isZero(chunk)) {
        let done = 0;
        while (done < chunk.length) done += writeSync(fd, chunk, done, chunk.length - done, position + done);
      }
      position += chunk.length;
      progress();
    });
    ftruncateSync(fd, position);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function connectionOf(request: SyncRequest): ServerConnection {
  const connection = connections.get(request.connection);
  if (!connection) throw new NetError("closed", "connection closed");
  return connection;
}

async function answer(request: SyncRequest): Promise<unknown> {
  switch (request.op) {
    case "connect": {
      const options = { ...request.options, logger: loggerAt(request.logLevel) } as unknown as ConnectOptions;
      const connection = options.classic
        ? await (await import("./classic/client.js")).connectClassic(options)
        : await ServerConnection.connect(options);
      connections.set(request.connection, connection);
      return {
        serverDigest: connection.serverDigest,
        serverVersion: connection.serverVersion,
        address: connection.address,
      };
    }
    case "stat":
      return connectionOf(request).stat(request.path);
    case "get":
      return connectionOf(request).get(request.path, request.size);
    case "getToFile":
      return getToFile(connectionOf(request), request.path, request.size, request.destination, request.mode);
    case "opendir":
      return connectionOf(request).opendir(request.path);
    case "md5Differs":
      return connectionOf(request).md5Differs(request.path, Buffer.from(request.md5));
    case "version":
      return connectionOf(request).version();
    case "context":
      return connectionOf(request).context(request.regex);
    case "var":
      return connectionOf(request).var(request.handle);
    case "exec": {
      const output: string[] = [];
      await connectionOf(request).exec(
        { defineClasses: request.defineClasses, bundles: request.bundles },
        (line) => output.push(line),
      );
      return output;
    }
    case "close":
      connections.get(request.connection)?.close();
      connections.delete(request.connection);
      return undefined;
  }
}

/** Requests are answered in the order they come, one at a time. */
let queue: Promise<void> = Promise.resolve();

port.on("message", (request: SyncRequest) => {
  queue = queue.then(async () => {
    lines = [];
    try {
      const value = await answer(request);
      post({ id: request.id, ok: true, value, logs: lines });
    } catch (error) {
      const kind = error instanceof NetError ? error.kind : "protocol";
      const message = error instanceof Error ? error.message : String(error);
      post({ id: request.id, ok: false, error: { kind, message }, logs: lines });
    }
  });
});
