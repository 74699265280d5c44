/**
 * The agent's side of cf-serverd 3.21's classic protocol (version 1), as
 * libcfnet's IdentifyAgent and AuthenticateAgent speak it: plain TCP,
 * `CAUTH <ip> <name> <user> 0`, then `SAUTH` with a challenge, our public
 * key, the server's answers (its key verdict, the challenge's digest, its
 * counter-challenge and, asked for, its own key), our answer and the
 * session key sealed with the server's key. The commands are then the
 * TLS client's on the plain socket; with `encrypt` the S* variants, with
 * Blowfish under the session key.
 */
import { createHash, type KeyObject, randomBytes } from "node:crypto";
import { lookupService } from "node:dns/promises";
import { readdirSync } from "node:fs";
import { connect as tcpConnect, type Socket } from "node:net";
import { userInfo } from "node:os";
import { basename, dirname, join } from "node:path";
import { type ConnectOptions, DEFAULT_PORT, recordServer, ServerConnection } from "../client.js";
import { connectFrom } from "../bind-address.js";
import { NetError } from "../errors.js";
import { lastSeenKeyOf, mapAddress } from "../lastseen.js";
import { encodeFrame, FrameReader } from "../frame.js";
import { keyDigest, readTrustedKey, rsaComponents, sameKey, trustedKeyFile, trustKey } from "../keys.js";
import { fromMpi, publicKeyFromComponents, randomChallenge, rsaDecrypt, rsaEncrypt, toMpi } from "./rsa.js";
import {
  decryptWith,
  encryptedRequest,
  NONCE_BITS,
  RSA_PROTO_OFFSET,
  SESSION_KEY_SIZE,
  SGET_BLOCK,
} from "./session.js";

function connectTcp(
  host: string,
  port: number,
  timeoutMs: number,
  localAddress: string | undefined,
): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ host, port, ...(localAddress ? { localAddress } : {}) });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new NetError("timeout", `connect to ${host}:${port} timed out`));
    }, timeoutMs);
    socket.once("connect", () => {
      clearTimeout(timer);
      socket.setNoDelay(true);
      socket.removeAllListeners("error");
      socket.on("error", () => undefined);
      resolve(socket);
    });
    socket.once("error", (error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(new NetError("connect", error.message, { cause: error }));
    });
  });
}

function knownKeyFiles(ppkeys: string): Set<string> {
  try {
    return new Set(readdirSync(ppkeys));
  } catch {
    return new Set();
  }
}

function send(socket: Socket, payload: Buffer | string): Promise<void> {
  return new Promise((resolve, reject) =>
    socket.write(encodeFrame(payload), (error) => (error ? reject(error) : resolve())),
  );
}

/**
 * Our name as the server is to see it (3.21's IdentifyAgent): the bound
 * address's name by getnameinfo(3), so /etc/hosts counts as it does for
 * cf-agent, else the address itself; `domain` appended to a name with no
 * dot (not to "localhost" or an IPv6 address).
 */
async function localName(ip: string, domain: string | undefined): Promise<string> {
  let name: string;
  try {
    name = (await lookupService(ip, 0)).hostname || ip;
  } catch {
    name = ip;
  }
  if (domain && !name.includes(".") && !name.includes(":") && name !== "localhost") name += `.${domain}`;
  return name;
}

/** Connects with the classic protocol; the connection speaks the plain or the encrypted commands. */
export async function connectClassic(options: ConnectOptions): Promise<ServerConnection> {
  const port = options.port ?? DEFAULT_PORT;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const user = options.user ?? userInfo().username;
  const address = `${options.host}:${port}`;
  const log = options.logger;
  const socket = await connectFrom(options.localAddress, options.host, options.logger, (local) =>
    connectTcp(options.host, port, timeoutMs, local),
  );
  try {
    const reader = new FrameReader(socket, { timeoutMs });
    const next = async (what: string): Promise<Buffer> => {
      try {
        return (await reader.next(timeoutMs)).payload;
      } catch (error) {
        throw new NetError("closed", `Protocol transaction broken off (${what})`, { cause: error });
      }
    };
    // The keys known before the dialogue: a server sharing our ppkeys (one
    // work directory for both) stores our key during it, and that must not
    // make its key trusted (3.21 decides before SAUTH, test 16/006).
    const knownBefore = knownKeyFiles(options.ppkeys);
    const localIp = (socket.localAddress ?? "").replace(/^::ffff:(?=\d+\.)/, "");
    await send(socket, `CAUTH ${localIp} ${await localName(localIp, options.domain)} ${user} 0`);
    // Asking for the server's key always ('n'): its trust is checked below
    // by digest, the way the TLS client checks the certificate's key.
    const challenge = randomChallenge(NONCE_BITS);
    const head = Buffer.alloc(RSA_PROTO_OFFSET);
    head.write(`SAUTH n ${challenge.length} ${challenge.length} c`, "latin1");
    await send(socket, Buffer.concat([head, challenge]));
    const own = rsaComponents(options.keys.publicKey);
    await send(socket, toMpi(own.n));
    await send(socket, toMpi(own.e));
    const verdict = (await next("1")).toString("latin1").replace(/\0.*$/s, "");
    if (verdict.startsWith("BAD: ")) throw new NetError("refused", `Bad protocol reply: ${verdict}`);
    const digest = await next("2");
    if (!digest.subarray(0, 16).equals(createHash("md5").update(challenge).digest()))
      throw new NetError("untrusted", "Challenge response from server was incorrect!");
    const counter = rsaDecrypt(options.keys.privateKey, await next("3"));
    if (!counter) throw new NetError("protocol", "Private decrypt of the server's challenge failed");
    const n = fromMpi(await next("4"));
    const e = fromMpi(await next("5"));
    if (!n || !e) throw new NetError("protocol", "The server sent a malformed public key");
    const key: KeyObject = publicKeyFromComponents(n, e);
    const serverDigest = keyDigest(key);
    if (options.restrictKeys && !options.restrictKeys.includes(serverDigest))
      throw new NetError("untrusted", `Server key not in allowed keys, server presented: ${serverDigest}`);
    // As 3.21's HavePublicKeyByIP: the server's key is known by its address,
    // through lastseen (this host's own key for a loopback address), or as
    // an old-style <user>-<address>.pub; a key file by digest alone is not enough.
    const ip = mapAddress(socket.remoteAddress ?? "");
    const byAddress =
      lastSeenKeyOf(join(dirname(options.ppkeys), "state"), ip) ??
      (ip === "127.0.0.1" || ip === "::1" ? keyDigest(options.keys.publicKey) : undefined);
    const stored = readTrustedKey(options.ppkeys, user, byAddress ?? "", ip);
    const wasKnown = knownBefore.has(basename(trustedKeyFile(options.ppkeys, user, byAddress ?? ip)));
    if (stored && wasKnown && sameKey(stored, key)) {
      log?.verbose(`Server is TRUSTED, received key '${serverDigest}' MATCHES stored one.`);
    } else if (options.trustServer) {
      log?.notice(`Trusting new key: ${serverDigest}`);
      trustKey(options.ppkeys, user, key);
    } else {
      throw new NetError("untrusted", `TRUST FAILED, server presented untrusted key: ${serverDigest}`);
    }
    await send(socket, createHash("md5").update(counter).digest());
    const sessionKey = randomBytes(SESSION_KEY_SIZE);
    sessionKey[0] = (sessionKey[0] as number) | 1; // BN_bn2bin keeps no leading zero
    await send(socket, rsaEncrypt(key, sessionKey));
    if (options.lastSeen !== undefined)
      recordServer(options.lastSeen, serverDigest, socket.remoteAddress, log);
    const info = { digest: serverDigest, key, banner: "classic", version: "", protocol: 1, address };
    return options.encrypt
      ? new EncryptedClassicConnection(socket, reader, timeoutMs, log, info, sessionKey)
      : new ServerConnection(socket, reader, timeoutMs, log, info);
  } catch (error) {
    socket.destroy();
    throw error;
  }
}

/** The S* commands: SSYNCH, SMD5, SOPENDIR and SGET. */
class EncryptedClassicConnection extends ServerConnection {
  constructor(
    socket: Socket,
    reader: FrameReader,
    timeoutMs: number,
    log: ConnectOptions["logger"],
    info: ConstructorParameters<typeof ServerConnection>[4],
    private readonly sessionKey: Buffer,
  ) {
    super(socket, reader, timeoutMs, log, info);
  }

  /** SYNCH and MD5 go as SSYNCH and SMD5 (their replies are plain). */
  protected override async send(payload: string | Buffer): Promise<void> {
    const bytes = typeof payload === "string" ? Buffer.from(`${payload}\0`, "latin1") : payload;
    const word = /^(SYNCH|MD5|OPENDIR) /.exec(bytes.toString("latin1", 0, 8))?.[1];
    if (!word) return super.send(payload);
    return super.send(encryptedRequest(`S${word}`, this.sessionKey, bytes));
  }

  /** SOPENDIR: the listing's frames come encrypted. */
  override opendir(path: string): Promise<string[]> {
    return this.run(async () => {
      await this.send(`OPENDIR ${path}`);
      const names: string[] = [];
      for (;;) {
        const frame = await this.reply();
        const plain = decryptWith(this.sessionKey, frame.payload);
        if (!plain) throw new NetError("protocol", `listing of '${path}' does not decrypt`);
        const headText = plain.toString("latin1", 0, Math.max(0, plain.indexOf(0)));
        if (headText.startsWith("BAD: ")) throw new NetError("refused", headText);
        let offset = 0;
        while (offset < plain.length && plain[offset] !== 0) {
          const end = plain.indexOf(0, offset);
          const name = plain.subarray(offset, end < 0 ? plain.length : end).toString("utf8");
          if (name === "---cfXen/gine/cfXen/gine---") return names;
          names.push(name);
          offset = end < 0 ? plain.length : end + 1;
        }
        if (!frame.more) throw new NetError("protocol", `listing of '${path}' ended without its terminator`);
      }
    });
  }

  /** SGET: each block a frame, encrypted on its own; refusals plain. */
  override get(path: string, size: number, sink?: (chunk: Buffer) => void): Promise<Buffer | undefined> {
    return this.run(async () => {
      const parts: Buffer[] = [];
      const deliver = sink ?? ((chunk: Buffer) => parts.push(chunk));
      if (size <= 0) return sink ? undefined : Buffer.alloc(0);
      const request = Buffer.from(`GET dummykey ${path}\0`, "latin1");
      await super.send(encryptedRequest("SGET", this.sessionKey, request, ` ${SGET_BLOCK}`));
      let got = 0;
      for (;;) {
        const frame = await this.reply();
        const head = frame.payload.toString("latin1", 0, 64);
        if (head.startsWith("BAD: ")) throw new NetError("refused", head.replace(/\0.*$/s, ""));
        if (frame.payload.length > 0) {
          const plain = decryptWith(this.sessionKey, frame.payload);
          if (!plain) throw new NetError("protocol", `a block of '${path}' does not decrypt`);
          deliver(plain);
          got += plain.length;
        }
        if (!frame.more) break;
      }
      if (got !== size) throw new NetError("refused", `BAD: File changed while copying: ${path}`);
      return sink ? undefined : Buffer.concat(parts, got);
    });
  }
}
