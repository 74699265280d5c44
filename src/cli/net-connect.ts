/**
 * `tend net`'s connections: one authenticated connection per command and
 * host (the server's key trusted on first use, as cf-net does), and the
 * two stress commands, `multi` (plain TCP connections held open until
 * the server refuses one) and `multitls` (handshakes until one fails).
 */
import { connect as tcpConnect, type Socket } from "node:net";
import { dirname, join } from "node:path";
import { type RemoteStat, ServerConnection } from "../net/client.js";
import { isNetError } from "../net/errors.js";
import type { KeyPair } from "../net/keys.js";
import type { Logger } from "../system/logger.js";
import type { CliIo } from "./io.js";
import { errorText, loadKeyPair, parseHostPort } from "./remote.js";

/** cf-net's connection timeout, seconds. */
const TIMEOUT_SECONDS = 30;

/** What each command needs to connect and to print. */
export interface NetSession {
  readonly io: CliIo;
  readonly log: Logger;
  readonly ppkeys: string;
  keys: KeyPair | undefined;
  keysLoaded: boolean;
  readonly minTlsVersion?: string;
  readonly ciphers?: string;
  /** The protocol asked (`-P`): classic, or the TLS version 2 or 3 (default). */
  readonly protocol?: "classic" | 2 | 3;
  /** Under classic: the encrypted commands. */
  readonly encrypt?: boolean;
}

/** The key pair, read once (cf-net reports a missing one at every connection). */
export function sessionKeys(session: NetSession): KeyPair | undefined {
  if (!session.keysLoaded || !session.keys) {
    session.keys = loadKeyPair(session.ppkeys, session.log);
    session.keysLoaded = true;
  }
  return session.keys;
}

/** A usage mistake in a command's arguments, as cf-net reports it. */
export function invalidCommand(session: NetSession, name: string): void {
  session.log.error(`Invalid, see: 'tend net help ${name}' for more info`);
}

/**
 * `SYNCH … STAT`: the file's attributes, or undefined after logging the
 * refusal as 3.21's ProtocolStat does (`server` is the host without port).
 */
export async function remoteStat(
  session: NetSession,
  conn: ServerConnection,
  server: string,
  path: string,
): Promise<RemoteStat | undefined> {
  try {
    return await conn.stat(path);
  } catch (error) {
    if (isNetError(error, "refused"))
      session.log.warning(`Could not stat remote file ${server}:${path}, response: ${error.message}`);
    else session.log.warning(`Receiving file statistics from ${server} failed! (${errorText(error)})`);
    return undefined;
  }
}

/** The host of a `host[:port]` entry, as 3.21 names the server in its messages. */
export function serverName(entry: string): string {
  const bracketed = /^\[([^\]]+)\]/.exec(entry);
  if (bracketed) return bracketed[1];
  return entry.split(":").length === 2 ? entry.split(":")[0] : entry;
}

/**
 * An authenticated connection to `entry` (`host[:port]`), or undefined
 * after printing cf-net's "Failed to connect to '…'".
 */
export async function connectTo(session: NetSession, entry: string): Promise<ServerConnection | undefined> {
  const keys = sessionKeys(session);
  const target = parseHostPort(entry);
  if (!keys || !target) {
    if (!target) session.log.error(`Invalid host or port in '${entry}'`);
    session.io.stdout(`Failed to connect to '${entry}'\n`);
    return undefined;
  }
  session.log.verbose(`Connecting to host ${target.host}, port ${target.port}`);
  try {
    const options = {
      host: target.host,
      port: target.port,
      keys,
      ppkeys: session.ppkeys,
      trustServer: true,
      timeoutMs: TIMEOUT_SECONDS * 1000,
      logger: session.log,
    };
    if (session.protocol === "classic") {
      const { connectClassic } = await import("../net/classic/client.js");
      // 3.21's classic client records every server it authenticates (AuthenticateAgent), off the record or not;
      // and finds a server's key by its address there.
      const lastSeen = join(dirname(session.ppkeys), "state");
      return await connectClassic({ ...options, classic: true, encrypt: session.encrypt === true, lastSeen });
    }
    return await ServerConnection.connect({
      ...options,
      minTlsVersion: session.minTlsVersion,
      ciphers: session.ciphers,
      protocolVersion: session.protocol ?? 3,
    });
  } catch (error) {
    session.log.verbose(errorText(error));
    session.io.stdout(`Failed to connect to '${entry}'\n`);
    return undefined;
  }
}

function openSocket(host: string, port: number): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host, port, timeout: TIMEOUT_SECONDS * 1000 });
    const fail = () => {
      socket.destroy();
      resolve(undefined);
    };
    socket.once("connect", () => {
      socket.setTimeout(0);
      socket.removeListener("error", fail);
      socket.on("error", () => undefined);
      resolve(socket);
    });
    socket.once("error", fail);
    socket.once("timeout", fail);
  });
}

function elapsedSeconds(start: number): string {
  return Math.round((Date.now() - start) / 1000).toFixed(0);
}

/**
 * `multi`: opens TCP connections (no handshake) and keeps them open until
 * one fails, then reports how many it took and closes them all. cf-net
 * 3.21 loops for ever instead (its loop waits for a descriptor numbered 1).
 */
export async function runMulti(session: NetSession, entry: string): Promise<void> {
  const start = Date.now();
  session.io.stdout(`Connecting repeatedly to '${entry}' without handshakes\n`);
  const target = parseHostPort(entry);
  const open: Socket[] = [];
  let attempts = 0;
  try {
    for (;;) {
      attempts += 1;
      const socket = target ? await openSocket(target.host, target.port) : undefined;
      if (!socket) break;
      open.push(socket);
    }
  } finally {
    for (const socket of open) socket.destroy();
  }
  session.io.stdout(`Server unavailable after ${attempts} attempts\n`);
  session.io.stdout(`'${entry}' unavailable after ${elapsedSeconds(start)} seconds (${attempts} attempts)\n`);
}

/** `multitls`: authenticated connections one after another until one fails; then `multi`. */
export async function runMultiTls(session: NetSession, entry: string): Promise<void> {
  const start = Date.now();
  session.io.stdout(`Multiple handshakes to '${entry}'\n`);
  let attempts = 0;
  for (;;) {
    attempts += 1;
    const conn = await connectTo(session, entry);
    if (!conn) break;
    conn.close();
  }
  session.io.stdout(`'${entry}' unavailable after ${elapsedSeconds(start)} seconds (${attempts} attempts)\n`);
  await runMulti(session, entry);
}
