/**
 * The client half of cfnet as 3.21 speaks it (libcfnet client_code.c,
 * tls_client.c, protocol.c, stat_cache.c): one TLS connection to a
 * cf-serverd, trust decided on the server's key after the handshake, the
 * version and identity dialog, then one request at a time.
 *
 * Every operation is bounded in time (`timeoutMs`, 30 s by default as
 * cf-agent's `timeout`); a timeout, a malformed reply or the connection
 * ending leaves the connection unusable (later calls fail with "closed").
 * A server's refusal is a NetError "refused" with the server's own line.
 */
import { createPublicKey, type KeyObject } from "node:crypto";
import type { Socket } from "node:net";
import { userInfo } from "node:os";
import tls from "node:tls";
import type { Logger } from "../system/logger.js";
import { connectFrom } from "./bind-address.js";
import { selfSignedCertificate } from "./certificate.js";
import { NetError } from "./errors.js";
import {
  CF_FAILEDSTR,
  CFD_FALSE,
  CFD_TERMINATOR,
  CFD_TRUE,
  encodeFrame,
  type Frame,
  FrameReader,
  MAX_FRAME_PAYLOAD,
  printable,
} from "./frame.js";
import { noteLastSeen } from "./lastseen.js";
import { tlsSettings } from "./tls-settings.js";
import { type KeyPair, keyDigest, privateKeyPem, readTrustedKey, sameKey, trustKey } from "./keys.js";

export const DEFAULT_PORT = 5308;
/** The protocol 3.21 speaks: 3 ("cookie"; 2 "tls" is the same but COOKIE). */
export const PROTOCOL_LATEST = 3;
/** The version this implementation announces (it speaks 3.21's protocol). */
export const CLIENT_VERSION = "3.21.0";
/** What the agent asks per GET block (3.21's cf-agent asks 2048; the server reads 2048 per block). */
export const GET_BLOCK = 2048;
const CHANGED = "BAD: File changed while copying";

export interface ConnectOptions {
  host: string;
  port?: number;
  /**
   * The local address to connect from, or a name to look up (cf-agent's
   * `bindtointerface`); the kernel's choice when absent or when it cannot be bound.
   */
  localAddress?: string;
  keys: KeyPair;
  ppkeys: string;
  /** The USERNAME sent in IDENTITY and the user of the trusted-key file; default: this process's user. */
  user?: string;
  /** Trust an unknown server key and save it (copy_from trustkey, cf-net, bootstrap). */
  trustServer: boolean;
  /** copyfrom_restrict_keys: the server key must be one of these digests. */
  restrictKeys?: readonly string[];
  /** Bound on connecting and on each operation, ms (default 30000). */
  timeoutMs?: number;
  /** Lowest TLS version as tls_min_version writes it ("1.1", 3.21's default; "1.0", "1.2", "1.3"). */
  minTlsVersion?: string;
  /** OpenSSL cipher list (TLS 1.3 suites may be included). */
  ciphers?: string;
  logger?: Logger;
  /** The protocol version to ask (2 or 3, default 3); the server's lower one wins. */
  protocolVersion?: number;
  /** The classic protocol (version 1) instead of TLS: classic/client.ts connects. */
  classic?: boolean;
  /** Under the classic protocol: the S* commands, encrypted with the session key. */
  encrypt?: boolean;
  /** Under the classic protocol: the domain appended to a short name of ours (3.21's VDOMAIN). */
  domain?: string | undefined;
  /**
   * The state directory whose lastseen database records the server as an
   * outgoing peer once trusted and identified (3.21's LastSaw1); absent, the
   * connection is "off the record", as cf-net's.
   */
  lastSeen?: string;
}

export type RemoteFileType = "file" | "link" | "dir" | "fifo" | "block" | "char" | "socket";

export interface RemoteStat {
  type: RemoteFileType;
  mode: number;
  lmode: number;
  uid: number;
  gid: number;
  size: number;
  atime: number;
  mtime: number;
  ctime: number;
  makeholes: boolean;
  ino: number;
  nlink: number;
  dev: number;
  linkTarget?: string;
}

/** 3.21's file type codes (stat_cache.h FileType). */
export const FILE_TYPES: readonly RemoteFileType[] = [
  "file",
  "link",
  "dir",
  "fifo",
  "block",
  "char",
  "socket",
];

/** The server's version from its banner ("CFE_v3 cf-serverd 3.21.0" → protocol 3, "3.21.0"). */
export function parseBanner(line: string): { protocol: number; version: string } | undefined {
  const match = /^CFE_v(\d+)(?:\s+\S+\s+(\S+))?/.exec(line);
  if (!match) return undefined;
  const protocol = Number(match[1]);
  if (!Number.isSafeInteger(protocol) || protocol <= 0) return undefined;
  return { protocol, version: match[2] ?? "" };
}

/** Parses the first STAT reply ("OK: type mode lmode uid gid size atime mtime ctime makeholes ino nlink dev"). */
export function parseStatReply(text: string): RemoteStat | undefined {
  const match = /^OK:((?:\s+-?\d+){13})\s*$/.exec(text);
  if (!match) return undefined;
  const n = (match[1] as string).trim().split(/\s+/).map(Number);
  const type = FILE_TYPES[n[0] as number];
  if (type === undefined) return undefined;
  return {
    type,
    mode: n[1] as number,
    lmode: n[2] as number,
    uid: n[3] as number,
    gid: n[4] as number,
    size: n[5] as number,
    atime: n[6] as number,
    mtime: n[7] as number,
    ctime: n[8] as number,
    makeholes: n[9] !== 0,
    ino: n[10] as number,
    nlink: n[11] as number,
    dev: n[12] as number,
  };
}

/** A payload as text: up to the first NUL. */
function text(payload: Buffer): string {
  const nul = payload.indexOf(0);
  return payload.subarray(0, nul < 0 ? payload.length : nul).toString("latin1");
}

function isBad(reply: string): boolean {
  return reply.startsWith("BAD:");
}

/** Notes a trusted server in the lastseen database of `statedir` (a failure is logged, the connection goes on). */
export function recordServer(
  statedir: string,
  digest: string,
  address: string | undefined,
  log: Logger | undefined,
): void {
  if (!address) return;
  noteLastSeen(statedir, "outgoing", digest, address, (error) =>
    log?.error(
      `Unable to update the lastseen database (${error instanceof Error ? error.message : String(error)})`,
    ),
  );
}

export class ServerConnection {
  readonly serverDigest: string;
  /** The server's version from its banner ("3.21.0"). */
  readonly serverVersion: string;
  /** The whole banner line ("CFE_v3 cf-serverd 3.21.0"). */
  readonly serverBanner: string;
  /** The protocol version agreed (2 or 3). */
  readonly protocol: number;
  /** "host:port" as connected. */
  readonly address: string;
  readonly serverKey: KeyObject;
  /** The TLS version negotiated ("TLSv1.3"). */
  readonly tlsVersion: string;

  private queue: Promise<unknown> = Promise.resolve();
  private broken: NetError | undefined;
  /** Bytes of a raw GET refusal that may still follow a framed one (3.21's ownership refusal sends both). */
  private rawRefusalMaybe = 0;

  /** Used by connect() and by the classic protocol's handshake (classic/client.ts). */
  constructor(
    private readonly socket: tls.TLSSocket | Socket,
    private readonly reader: FrameReader,
    private readonly timeoutMs: number,
    private readonly logger: Logger | undefined,
    info: {
      digest: string;
      key: KeyObject;
      banner: string;
      version: string;
      protocol: number;
      address: string;
    },
  ) {
    this.serverDigest = info.digest;
    this.serverKey = info.key;
    this.serverBanner = info.banner;
    this.serverVersion = info.version;
    this.protocol = info.protocol;
    this.address = info.address;
    this.tlsVersion = "getProtocol" in socket ? (socket.getProtocol() ?? "") : "";
    socket.on("close", () => {
      this.broken ??= new NetError("closed", `connection to ${this.address} closed`);
    });
  }

  /** Connects, checks the server's key, and does the version and identity dialog. */
  static async connect(options: ConnectOptions): Promise<ServerConnection> {
    const port = options.port ?? DEFAULT_PORT;
    const timeoutMs = options.timeoutMs ?? 30_000;
    const user = options.user ?? userInfo().username;
    const address = `${options.host}:${port}`;
    const log = options.logger;
    const socket = await openTls(options, port, timeoutMs);
    try {
      const cert = socket.getPeerX509Certificate();
      if (!cert) throw new NetError("protocol", `${address}: the server sent no certificate`);
      const key = cert.publicKey.type === "public" ? cert.publicKey : createPublicKey(cert.publicKey);
      if (key.asymmetricKeyType !== "rsa")
        throw new NetError("untrusted", `${address}: the server's key is not an RSA key`);
      const digest = keyDigest(key);
      log?.verbose(
        `TLS version negotiated: ${socket.getProtocol()}; Cipher: ${socket.getCipher().name},${socket.getCipher().version}`,
      );
      const stored = readTrustedKey(options.ppkeys, user, digest, socket.remoteAddress);
      const trusted = stored !== undefined && sameKey(stored, key);
      if (options.restrictKeys && !options.restrictKeys.includes(digest))
        throw new NetError("untrusted", `Server key not in allowed keys, server presented: ${digest}`);
      if (trusted) {
        log?.verbose(`Server is TRUSTED, received key '${digest}' MATCHES stored one.`);
      } else if (options.trustServer) {
        log?.notice(`Trusting new key: ${digest}`);
        trustKey(options.ppkeys, user, key);
      } else {
        throw new NetError("untrusted", `TRUST FAILED, server presented untrusted key: ${digest}`);
      }

      const reader = new FrameReader(socket, { timeoutMs });
      const banner = await reader.line(1023, timeoutMs).catch((error: unknown) => {
        throw rephrase(error, "Connection was hung up during identification! (0)");
      });
      const parsed = parseBanner(banner);
      if (!parsed || parsed.protocol < 2)
        throw new NetError("protocol", `Server sent a bad version number! (0a) '${printable(banner)}'`);
      const wanted = Math.min(options.protocolVersion ?? PROTOCOL_LATEST, parsed.protocol);
      await write(socket, `CFE_v${wanted} cf-agent ${CLIENT_VERSION}\n`);
      await write(socket, `IDENTITY USERNAME=${user}\n`);
      const welcome = await reader.line(1023, timeoutMs).catch((error: unknown) => {
        throw rephrase(error, "Connection was hung up during identification! (3)");
      });
      if (!welcome.startsWith("OK WELCOME"))
        throw new NetError("refused", `Peer did not accept our identity! Responded: ${printable(welcome)}`);
      if (options.lastSeen !== undefined) recordServer(options.lastSeen, digest, socket.remoteAddress, log);
      return new ServerConnection(socket, reader, timeoutMs, log, {
        digest,
        key,
        banner,
        version: parsed.version,
        protocol: wanted,
        address,
      });
    } catch (error) {
      socket.destroy();
      throw error;
    }
  }

  /** Whether the connection can still be used. */
  get usable(): boolean {
    return this.broken === undefined && !this.socket.destroyed;
  }

  /** `SYNCH <now> STAT <path>`: the file's attributes, a link's target included. */
  stat(path: string): Promise<RemoteStat> {
    return this.run(async () => {
      await this.send(`SYNCH ${Math.floor(Date.now() / 1000)} STAT ${path}`);
      const first = text((await this.reply()).payload);
      if (isBad(first)) throw new NetError("refused", first);
      const stat = parseStatReply(first);
      if (!stat) throw this.fail(new NetError("protocol", `bad STAT reply '${printable(first)}'`));
      const second = text((await this.reply()).payload);
      if (!second.startsWith("OK:"))
        throw this.fail(new NetError("protocol", `bad STAT link reply '${printable(second)}'`));
      if (second.length > 3) stat.linkTarget = second.slice(3);
      return stat;
    });
  }

  /**
   * `GET`: the file's `size` bytes (the size STAT gave). With `sink` each
   * block goes there as it arrives and undefined is returned. A refusal
   * (access denied, the file unreadable, changed during the transfer) is a
   * NetError "refused" with 3.21's line. A size of 0 asks nothing.
   */
  get(path: string, size: number, sink?: (chunk: Buffer) => void): Promise<Buffer | undefined> {
    return this.run(async () => {
      const parts: Buffer[] = [];
      const deliver = sink ?? ((chunk: Buffer) => parts.push(chunk));
      if (size <= 0) return sink ? undefined : Buffer.alloc(0);
      await this.send(`GET ${GET_BLOCK} ${path}`);
      await this.checkGetRefusal(size);
      // The data, checking at each block boundary for 3.21's "file changed"
      // block (sent instead of the rest when the file changes meanwhile).
      const marker = Buffer.from(CHANGED, "latin1");
      let delivered = 0;
      let pending: Buffer = Buffer.alloc(0);
      while (delivered < size) {
        if (pending.length === 0) pending = await this.guard(this.reader.some(size - delivered));
        const limit = Math.min(pending.length, size - delivered);
        let cut = limit;
        let needMore = false;
        const first = delivered % GET_BLOCK === 0 ? 0 : GET_BLOCK - (delivered % GET_BLOCK);
        for (let p = first; p < limit; p += GET_BLOCK) {
          if (delivered + p === 0 || size - (delivered + p) < marker.length) continue;
          if (pending.length - p < marker.length) {
            cut = p;
            needMore = true;
            break;
          }
          if (pending[p] === marker[0] && pending.subarray(p, p + marker.length).equals(marker)) {
            cut = p;
            break;
          }
        }
        if (cut > 0) {
          deliver(pending.subarray(0, cut));
          delivered += cut;
          pending = pending.subarray(cut);
          continue;
        }
        if (needMore) {
          const more = await this.guard(this.reader.some(size - delivered - pending.length || 1));
          pending = Buffer.concat([pending, more]);
          continue;
        }
        // At a boundary with the "file changed" block: read all of it and stop.
        if (pending.length < GET_BLOCK)
          pending = Buffer.concat([
            pending,
            await this.guard(this.reader.raw(GET_BLOCK - pending.length, this.timeoutMs)),
          ]);
        throw new NetError("refused", text(pending.subarray(0, GET_BLOCK)));
      }
      return sink ? undefined : Buffer.concat(parts, size);
    });
  }

  /** `OPENDIR`: the names in a directory ("." and ".." included, as the server lists them). */
  opendir(path: string): Promise<string[]> {
    return this.run(async () => {
      await this.send(`OPENDIR ${path}`);
      const names: string[] = [];
      for (let first = true; ; first = false) {
        const frame = await this.reply();
        if (frame.payload[0] === 0)
          throw this.fail(
            new NetError(
              "protocol",
              `Empty${first ? " first" : ""} server packet when listing directory '${path}'!`,
            ),
          );
        const head = text(frame.payload);
        if (isBad(head)) throw new NetError("refused", head);
        let offset = 0;
        while (offset < frame.payload.length && frame.payload[offset] !== 0) {
          const end = frame.payload.indexOf(0, offset);
          const name = frame.payload.subarray(offset, end < 0 ? frame.payload.length : end).toString("utf8");
          if (name === CFD_TERMINATOR) return names;
          names.push(name);
          offset = end < 0 ? frame.payload.length : end + 1;
        }
        if (!frame.more)
          throw this.fail(
            new NetError("protocol", `directory listing of '${path}' ended without its terminator`),
          );
      }
    });
  }

  /** `MD5`: whether the server's file differs from `localMd5` (true: a copy is needed). */
  md5Differs(path: string, localMd5: Buffer): Promise<boolean> {
    return this.run(async () => {
      if (localMd5.length !== 16) throw new RangeError("md5Differs: an MD5 digest is 16 bytes");
      await this.send(Buffer.concat([Buffer.from(`MD5 ${path}`, "latin1"), Buffer.alloc(2), localMd5]));
      const reply = text((await this.reply()).payload);
      if (reply === CFD_TRUE) return true;
      if (reply === CFD_FALSE) return false;
      if (isBad(reply)) throw new NetError("refused", reply);
      throw this.fail(new NetError("protocol", `bad MD5 reply '${printable(reply)}'`));
    });
  }

  /** `VERSION`: the server's version ("3.21.0"). */
  version(): Promise<string> {
    return this.run(async () => {
      await this.send("VERSION");
      const reply = text((await this.reply()).payload);
      if (isBad(reply)) throw new NetError("refused", reply);
      if (!reply.startsWith("OK:"))
        throw this.fail(new NetError("protocol", `bad VERSION reply '${printable(reply)}'`));
      return reply.slice(3).trim();
    });
  }

  /** `CONTEXT <regex>`: the server's persistent classes matching, as access allows. */
  context(regex: string): Promise<string[]> {
    return this.run(async () => {
      await this.send(`CONTEXT ${regex}`);
      const reply = text((await this.reply()).payload);
      if (isBad(reply)) throw new NetError("refused", reply);
      return reply.split(",").filter((name) => name !== "");
    });
  }

  /**
   * `VAR <handle>`: a literal the server shares (Enterprise servers; 3.21
   * community answers "BAD: …" → undefined). Access refused: NetError "refused".
   */
  var(handle: string): Promise<string | undefined> {
    return this.run(async () => {
      await this.send(`VAR ${handle}`);
      const reply = text((await this.reply()).payload);
      if (reply === CF_FAILEDSTR) throw new NetError("refused", reply);
      if (isBad(reply)) return undefined;
      return reply.startsWith("OK:") ? reply.slice(3).replace(/^ /, "") : reply;
    });
  }

  /**
   * `EXEC [-D classes] [-b bundles]` as cf-runagent sends it, then the
   * classes to send (`sendClasses`, cf-runagent -s) and the terminator.
   * Each reply line goes to `onLine` as the server sent it ("> output",
   * "BAD: …", "(exit code: N)"); resolves with the exit code when the server
   * gave one. The server closes the connection afterwards.
   */
  exec(
    options: { defineClasses?: string[]; bundles?: string[]; sendClasses?: string[] },
    onLine: (line: string) => void,
  ): Promise<number | undefined> {
    return this.run(async () => {
      let request = "EXEC";
      if (options.defineClasses?.length) request += ` -D${options.defineClasses.join(",")}`;
      if (options.bundles?.length) request += ` -b ${options.bundles.join(",")}`;
      // Nagle back on, as cf-runagent has it. A server that matches a sent
      // class (3.21's MatchClasses) stops reading before the terminator and
      // closes with it unread, which resets the connection and can drop the
      // output it has not sent yet: with Nagle off, 3 runs in 12 lost it
      // against cf-serverd 3.21 on a busy machine; with it on, none did.
      if (options.sendClasses?.some((name) => name !== "")) this.socket.setNoDelay(false);
      await this.send(request);
      for (const name of options.sendClasses ?? []) if (name !== "") await this.send(name);
      await this.send(CFD_TERMINATOR);
      let exitCode: number | undefined;
      for (;;) {
        let frame: Frame;
        try {
          frame = await this.reader.next(this.timeoutMs);
        } catch (error) {
          if (error instanceof NetError && error.kind === "closed") break;
          throw this.fail(error instanceof NetError ? error : new NetError("protocol", String(error)));
        }
        const line = text(frame.payload);
        if (line.startsWith(CFD_TERMINATOR)) break;
        const code = /^\(exit code: (-?\d+)\)/.exec(line);
        if (code) exitCode = Number(code[1]);
        onLine(line);
      }
      return exitCode;
    });
  }

  /** Sends a request not otherwise supported and gives back its one reply frame (tests, probing). */
  raw(request: string | Buffer): Promise<string> {
    return this.run(async () => {
      await this.send(request);
      return text((await this.reply()).payload);
    });
  }

  close(): void {
    this.broken ??= new NetError("closed", `connection to ${this.address} closed`);
    this.socket.end();
    this.socket.destroy();
  }

  /** Runs one operation after the ones before it. */
  protected run<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.queue.then(() => {
      if (this.broken) throw this.broken;
      return operation();
    });
    this.queue = result.catch(() => undefined);
    return result;
  }

  protected async send(payload: string | Buffer): Promise<void> {
    const bytes = typeof payload === "string" ? Buffer.from(payload, "latin1") : payload;
    if (bytes.length > MAX_FRAME_PAYLOAD)
      throw new NetError(
        "protocol",
        `request of ${bytes.length} bytes is longer than a frame (${MAX_FRAME_PAYLOAD})`,
      );
    if (this.reader.available > 0 && this.rawRefusalMaybe === 0)
      throw this.fail(
        new NetError("protocol", `${this.reader.available} unexpected bytes from ${this.address}`),
      );
    this.logger?.debug(`SendTransaction data: ${printable(bytes.toString("latin1"))}`);
    await this.guard(write(this.socket, encodeFrame(bytes)));
  }

  /** The next reply frame, after any raw refusal left over from a GET. */
  protected async reply(): Promise<Frame> {
    await this.skipRawRefusal();
    const frame = await this.guard(this.reader.next(this.timeoutMs));
    this.logger?.debug(`ReceiveTransaction data: ${printable(frame.payload.toString("latin1"))}`);
    return frame;
  }

  private async skipRawRefusal(): Promise<void> {
    if (this.rawRefusalMaybe === 0) return;
    const size = this.rawRefusalMaybe;
    this.rawRefusalMaybe = 0;
    const head = await this.guard(this.reader.peek(5, this.timeoutMs));
    if (head.toString("latin1") !== "BAD: ") return;
    await this.guard(this.reader.raw(size, this.timeoutMs));
  }

  /**
   * Before a GET's data: 3.21 refuses with a frame (access denied, the
   * file missing), the same frame and then a raw block (ownership), or a
   * raw block padded to the block size (the file unreadable).
   */
  private async checkGetRefusal(size: number): Promise<void> {
    await this.skipRawRefusal();
    const framed = Buffer.concat([
      Buffer.from("t 59\0\0\0\0", "latin1"),
      Buffer.from(CF_FAILEDSTR, "latin1"),
    ]);
    const want = Math.min(size, framed.length);
    let head = await this.guard(this.reader.peek(want, this.timeoutMs));
    const prefixOf = (whole: Buffer): boolean => head.equals(whole.subarray(0, head.length));
    const rawRefusal = Buffer.from(CF_FAILEDSTR, "latin1");
    if (
      head.length < framed.length &&
      (prefixOf(framed) || prefixOf(rawRefusal) || /^[tm] /.test(head.toString("latin1")))
    ) {
      // A small file that starts like a refusal: see whether more follows.
      head = await this.reader.peek(framed.length, Math.min(this.timeoutMs, 500)).catch(() => head);
    }
    const asText = head.toString("latin1");
    if (/^[tm] +\d+\0* *\0*/.test(asText.slice(0, 8)) && asText.slice(8, 13) === "BAD: ") {
      const frame = await this.guard(this.reader.next(this.timeoutMs));
      this.rawRefusalMaybe = GET_BLOCK;
      throw new NetError("refused", text(frame.payload));
    }
    if (asText.startsWith(CF_FAILEDSTR) || asText.startsWith(CHANGED)) {
      const block = await this.guard(this.reader.raw(GET_BLOCK, this.timeoutMs));
      throw new NetError("refused", text(block));
    }
  }

  /** Awaits `promise`; a failure breaks the connection. */
  private async guard<T>(promise: Promise<T>): Promise<T> {
    try {
      return await promise;
    } catch (error) {
      throw this.fail(
        error instanceof NetError ? error : new NetError("closed", String(error), { cause: error }),
      );
    }
  }

  /** Marks the connection broken (closing it) and returns `error` to throw. */
  private fail(error: NetError): NetError {
    this.broken ??=
      error.kind === "closed"
        ? error
        : new NetError("closed", `connection to ${this.address} abandoned: ${error.message}`);
    this.socket.destroy();
    return error;
  }
}

/**
 * The client's TLS settings for `pair`, made once per key pair and
 * options, as 3.21 makes its certificate once per process: signing the
 * certificate and loading the key cost a few ms, more than the rest of a
 * connection to a server nearby. (A memo tied to the key object, not
 * per-run state: it goes with the key.)
 */
const CONTEXTS = new WeakMap<KeyPair, Map<string, tls.SecureContext>>();

function clientContext(options: ConnectOptions): tls.SecureContext {
  const pair = options.keys;
  const key = `${options.minTlsVersion ?? ""} ${options.ciphers ?? ""}`;
  let contexts = CONTEXTS.get(pair);
  const known = contexts?.get(key);
  if (known) return known;
  // As 3.21's TLSClientInitialize: tls_min_version and tls_ciphers read as the server reads its own.
  const settings = tlsSettings(options.minTlsVersion, options.ciphers);
  for (const message of settings.messages) options.logger?.[message.level](message.text);
  if (settings.error) throw new NetError("protocol", settings.error);
  const context = tls.createSecureContext({
    key: privateKeyPem(pair),
    cert: selfSignedCertificate(pair),
    ...settings.options,
  });
  if (!contexts) {
    contexts = new Map();
    CONTEXTS.set(pair, contexts);
  }
  contexts.set(key, context);
  return context;
}

/**
 * Opens the TLS connection: any certificate accepted here, the key checked
 * by the caller. From `localAddress` when given (looked up when a name), or
 * from the kernel's choice when that address cannot be bound, as 3.21 does.
 */
function openTls(options: ConnectOptions, port: number, timeoutMs: number): Promise<tls.TLSSocket> {
  return connectFrom(options.localAddress, options.host, options.logger, (local) =>
    connectTls(options, port, timeoutMs, local),
  );
}

function connectTls(
  options: ConnectOptions,
  port: number,
  timeoutMs: number,
  localAddress: string | undefined,
): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host: options.host,
      port,
      ...(localAddress ? { localAddress } : {}),
      secureContext: clientContext(options),
      rejectUnauthorized: false,
      checkServerIdentity: () => undefined,
    });
    // The dialog's two lines and each request go out at once, not after the
    // server's delayed ACK of the one before (Nagle: 40 ms per connection).
    socket.setNoDelay(true);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new NetError("timeout", `connecting to ${options.host}:${port} took more than ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once("secureConnect", () => {
      clearTimeout(timer);
      socket.removeAllListeners("error");
      socket.on("error", () => undefined);
      resolve(socket);
    });
    socket.once("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      socket.destroy();
      const kind =
        error.code &&
        /^(ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|EADDRNOTAVAIL)$/.test(error.code)
          ? "connect"
          : "closed";
      reject(
        new NetError(kind, `Unable to connect to ${options.host}:${port}: ${error.message}`, {
          cause: error,
        }),
      );
    });
  });
}

/** "1.2" (as `tls_min_version` writes it) or "TLSv1.2" → Node's name; undefined when neither. */
/** Writes `data` as one TLS record and waits until it is handed to the socket. */
function write(socket: Socket, data: string | Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.write(data, (error) => {
      if (error) reject(new NetError("closed", `write failed: ${error.message}`, { cause: error }));
      else resolve();
    });
  });
}

function rephrase(error: unknown, message: string): NetError {
  if (error instanceof NetError)
    return new NetError(error.kind === "closed" ? "refused" : error.kind, `${message}: ${error.message}`, {
      cause: error,
    });
  return new NetError("protocol", message, { cause: error });
}
