/**
 * One accepted connection, from the first byte to the close, as a
 * cf-serverd 3.21 connection thread lives it (server.c `HandleConnection`,
 * server_tls.c `ServerTLSSessionEstablish`): the peek that tells the
 * classic protocol (served to `allowlegacyconnects`, classic.ts) from TLS, the handshake with the server's
 * key, the version and identity dialog, trust in the client's key (or
 * `trustkeysfrom`), the welcome, then one request after another.
 *
 * Beyond 3.21, every step is bounded: the dialog in time, each wait for a
 * request by the idle timeout, each reply by the write timeout, the bytes
 * held per connection by the frame reader. Any failure closes this
 * connection only, and nothing escapes as an unhandled rejection.
 */
import { lookupService } from "node:dns/promises";
import type { Socket } from "node:net";
import tls from "node:tls";
import { isNetError, NetError } from "../../net/errors.js";
import { FrameReader, MAX_FRAME_PAYLOAD, serverFrame, serverFrames } from "../../net/frame.js";
import { type KeyPair, readTrustedKey, sameKey, trustKey } from "../../net/keys.js";
import type { LastSeenLog } from "../../net/lastseen.js";
import { type PeerIdentity, peekConnectionStart, sendWelcome, serverDialog } from "../../net/server-side.js";
import { Logger } from "../../system/logger.js";
import type { ConnectionInfo, ServerPolicy } from "../policy/model.js";
import type { Channel, Sent, Session } from "./channel.js";
import { serveClassic } from "./classic.js";
import { SERVER_VERSION, dispatch } from "./dispatch.js";
import type { DigestCache } from "./digests.js";
import type { TrustedKeyCache } from "./trusted-keys.js";
import { userId } from "./users.js";

/** Time limits of one connection, in ms. */
export interface ConnectionLimits {
  /** From accept to the welcome: peek, TLS handshake, dialog. */
  readonly dialogMs: number;
  /** Waiting for the next request (3.21: 600 s receive timeout). */
  readonly idleMs: number;
  /** One reply (frame or GET block) handed to the client. */
  readonly writeMs: number;
  /** How long cfruncommand may run (EXEC). */
  readonly execMs: number;
}

export const DEFAULT_LIMITS: ConnectionLimits = {
  dialogMs: 30_000,
  idleMs: 600_000,
  writeMs: 600_000,
  execMs: 3_600_000,
};

/** What the connection needs from the server around it. */
export interface ConnectionContext {
  readonly policy: ServerPolicy;
  readonly secureContext: tls.SecureContext;
  readonly ppkeys: string;
  readonly statedir: string;
  readonly limits: ConnectionLimits;
  readonly log: Logger;
  readonly now?: () => number;
  /** The server's digests of unchanged files. */
  readonly digests?: DigestCache;
  /** The server's key pair: the classic protocol's dialog needs it. */
  readonly keys?: KeyPair;
  /** Where trusted peers are recorded (the lastseen database). */
  readonly lastSeen?: LastSeenLog;
  /** The clients' keys as last read from `ppkeys`. */
  readonly trustedKeys?: TrustedKeyCache;
}

/** "127.0.0.1>       ": cf-serverd's per-connection log prefix, padded for IPv4 alignment. */
export function connectionPrefix(ip: string): string {
  return `${ip}> `.padEnd(17);
}

/** A logger writing through `log` with the peer's prefix. */
function prefixedLogger(log: Logger, ip: string): Logger {
  const prefix = connectionPrefix(ip);
  return new Logger((record) => log.log(record.level, `${prefix}${record.message}`), log.level);
}

/** Serves one connection until it ends; never rejects. */
export async function serveConnection(socket: Socket, ip: string, context: ConnectionContext): Promise<void> {
  const log = prefixedLogger(context.log, ip);
  log.info("Accepting connection");
  let secure: tls.TLSSocket | undefined;
  try {
    socket.setNoDelay(true);
    log.verbose(`Setting socket timeout to ${Math.round(context.limits.idleMs / 1000)} seconds.`);
    const start = await peekConnectionStart(socket, context.limits.dialogMs);
    if (start === "classic") {
      if (!context.keys || !context.policy.allowsLegacyConnect(ip)) {
        log.info("Connection is not using latest protocol, denying");
        return;
      }
      await serveClassic(socket, ip, { ...context, keys: context.keys, ...context.limits, log });
      log.info("Closing connection, terminating thread");
      return;
    }
    log.verbose("Peeked nothing important in TCP stream, considering the protocol as TLS");
    secure = await handshake(socket, context, log);
    const session = await establish(secure, ip, context, log);
    if (!session) return;
    await serveRequests(session.session, session.reader, context.limits.idleMs, context.now);
    log.info("Closing connection, terminating thread");
  } catch (error) {
    logFailure(log, error);
  } finally {
    secure?.destroy();
    socket.destroy();
  }
}

function logFailure(log: Logger, error: unknown): void {
  if (isNetError(error, "closed")) log.verbose(error.message);
  else if (isNetError(error)) log.notice(error.message);
  else log.error(`Connection failed: ${error instanceof Error ? error.message : String(error)}`);
  log.info("Closing connection, terminating thread");
}

/** The TLS handshake on the accepted socket, bounded by the dialog limit. */
function handshake(socket: Socket, context: ConnectionContext, log: Logger): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const secure = new tls.TLSSocket(socket, {
      isServer: true,
      secureContext: context.secureContext,
      requestCert: true,
      rejectUnauthorized: false,
    });
    const timer = setTimeout(() => {
      secure.destroy();
      reject(new Error("Failed to accept TLS connection: timed out"));
    }, context.limits.dialogMs);
    secure.once("secure", () => {
      clearTimeout(timer);
      const cipher = secure.getCipher();
      log.verbose(
        `TLS version negotiated: ${(secure.getProtocol() ?? "").padStart(8)}; Cipher: ${cipher.name},${cipher.version}`,
      );
      resolve(secure);
    });
    secure.once("error", (error) => {
      clearTimeout(timer);
      reject(new Error(`Failed to accept TLS connection: ${error.message}`));
    });
    // A peer that hangs up mid-handshake gives no error: without this its
    // slot stayed taken until the dialog timeout (found by the fuzzer).
    secure.once("close", () => {
      clearTimeout(timer);
      reject(
        new NetError("closed", "Failed to accept TLS connection: the peer closed it during the handshake"),
      );
    });
  });
}

/** Dialog, trust and welcome; the session, or undefined when the client is not trusted. */
async function establish(
  secure: tls.TLSSocket,
  ip: string,
  context: ConnectionContext,
  log: Logger,
): Promise<{ session: Session; reader: FrameReader } | undefined> {
  log.verbose("TLS session established, checking trust...");
  secure.on("error", () => {});
  const reader = new FrameReader(secure, {
    timeoutMs: context.limits.dialogMs,
    highWater: 2 * (MAX_FRAME_PAYLOAD + 8),
  });
  const identity = await serverDialog(secure, {
    version: SERVER_VERSION,
    timeoutMs: context.limits.dialogMs,
    reader,
    welcomeAhead: (digest) => welcomed(context, digest, ip),
  });
  log.verbose(`Setting IDENTITY: USERNAME=${identity.user}`);
  const { policy } = context;
  const stored = storedKey(context, identity.user, identity.digest, ip);
  if (stored && sameKey(stored, identity.publicKey)) {
    log.verbose(`${identity.digest}: Client is TRUSTED, public key MATCHES stored one.`);
  } else if (!trustNewKey(identity, ip, context, log)) {
    return undefined;
  }
  context.lastSeen?.saw("incoming", identity.digest, ip);
  await sendWelcome(secure, identity);
  // After the welcome, as cf-serverd: the client sends its first request meanwhile.
  const hostname = policy.needReverseLookup ? await reverseName(ip, context.limits.dialogMs, log) : undefined;
  const peer: ConnectionInfo = {
    ip,
    hostname,
    keyDigest: identity.digest,
    user: identity.user,
    encrypted: true,
  };
  const session: Session = {
    channel: channel(secure, reader, context.limits),
    peer,
    uid: userId(identity.user),
    policy,
    log,
    statedir: context.statedir,
    execTimeoutMs: context.limits.execMs,
    ...(context.digests ? { digests: context.digests } : {}),
  };
  return { session, reader };
}

/**
 * Whether a client with this key will be welcomed, known before its
 * IDENTITY line: when keys from its address are trusted, or when its key
 * is stored for root (agents run as root; a client claiming another user
 * is not foreseen, and its welcome waits for its IDENTITY). Its one miss:
 * a client whose key is trusted for root, claiming a user for whom it is
 * not, is refused after the first bytes of the welcome.
 */
function welcomed(context: ConnectionContext, digest: string, ip: string): boolean {
  if (context.policy.trustsKeysFrom(ip)) return true;
  // No address given: an old-style key file (root-<ip>.pub) is not renamed on a guess.
  return storedKey(context, "root", digest, undefined) !== undefined;
}

/** An unknown key: trusted and saved when the peer is in `trustkeysfrom`, else refused. */
function trustNewKey(identity: PeerIdentity, ip: string, context: ConnectionContext, log: Logger): boolean {
  log.verbose(`Received key '${identity.digest}' not found in ppkeys`);
  if (!context.policy.trustsKeysFrom(ip)) {
    log.notice("TRUST FAILED, peer presented an untrusted key, dropping connection!");
    log.verbose('Add peer to "trustkeysfrom" if you really want to start trusting this new key.');
    return false;
  }
  log.verbose('Peer was found in "trustkeysfrom" list');
  log.notice(`Trusting new key: ${identity.digest}`);
  trustKey(context.ppkeys, identity.user, identity.publicKey);
  return true;
}

function storedKey(context: ConnectionContext, user: string, digest: string, ip: string | undefined) {
  try {
    return context.trustedKeys
      ? context.trustedKeys.read(context.ppkeys, user, digest, ip)
      : readTrustedKey(context.ppkeys, user, digest, ip);
  } catch {
    return undefined;
  }
}

/**
 * The peer's name (NEED_REVERSE_LOOKUP), bounded in time: getnameinfo(3)
 * with NI_NAMEREQD, as cf-serverd asks it (Node's lookupService), so
 * /etc/hosts and the rest of nsswitch.conf count as they do for 3.21.
 * dns.reverse is not used: c-ares asks DNS for the PTR record and would
 * name peers differently from cf-serverd. No name is "" in the access
 * rules (no hostname rule matches), as 3.21's empty revdns.
 */
async function reverseName(ip: string, timeoutMs: number, log: Logger): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  try {
    const found = await Promise.race([lookupService(ip, 0), timeout]);
    if (found === "timeout") {
      log.info(`Reverse lookup failed (getnameinfo: ${GAI_ERRORS.EAI_AGAIN})!`);
      return undefined;
    }
    log.info(`Hostname (reverse looked up): ${found.hostname}`);
    return found.hostname;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    const text = GAI_ERRORS[code] ?? (error instanceof Error ? error.message : String(error));
    log.info(`Reverse lookup failed (getnameinfo: ${text})!`);
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/** glibc's gai_strerror texts, by the codes Node gives getnameinfo's failures. */
const GAI_ERRORS: Readonly<Record<string, string>> = {
  ENOTFOUND: "Name or service not known",
  EAI_NONAME: "Name or service not known",
  EAI_AGAIN: "Temporary failure in name resolution",
  EAI_FAIL: "Non-recoverable failure in name resolution",
  EAI_MEMORY: "Memory allocation failure",
  EAI_SYSTEM: "System error",
  EAI_OVERFLOW: "Result too large for supplied buffer",
};

/**
 * Frames and raw bytes on the TLS socket, each write its own records,
 * bounded by the write limit.
 *
 * A write made while nothing is queued goes to TLS at once: it is
 * encrypted and handed to the kernel within `write()`, as records of its
 * own. Node reports it written only on the next turn of the event loop
 * (TLS completes writes from an immediate), and a reply does not wait for
 * that: most replies are one write, and waiting cost every request a turn
 * of the loop (a cold copy of the MPF is ~500 requests in a row). A write
 * made while an earlier one is still queued would be merged with it into
 * one record by Node's writev, so it waits until it is written itself.
 */
function channel(secure: tls.TLSSocket, reader: FrameReader, limits: ConnectionLimits): Channel {
  const bounded = (wait: (done: (error?: Error | null) => void) => void): Promise<void> =>
    new Promise((resolve, reject) => {
      let settled = false;
      const finish = (error?: Error | null): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) reject(error);
        else resolve();
      };
      const timer = setTimeout(() => {
        secure.destroy();
        finish(new Error("the client stopped reading"));
      }, limits.writeMs);
      wait(finish);
    });
  const write = (bytes: Buffer): Sent => {
    if (secure.writableLength === 0 && !secure.destroyed) {
      secure.write(bytes);
      return undefined;
    }
    return bounded((done) => secure.write(bytes, done));
  };
  const data = (bytes: Buffer): Sent => {
    if (secure.write(bytes) || secure.destroyed) return undefined;
    return bounded((done) => {
      const finish = (error?: Error | null): void => {
        secure.off("drain", onDrain);
        secure.off("close", onClose);
        done(error);
      };
      const onDrain = (): void => finish();
      const onClose = (): void => finish(new Error("the connection closed"));
      secure.once("drain", onDrain);
      secure.once("close", onClose);
    });
  };
  return {
    send: (payload, more = false) => write(serverFrame(payload, more)),
    sendFrames: (payloads) => write(serverFrames(payloads)),
    sendRaw: (bytes) => write(bytes),
    sendData: data,
    receive: () => reader.next(limits.idleMs),
  };
}

/** Requests until the client closes, a request closes the connection, or the client idles too long. */
async function serveRequests(
  session: Session,
  reader: FrameReader,
  idleMs: number,
  now: (() => number) | undefined,
): Promise<void> {
  for (;;) {
    let frame: { payload: Buffer };
    try {
      frame = await reader.next(idleMs);
    } catch (error) {
      if (isNetError(error, "closed")) {
        session.log.verbose("Remote peer terminated TLS session (SSL_read)");
        return;
      }
      throw error;
    }
    // Most requests are answered at once: no promise to wait for.
    const keep = dispatch(session, frame.payload, now);
    if (!(typeof keep === "boolean" ? keep : await keep)) return;
  }
}
