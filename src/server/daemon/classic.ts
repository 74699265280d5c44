/**
 * cf-serverd 3.21's classic protocol (version 1), served to the hosts in
 * `allowlegacyconnects` (server.c refuses it to everyone else): plain TCP
 * with the same 8-byte framing as TLS, `CAUTH` naming the peer, `SAUTH`
 * starting the RSA challenge-response that proves both keys and carries
 * the Blowfish session key (server_classic.c `AuthenticationDialogue`),
 * then the commands. The plain ones (GET, OPENDIR, SYNCH, MD5, VERSION,
 * EXEC, ...) are the TLS handlers themselves; the encrypted ones (SGET,
 * SSYNCH, SOPENDIR, SMD5) are decrypted here and handed to the same
 * handlers, SOPENDIR's and SGET's replies encrypted on the way out.
 * Access is decided by the same policy; `ifencrypted` sees the request's
 * encryption as 3.21 reports it for each command.
 */
import { createHash, type KeyObject } from "node:crypto";
import { type Stats, statSync } from "node:fs";
import { open } from "node:fs/promises";
import type { Socket } from "node:net";
import { FrameReader, MAX_FRAME_PAYLOAD, encodeFrame } from "../../net/frame.js";
import {
  fromMpi,
  publicKeyFromComponents,
  randomChallenge,
  rsaComponents,
  rsaDecrypt,
  rsaEncrypt,
  toMpi,
} from "../../net/classic/index.js";
import {
  NONCE_BITS,
  PROTO_OFFSET,
  RSA_PROTO_OFFSET,
  SESSION_KEY_SIZE,
  SGET_BLOCK,
  decryptWith,
  encryptWith,
} from "../../net/classic/session.js";
import { type KeyPair, keyDigest, readTrustedKey, sameKey, trustKey } from "../../net/keys.js";
import type { LastSeenLog } from "../../net/lastseen.js";
import type { Logger } from "../../system/logger.js";
import type { ConnectionInfo, ServerPolicy } from "../policy/model.js";
import type { Channel, Session } from "./channel.js";
import { dispatch } from "./dispatch.js";
import type { DigestCache } from "./digests.js";
import { FAILED, REQUEST_DENIED } from "./protocol.js";
import { resolveRequestPath, withoutTrailingSlash } from "./request-path.js";
import { userId } from "./users.js";

export interface ClassicContext {
  readonly policy: ServerPolicy;
  readonly keys: KeyPair;
  readonly ppkeys: string;
  readonly statedir: string;
  readonly dialogMs: number;
  readonly idleMs: number;
  readonly execMs: number;
  readonly log: Logger;
  readonly now?: () => number;
  readonly digests?: DigestCache;
  /** Where authenticated peers are recorded (the lastseen database). */
  readonly lastSeen?: LastSeenLog;
}

/** Plain framed writes on the TCP socket. */
function plainChannel(socket: Socket, reader: FrameReader, idleMs: number): Channel {
  const write = (bytes: Buffer): Promise<void> =>
    new Promise((resolve, reject) => socket.write(bytes, (error) => (error ? reject(error) : resolve())));
  const frame = (p: string | Buffer, more = false): Buffer =>
    encodeFrame((typeof p === "string" ? Buffer.from(p) : p).subarray(0, MAX_FRAME_PAYLOAD), more);
  return {
    send: (payload, more = false) => write(frame(payload, more)),
    sendFrames: (payloads) => write(Buffer.concat(payloads.map((p) => frame(p)))),
    sendRaw: (bytes) => write(bytes),
    sendData: (bytes) => write(bytes),
    receive: () => reader.next(idleMs),
  };
}

/** SOPENDIR's replies: each frame's payload encrypted (strings with their NUL, as EncryptString gets them). */
function encryptingChannel(inner: Channel, key: Buffer): Channel {
  const seal = (p: string | Buffer): Buffer =>
    encryptWith(key, typeof p === "string" ? Buffer.from(`${p}\0`) : p);
  return {
    send: (payload, more = false) => inner.send(seal(payload), more),
    sendFrames: (payloads) => inner.sendFrames(payloads.map(seal)),
    sendRaw: (bytes) => inner.sendRaw(bytes),
    sendData: (bytes) => inner.sendData(bytes),
    receive: () => inner.receive(),
  };
}

interface Identity {
  hostname: string;
  user: string;
}

/** Serves a classic connection whose first bytes are waiting in the socket; resolves when it ends. */
export async function serveClassic(socket: Socket, ip: string, context: ClassicContext): Promise<void> {
  const { log } = context;
  const reader = new FrameReader(socket, {
    timeoutMs: context.dialogMs,
    highWater: 2 * (MAX_FRAME_PAYLOAD + 8),
  });
  const plain = plainChannel(socket, reader, context.idleMs);
  socket.resume();
  let identity: Identity | undefined;
  let auth: { session: Session; key: Buffer } | undefined;
  for (;;) {
    let payload: Buffer;
    try {
      payload = (await reader.next(auth ? context.idleMs : context.dialogMs)).payload;
    } catch (error) {
      log.verbose(`Classic connection ended: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    const nul = payload.indexOf(0);
    const text = payload.toString("latin1", 0, nul < 0 ? payload.length : nul);
    if (text.length === 0) {
      log.warning("Got NULL transmission, skipping!");
      continue;
    }
    const word = text.split(" ", 1)[0] ?? "";
    if (word === "CAUTH") {
      const [, , fqname = "", user = ""] = text.split(/\s+/);
      identity = { hostname: fqname.toLowerCase(), user };
      if (!/^[A-Za-z0-9_.$@\\-]+$/.test(user)) {
        log.info(`Client is sending wrong username: ${user}`);
        await plain.send(FAILED);
        return;
      }
      continue;
    }
    if (word === "SAUTH") {
      if (!identity) {
        log.info("Client is not verified; rejecting connection");
        await plain.send(FAILED);
        return;
      }
      const result = await authenticate(payload, text, identity, ip, plain, reader, context);
      if (!result) {
        log.info("Auth dialogue error");
        await plain.send(FAILED)?.catch(() => {});
        return;
      }
      auth = result;
      continue;
    }
    if (!auth) {
      log.info(`REFUSAL due to no RSA authentication (command: ${word})`);
      await plain.send(FAILED);
      return;
    }
    if (!(await classicRequest(auth.session, auth.key, word, text, payload, context))) return;
  }
}

/** The SAUTH dialogue; the session and its key, or undefined when it fails. */
async function authenticate(
  payload: Buffer,
  text: string,
  identity: Identity,
  ip: string,
  channel: Channel,
  reader: FrameReader,
  context: ClassicContext,
): Promise<{ session: Session; key: Buffer } | undefined> {
  const { log, keys } = context;
  const fields = /^SAUTH\s+(\S)\s+(\d+)\s+(\d+)(?:\s+(\S))?/.exec(text);
  if (!fields) {
    log.error("Authentication failure: peer sent a malformed SAUTH command");
    return undefined;
  }
  const crypted = fields[1] === "y";
  const cryptLen = Number(fields[2]);
  const challengeLen = Number(fields[3]);
  if (cryptLen === 0 || challengeLen === 0 || cryptLen > 512 || challengeLen > 512) {
    log.error(`Authentication failure: received unexpected challenge length (${challengeLen}, ${cryptLen})`);
    return undefined;
  }
  const sent = payload.subarray(RSA_PROTO_OFFSET, RSA_PROTO_OFFSET + cryptLen);
  let challenge: Buffer | undefined;
  if (crypted) {
    challenge = rsaDecrypt(keys.privateKey, sent);
    if (!challenge || challenge.length !== challengeLen) {
      log.error("Authentication failure: private decrypt of received challenge failed");
      log.error("Probably the client has wrong public key for this server");
      return undefined;
    }
  } else {
    if (challengeLen !== cryptLen || sent.length < challengeLen) {
      log.error("Authentication failure: peer sent illegal challenge");
      return undefined;
    }
    challenge = sent;
  }
  const challengeDigest = createHash("md5").update(challenge).digest();
  const n = fromMpi((await reader.next()).payload);
  const e = fromMpi((await reader.next()).payload);
  if (!n || !e || n.length === 0 || e.length === 0) {
    log.error("Authentication failure: bad public key from the peer");
    return undefined;
  }
  let peerKey: KeyObject;
  try {
    peerKey = publicKeyFromComponents(n, e);
  } catch {
    log.error("Authentication failure: bad public key from the peer");
    return undefined;
  }
  const digest = keyDigest(peerKey);
  log.verbose(`Peer's identity is: ${digest}`);
  if (!(await checkStoreKey(peerKey, digest, identity, ip, channel, context))) return undefined;
  await channel.send(challengeDigest);
  const counter = randomChallenge(NONCE_BITS);
  const counterDigest = createHash("md5").update(counter).digest();
  await channel.send(rsaEncrypt(peerKey, counter));
  if (!crypted) {
    const own = rsaComponents(keys.publicKey);
    await channel.send(toMpi(own.n));
    await channel.send(toMpi(own.e));
  }
  const response = (await reader.next()).payload;
  if (response.length < 16 || !response.subarray(0, 16).equals(counterDigest)) {
    log.error("Authentication failure: counter-challenge response was incorrect");
    return undefined;
  }
  log.verbose(`Authentication of client ${identity.hostname}/${ip} achieved`);
  context.lastSeen?.saw("incoming", digest, ip);
  const sealed = (await reader.next()).payload;
  const sessionKey =
    sealed.length === SESSION_KEY_SIZE ? Buffer.from(sealed) : rsaDecrypt(keys.privateKey, sealed);
  if (!sessionKey || sessionKey.length !== SESSION_KEY_SIZE) {
    log.error("Authentication failure: private decrypt of session key failed");
    return undefined;
  }
  const peer: ConnectionInfo = {
    ip,
    hostname: identity.hostname,
    keyDigest: digest,
    user: identity.user,
    encrypted: false,
  };
  const session: Session = {
    channel,
    peer,
    uid: userId(identity.user),
    policy: context.policy,
    log,
    statedir: context.statedir,
    execTimeoutMs: context.execMs,
    classic: true,
    ...(context.digests ? { digests: context.digests } : {}),
  };
  return { session, key: sessionKey };
}

/** CheckStoreKey: the stored key, else trust from `trustkeysfrom`, else refusal. */
async function checkStoreKey(
  key: KeyObject,
  digest: string,
  identity: Identity,
  ip: string,
  channel: Channel,
  context: ClassicContext,
): Promise<boolean> {
  const { log } = context;
  let stored: KeyObject | undefined;
  try {
    stored = readTrustedKey(context.ppkeys, identity.user, digest, ip);
  } catch {
    stored = undefined;
  }
  if (stored && sameKey(stored, key)) {
    log.verbose(`The public key identity was confirmed as ${identity.user}@${identity.hostname}`);
    await channel.send("OK: key accepted");
    return true;
  }
  if (context.policy.trustsKeysFrom(ip)) {
    log.verbose(`Host ${identity.hostname}/${ip} was found in the list of hosts to trust`);
    await channel.send("OK: unknown key was accepted on trust");
    trustKey(context.ppkeys, identity.user, key);
    return true;
  }
  log.verbose("No previous key found, and unable to accept this one on trust");
  await channel.send("BAD: key could not be accepted on trust");
  return false;
}

/** The session with `ifencrypted` answered as 3.21 answers it for this command. */
function withEncryption(session: Session, encrypted: boolean): Session {
  return { ...session, peer: { ...session.peer, encrypted } };
}

/** One request after authentication; false when the connection is to be closed. */
async function classicRequest(
  session: Session,
  key: Buffer,
  word: string,
  text: string,
  payload: Buffer,
  context: ClassicContext,
): Promise<boolean> {
  const now = context.now;
  switch (word) {
    case "GET":
    case "OPENDIR":
    case "MD5":
    case "VERSION":
    case "EXEC":
    case "VAR":
    case "CONTEXT":
      return dispatch(withEncryption(session, false), payload, now);
    case "SYNCH":
      // 3.21 checks the plain SYNCH as if it were encrypted.
      return dispatch(withEncryption(session, true), payload, now);
    case "SSYNCH":
    case "SMD5":
    case "SOPENDIR":
    case "SVAR":
    case "SCONTEXT": {
      const plainText = decryptRequest(session, key, text, payload);
      const inner = word.slice(1);
      if (!plainText?.toString("latin1").startsWith(inner)) {
        session.log.info(`${inner} protocol error: the request does not decrypt`);
        await session.channel.send(FAILED);
        return word === "SSYNCH";
      }
      const channel = word === "SOPENDIR" ? encryptingChannel(session.channel, key) : session.channel;
      return dispatch({ ...withEncryption(session, true), channel }, plainText, now);
    }
    case "SGET":
      return secureGet(session, key, text, payload);
    default:
      session.log.warning("Unexpected protocol command");
      await session.channel.send(REQUEST_DENIED);
      session.log.info(`Closing connection due to request: ${text}`);
      return false;
  }
}

/** `S<WORD> <len>` then the cipher text at PROTO_OFFSET: the plain request, or undefined. */
function decryptRequest(session: Session, key: Buffer, text: string, payload: Buffer): Buffer | undefined {
  const length = Number(/^\S+\s+(\d+)/.exec(text)?.[1] ?? Number.NaN);
  if (!Number.isInteger(length) || length <= 0 || payload.length !== length + PROTO_OFFSET) {
    session.log.info(`Protocol error ${text.split(" ", 1)[0]}: ${length}`);
    return undefined;
  }
  return decryptWith(key, payload.subarray(PROTO_OFFSET));
}

/**
 * SGET: "GET dummykey <path>" decrypted, the path's access checked as
 * GET's, then the file in blocks of SGET_BLOCK bytes, each encrypted on
 * its own and framed (marked "more" but the last). The refusals and the
 * changed-file abort are plain frames, as 3.21 sends them.
 */
async function secureGet(session: Session, key: Buffer, text: string, payload: Buffer): Promise<boolean> {
  const fields = /^SGET\s+(\d+)\s+(-?\d+)/.exec(text);
  const plain = fields ? decryptRequest(session, key, text, payload) : undefined;
  const request = plain?.toString("latin1", 0, plain.indexOf(0) < 0 ? plain.length : plain.indexOf(0));
  if (!request || !fields) {
    session.log.info("Protocol error SGET");
    await session.channel.send(FAILED);
    return false;
  }
  if (!request.startsWith("GET ")) {
    session.log.info("SGET/GET problem");
    await session.channel.send(FAILED);
    return true;
  }
  const path = request.slice("GET dummykey ".length);
  const probe = accessForGet(session, path);
  if (probe.refused) {
    await session.channel.send(FAILED);
    return false;
  }
  const channel = session.channel;
  let file: Awaited<ReturnType<typeof open>>;
  try {
    file = await open(probe.path, "r");
  } catch {
    await channel.send(FAILED);
    return true;
  }
  try {
    const size = (await file.stat()).size;
    if (size === 0) {
      await channel.send(Buffer.alloc(0));
      return true;
    }
    let sent = 0;
    while (sent < size) {
      const block = Buffer.alloc(Math.min(SGET_BLOCK, size - sent));
      const { bytesRead } = await file.read(block, 0, block.length, sent);
      if (bytesRead < block.length) {
        await channel.send(`BAD: File changed while copying: ${probe.path}`);
        return true;
      }
      sent += block.length;
      await channel.send(encryptWith(key, block), sent < size);
    }
  } finally {
    await file.close();
  }
  return true;
}

/** GET's path checks for SGET: shortcut, realpath, the ACL (encrypted), transfer rights. */
function accessForGet(session: Session, requested: string): { refused: boolean; path: string } {
  const { policy, log } = session;
  const peer = { ...session.peer, encrypted: true };
  const resolved = resolveRequestPath(policy.expandShortcut(requested, peer), log);
  if (resolved === undefined) return { refused: true, path: requested };
  const path = withoutTrailingSlash(resolved);
  const decision = policy.checkPath(path, peer);
  if (!decision.admitted) {
    log.info(`Host ${peer.hostname ?? ""} denied access to ${path}`);
    log.info("Access control error");
    return { refused: true, path };
  }
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch {
    return { refused: false, path };
  }
  const { uid } = session;
  if (uid === 0 || decision.mapRoot || stats.uid === uid || stats.mode & 0o004)
    return { refused: false, path };
  log.info(`REFUSE access to file: ${path}`);
  return { refused: true, path };
}
