/**
 * What a command handler may do with its connection: send framed replies,
 * send raw bytes (GET), read a further frame (EXEC's class list). Each send
 * is done once the bytes are handed to TLS as records of their own, so
 * that no frame straddles a record boundary: 3.21's clients read a header
 * and then a payload with one SSL_read each, and SSL_read returns at most
 * one record. A send that is done at once returns nothing (most are: a
 * promise to await would cost each request a turn of the microtask queue);
 * one that has to wait returns a promise.
 */
import type { ConnectionInfo, PathDecision, ServerPolicy } from "../policy/model.js";
import type { DigestCache } from "./digests.js";
import type { Logger } from "../../system/logger.js";

export interface Frame {
  readonly more: boolean;
  readonly payload: Buffer;
}

/** Nothing when the bytes went at once, else a promise settled when they are gone (or failed). */
export type Sent = Promise<void> | undefined;

export interface Channel {
  /** One frame (8-byte header + payload), `more` marking a reply continued in the next frame. */
  send(payload: string | Buffer, more?: boolean): Sent;
  /** Several frames in one TLS record (whole frames only, so 3.21's reads stay in step); the last one ends the reply. */
  sendFrames(payloads: readonly (string | Buffer)[]): Sent;
  /** Bytes as they are (GET's refusals), one TLS record. */
  sendRaw(bytes: Buffer): Sent;
  /**
   * GET's file data: whole blocks (but the file's last), which TLS may put
   * in a record with the blocks sent before them (records of 16 KiB are
   * whole blocks, so each of the client's block reads still gets a whole
   * block). Done at once unless TLS holds too much unsent.
   */
  sendData(bytes: Buffer): Sent;
  /** The next frame from the client. */
  receive(): Promise<Frame>;
}

/** One client after the dialog: who it is, the policy it is served under, where to log. */
export interface Session {
  readonly channel: Channel;
  readonly peer: ConnectionInfo;
  /** The claimed user's uid on this host (0 for "root"; undefined when unknown). */
  readonly uid: number | undefined;
  readonly policy: ServerPolicy;
  /** Log lines prefixed with the peer's address, as cf-serverd's connection threads log. */
  readonly log: Logger;
  /** `$(sys.statedir)`: where the persistent classes are. */
  readonly statedir: string;
  /** How long cfruncommand may run before it is killed (EXEC). */
  readonly execTimeoutMs: number;
  /** The server's digests of unchanged files (MD5), shared by its connections. */
  readonly digests?: DigestCache;
  /** A classic-protocol session: refusals are logged as 3.21's server_classic.c logs them. */
  readonly classic?: boolean;
  /** The last path the ACL judged for this connection, and its decision. */
  lastDecision?: { readonly path: string; readonly decision: PathDecision };
}
