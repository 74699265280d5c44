/**
 * The server half of cfnet's start as 3.21's cf-serverd does it
 * (server_tls.c): TLS options, the peek telling the classic protocol from
 * TLS, and the version and identity dialog. What happens next (trust by
 * `trustkeysfrom`, access, the commands) belongs to the daemon.
 */
import {
  constants as cryptoConstants,
  createPublicKey,
  type KeyObject,
  type X509Certificate,
} from "node:crypto";
import type { Socket } from "node:net";
import type tls from "node:tls";
import { selfSignedCertificate } from "./certificate.js";
import { NetError } from "./errors.js";
import { FrameReader, HEADER_SIZE, printable } from "./frame.js";
import { type KeyPair, keyDigest, privateKeyPem } from "./keys.js";

/** The protocol version a 3.21 server offers. */
export const SERVER_PROTOCOL = 3;
/** cf-serverd 3.21's ciphers when `allowciphers` is not given. */
export const DEFAULT_SERVER_CIPHERS = "AES256-GCM-SHA384:AES256-SHA";
export const DEFAULT_SERVER_CIPHERSUITES = "TLS_AES_256_GCM_SHA384";

export interface PeerIdentity {
  /** The USERNAME the client claimed ("" when it gave none). */
  user: string;
  publicKey: KeyObject;
  /** "MD5=…" of the client's key. */
  digest: string;
  /** The peer's address (IPv4-mapped IPv6 addresses given as IPv4). */
  ip: string;
  /** The protocol version agreed (2 or 3). */
  protocol: number;
  /** The client's version line ("CFE_v3 cf-agent 3.21.0"). */
  clientBanner: string;
  /** The reader over the connection, to read the requests that follow. */
  reader: FrameReader;
  /** How much of the welcome line went ahead (`sendWelcome` sends the rest). */
  welcomeSent: number;
}

/** A TLS version as `allowtlsversion` writes it ("1.2") or as Node does ("TLSv1.2"). */
export function tlsVersionName(version: string): tls.SecureVersion | undefined {
  const match = /^(?:TLSv)?1\.([0-3])$/.exec(version.trim());
  if (!match) return undefined;
  return match[1] === "0" ? "TLSv1" : (`TLSv1.${match[1]}` as tls.SecureVersion);
}

/**
 * cf-serverd's TLS options: its certificate, a client certificate required
 * but any accepted (trust is decided on the key after the dialog), no
 * session tickets or resumption, TLS 1.1 at least unless `minVersion`
 * (`allowtlsversion`) says otherwise, and 3.21's ciphers unless `ciphers`
 * (`allowciphers`) replaces them; a cipher list without TLS 1.3 suites
 * ("TLS_…") turns TLS 1.3 off, as 3.21 does.
 */
export function tlsServerOptions(
  pair: KeyPair,
  opts: { minVersion?: string; ciphers?: string } = {},
): tls.TlsOptions {
  const list = opts.ciphers ?? `${DEFAULT_SERVER_CIPHERS}:${DEFAULT_SERVER_CIPHERSUITES}`;
  const specs = list.split(":").filter((s) => s !== "");
  const suites = specs.filter((s) => s.startsWith("TLS_"));
  const ciphers = specs.filter((s) => !s.startsWith("TLS_"));
  const minVersion = (opts.minVersion && tlsVersionName(opts.minVersion)) || "TLSv1.1";
  return {
    key: privateKeyPem(pair),
    cert: selfSignedCertificate(pair),
    requestCert: true,
    rejectUnauthorized: false,
    minVersion,
    ...(suites.length === 0 ? { maxVersion: "TLSv1.2" as const } : {}),
    ciphers: [...ciphers, ...suites].join(":"),
    secureOptions:
      cryptoConstants.SSL_OP_NO_TICKET | cryptoConstants.SSL_OP_NO_SESSION_RESUMPTION_ON_RENEGOTIATION,
  };
}

/** How a new connection starts: "classic" (3.21's CAUTH, refused unless allowlegacyconnects) or "tls". */
export type ConnectionStart = "classic" | "tls";

/**
 * What 3.21 decides from the first 13 bytes a client sends: "CAUTH" after
 * the 8-byte header is the classic protocol, and so is a client sending
 * fewer than 13 bytes; anything else is TLS. `head` is those bytes.
 */
export function classifyStart(head: Buffer): ConnectionStart {
  const peek = HEADER_SIZE + 5;
  if (head.length < peek) return "classic";
  return head.subarray(HEADER_SIZE, peek).toString("latin1") === "CAUTH" ? "classic" : "tls";
}

/**
 * Reads the first bytes of a plain TCP connection without consuming them
 * (they are pushed back with `unshift` before TLS starts on the socket) and
 * classifies them. Resolves "classic" when the client sends fewer than 13
 * bytes and then waits or closes, as 3.21; rejects with NetError "timeout"
 * after `timeoutMs` without data, "closed" when the client closes first.
 */
export function peekConnectionStart(socket: Socket, timeoutMs: number): Promise<ConnectionStart> {
  const want = HEADER_SIZE + 5;
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let got = 0;
    const finish = (outcome: ConnectionStart | NetError): void => {
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("end", onEnd);
      socket.off("error", onError);
      socket.pause();
      if (got > 0) socket.unshift(Buffer.concat(parts));
      if (outcome instanceof NetError) reject(outcome);
      else resolve(outcome);
    };
    const onData = (chunk: Buffer): void => {
      parts.push(chunk);
      got += chunk.length;
      if (got >= want) finish(classifyStart(Buffer.concat(parts)));
    };
    const onEnd = (): void =>
      finish(
        got > 0 ? "classic" : new NetError("closed", "Peer closed TCP connection without sending data!"),
      );
    const onError = (error: Error): void => finish(new NetError("closed", error.message, { cause: error }));
    const timer = setTimeout(
      () => finish(got > 0 ? "classic" : new NetError("timeout", `no data within ${timeoutMs} ms`)),
      timeoutMs,
    );
    socket.on("data", onData);
    socket.once("end", onEnd);
    socket.once("error", onError);
    socket.resume();
  });
}

/** The peer's IP address with an IPv4-mapped prefix removed. */
export function peerAddress(socket: Socket): string {
  const address = socket.remoteAddress ?? "";
  return address.startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address;
}

/**
 * The server's side of the dialog: sends "CFE_v3 cf-serverd <version>",
 * reads the client's version line (refusing the classic protocol and
 * versions above 3, as 3.21) and its IDENTITY line (only USERNAME is
 * used; one holding "/" or "\" is refused), and gives the client's key
 * from its certificate. Failures are NetError "protocol" (3.21's log text
 * in the message), "closed" or "timeout". The daemon then decides trust
 * and sends the welcome (`sendWelcome`).
 */
export async function serverDialog(
  socket: tls.TLSSocket,
  opts: {
    version: string;
    timeoutMs: number;
    reader?: FrameReader;
    /**
     * Whether the welcome may start before the IDENTITY line comes
     * (`startWelcome`), given the client's key digest: true only when the
     * client will be welcomed, so that a refused one sees what 3.21 sends.
     */
    welcomeAhead?: (digest: string) => boolean;
  },
): Promise<PeerIdentity> {
  const reader = opts.reader ?? new FrameReader(socket, { timeoutMs: opts.timeoutMs });
  const cert = socket.getPeerX509Certificate() ?? (await afterHandshake(socket, opts.timeoutMs));
  if (!cert) throw new NetError("protocol", "the client sent no certificate");
  const publicKey = cert.publicKey.type === "public" ? cert.publicKey : createPublicKey(cert.publicKey);
  if (publicKey.asymmetricKeyType !== "rsa")
    throw new NetError("protocol", "the client's key is not an RSA key");
  await writeLine(socket, `CFE_v${SERVER_PROTOCOL} cf-serverd ${opts.version}\n`);
  const banner = await reader.line(1023, opts.timeoutMs).catch((error: unknown) => {
    throw closedEarly(error, "Client closed connection early! He probably does not trust our key...");
  });
  const match = /^CFE_v(-?\d+)/.exec(banner);
  const protocol = match ? Number(match[1]) : 0;
  if (!match || protocol <= 0)
    throw new NetError("protocol", `Protocol version negotiation failed! Received: ${printable(banner)}`);
  if (protocol === 1)
    throw new NetError("protocol", `Client advertises disallowed protocol version: ${protocol}`);
  if (protocol > SERVER_PROTOCOL)
    throw new NetError(
      "protocol",
      `Client attempted a protocol version which is too new for us: ${protocol}`,
    );
  const digest = keyDigest(publicKey);
  const welcomeSent = reader.available === 0 && opts.welcomeAhead?.(digest) ? startWelcome(socket) : 0;
  const identity = await reader.line(1023, opts.timeoutMs).catch((error: unknown) => {
    throw closedEarly(error, "Client closed connection during identification dialog!");
  });
  const user = parseIdentity(identity);
  if (typeof user !== "string") throw new NetError("protocol", user.error);
  return {
    user,
    publicKey,
    digest,
    ip: peerAddress(socket),
    protocol,
    clientBanner: banner,
    reader,
    welcomeSent,
  };
}

/**
 * The USERNAME of an IDENTITY line ("" when absent; other fields are
 * ignored as 3.21 ignores them), or what is wrong with it.
 */
export function parseIdentity(line: string): string | { error: string } {
  if (!line.startsWith("IDENTITY ")) return "";
  let user = "";
  for (const field of line.slice("IDENTITY ".length).trim().split(/\s+/)) {
    const eq = field.indexOf("=");
    if (eq <= 0 || eq === field.length - 1) break;
    const name = field.slice(0, eq);
    const value = field.slice(eq + 1);
    if (name === "USERNAME") {
      if (/[\\/]/.test(value) || value.length >= 1024)
        return { error: `Received invalid IDENTITY: ${name}=${printable(value)}` };
      user = value;
    }
  }
  return user;
}

/** "OK WELCOME USERNAME=<user>", the line that ends a successful dialog. */
export function sendWelcome(
  socket: tls.TLSSocket,
  peer: Pick<PeerIdentity, "user" | "welcomeSent">,
): Promise<void> {
  const line = peer.user === "" ? "OK WELCOME\n" : `OK WELCOME USERNAME=${peer.user}\n`;
  return writeLine(socket, line.slice(peer.welcomeSent));
}

/** What `startWelcome` sends: the first bytes of every welcome line. */
const WELCOME_START = "OK";

/**
 * Sends the first bytes of the welcome line while the client's IDENTITY
 * line has not come: the ACK they carry lets it come at once. A 3.21
 * client writes its version line and its IDENTITY line with two writes,
 * Nagle's algorithm on: the second waits until the first is acknowledged,
 * and the kernel holds that acknowledgement back to join it to the
 * server's next bytes (delayed ACK, 40 ms on Linux): each cf-agent
 * connection to cf-serverd 3.21 waits those 40 ms (a cold copy of the
 * MPF by cf-agent, 160 ms in all, spent 42 to 45 ms there). The client
 * reads the welcome line up to its newline however many records it
 * comes in. Only for a client that will be welcomed (`welcomeAhead`): a
 * refused one must see the connection closed with nothing sent, as 3.21
 * closes it.
 */
function startWelcome(socket: tls.TLSSocket): number {
  socket.write(WELCOME_START, "latin1");
  return WELCOME_START.length;
}

/**
 * The peer's certificate once the handshake is done (a TLSSocket made
 * over an accepted socket may start the dialog before it is); undefined
 * when none came within `timeoutMs`.
 */
function afterHandshake(socket: tls.TLSSocket, timeoutMs: number): Promise<X509Certificate | undefined> {
  return new Promise((resolve, reject) => {
    const done = (error?: NetError): void => {
      clearTimeout(timer);
      socket.off("secure", onSecure);
      socket.off("close", onClose);
      if (error) reject(error);
      else resolve(socket.getPeerX509Certificate());
    };
    const onSecure = (): void => done();
    const onClose = (): void =>
      done(new NetError("closed", "the client closed the connection during the TLS handshake"));
    // Also when the handshake ended before (no certificate then): given up after the bound.
    const timer = setTimeout(() => done(), timeoutMs);
    socket.once("secure", onSecure);
    socket.once("close", onClose);
  });
}

function writeLine(socket: tls.TLSSocket, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.write(line, "latin1", (error) => {
      if (error) reject(new NetError("closed", `write failed: ${error.message}`, { cause: error }));
      else resolve();
    });
  });
}

function closedEarly(error: unknown, message: string): NetError {
  if (error instanceof NetError && error.kind === "closed")
    return new NetError("closed", message, { cause: error });
  return error instanceof NetError ? error : new NetError("protocol", message, { cause: error });
}
