/**
 * The messages between the synchronous client (sync-client.ts, on the
 * agent's thread) and its worker (sync-worker.ts, which runs the async
 * client). Every request has an id and gets one reply; the log lines the
 * client wrote meanwhile come back with it, to be written by the agent's
 * own logger in order.
 */
import type { LogLevel } from "../system/logger.js";
import type { NetErrorKind } from "./errors.js";

export type SyncOperation =
  | { readonly op: "connect"; readonly options: Record<string, unknown>; readonly logLevel: LogLevel }
  | { readonly op: "stat"; readonly path: string }
  | { readonly op: "get"; readonly path: string; readonly size: number }
  | {
      readonly op: "getToFile";
      readonly path: string;
      readonly size: number;
      readonly destination: string;
      readonly mode: number;
    }
  | { readonly op: "opendir"; readonly path: string }
  | { readonly op: "md5Differs"; readonly path: string; readonly md5: Uint8Array }
  | { readonly op: "version" }
  | { readonly op: "context"; readonly regex: string }
  | { readonly op: "var"; readonly handle: string }
  | {
      readonly op: "exec";
      readonly defineClasses?: string[];
      readonly bundles?: string[];
    }
  | { readonly op: "close" };

export type SyncRequest = SyncOperation & { readonly id: number; readonly connection: number };

export interface SyncLogLine {
  readonly level: LogLevel;
  readonly message: string;
}

export interface SyncReply {
  readonly id: number;
  readonly ok: boolean;
  readonly value?: unknown;
  readonly error?: { readonly kind: NetErrorKind; readonly message: string };
  readonly logs: readonly SyncLogLine[];
}

export interface SyncWorkerData {
  /** [0] counts replies posted (Atomics.notify on it); [1] counts progress (GET blocks). */
  readonly signal: SharedArrayBuffer;
}
