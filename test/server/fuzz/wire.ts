/**
 * The fuzzer's end of a connection: a TCP or TLS socket it writes any bytes
 * to, and a view of how the server reacts (replies, closes, says nothing).
 * The fuzzer must be able to send what no correct client sends, so this is
 * not src/net's client; it reads only as much of the protocol as it needs
 * to get to the point where a case strikes.
 */
import { connect as tcpConnect, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { selfSignedCertificate } from "../../../src/net/certificate.js";
import { generateKeyPair, privateKeyPem } from "../../../src/net/keys.js";

/** Who the fuzzer is to the server: a host with a key and a certificate. */
export interface FuzzPeer {
  readonly host: string;
  readonly port: number;
  readonly key: string;
  readonly cert: string;
  readonly user: string;
}

/** A peer with a fresh key (the server must trust it, e.g. by trustkeysfrom). */
export function makePeer(host: string, port: number, user = "root"): FuzzPeer {
  const pair = generateKeyPair();
  return { host, port, key: privateKeyPem(pair), cert: selfSignedCertificate(pair), user };
}

/** How the server reacted to what a case sent. */
export type Reaction = "reply" | "closed" | "silent";

/** One connection under the fuzzer's control. */
export class Probe {
  private inbox: Buffer = Buffer.alloc(0);
  private waiter: (() => void) | undefined;
  /** Whether the server closed (or reset) the connection. */
  closed = false;
  /** Bytes received in all. */
  received = 0;

  constructor(private readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.received += chunk.length;
      // Keep only what a reader may still want: replies are drained, not stored.
      this.inbox = this.inbox.length > 1 << 16 ? chunk : Buffer.concat([this.inbox, chunk]);
      this.wake();
    });
    const end = () => {
      this.closed = true;
      this.wake();
    };
    socket.on("end", end);
    socket.on("close", end);
    socket.on("error", end);
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  /** A bare TCP connection. Rejects when it cannot connect within `timeoutMs`. */
  static tcp(peer: FuzzPeer, timeoutMs: number): Promise<Probe> {
    return opened(tcpConnect({ host: peer.host, port: peer.port }), "connect", timeoutMs);
  }

  /** A TLS connection with the handshake done (the server verifies nothing in it but that a certificate came). */
  static tls(peer: FuzzPeer, timeoutMs: number): Promise<Probe> {
    const socket = tlsConnect({
      host: peer.host,
      port: peer.port,
      key: peer.key,
      cert: peer.cert,
      rejectUnauthorized: false,
      checkServerIdentity: () => undefined,
    });
    return opened(socket, "secureConnect", timeoutMs);
  }

  /** Writes bytes; false when the connection is already closed. */
  write(bytes: Buffer): boolean {
    if (this.closed || this.socket.destroyed) return false;
    this.socket.write(bytes);
    return true;
  }

  /** Ends the connection at once, whatever was said. */
  destroy(): void {
    // Not resetAndDestroy(): on a socket still connecting, node keeps its handle alive.
    this.socket.destroy();
    this.closed = true;
  }

  /** Resolves when new bytes arrive, the connection ends, or `ms` pass. */
  private settle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        resolve();
      }, ms);
      this.waiter = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /**
   * Waits for the server's reaction: `closed` if it ends the connection,
   * `reply` once bytes came and then nothing for `quietMs`, `silent` if
   * nothing came within `idleMs`. The bytes are dropped.
   */
  async reaction(idleMs: number, quietMs: number): Promise<Reaction> {
    const start = this.received;
    const deadline = Date.now() + idleMs;
    while (!this.closed) {
      const before = this.received;
      const now = Date.now();
      if (before === start && now >= deadline) return "silent";
      await this.settle(before === start ? deadline - now : quietMs);
      if (this.received === before && before !== start) break;
    }
    this.inbox = Buffer.alloc(0);
    return this.closed ? "closed" : "reply";
  }

  /** The next `\n`-terminated line (without it), or undefined on close or after `timeoutMs`. */
  async line(timeoutMs: number): Promise<string | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const at = this.inbox.indexOf(0x0a);
      if (at >= 0) {
        const text = this.inbox.subarray(0, at).toString("latin1");
        this.inbox = this.inbox.subarray(at + 1);
        return text;
      }
      const left = deadline - Date.now();
      if (this.closed || left <= 0) return undefined;
      await this.settle(left);
    }
  }

  /** Exactly `count` bytes, or undefined on close or after `timeoutMs`. */
  async bytes(count: number, timeoutMs: number): Promise<Buffer | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.inbox.length >= count) {
        const taken = this.inbox.subarray(0, count);
        this.inbox = this.inbox.subarray(count);
        return taken;
      }
      const left = deadline - Date.now();
      if (this.closed || left <= 0) return undefined;
      await this.settle(left);
    }
  }

  /** One frame's payload and status, or undefined on close, a bad header or after `timeoutMs`. */
  async frame(timeoutMs: number): Promise<{ more: boolean; payload: Buffer } | undefined> {
    const header = await this.bytes(8, timeoutMs);
    if (!header) return undefined;
    const match = /^([tm]) (\d+)/.exec(header.toString("latin1"));
    if (!match) return undefined;
    const payload = await this.bytes(Number(match[2]), timeoutMs);
    return payload && { more: match[1] === "m", payload };
  }

  /**
   * The client's half of the dialog: the server's version line, ours and
   * IDENTITY, then OK WELCOME. False if the server refused or went away.
   */
  async dialog(user: string, timeoutMs: number): Promise<boolean> {
    const version = await this.line(timeoutMs);
    if (!version?.startsWith("CFE_v")) return false;
    this.write(Buffer.from(`CFE_v3 cf-agent 3.21.0\nIDENTITY USERNAME=${user}\n`));
    const welcome = await this.line(timeoutMs);
    return welcome?.startsWith("OK WELCOME") === true;
  }
}

function opened(socket: Socket, event: string, timeoutMs: number): Promise<Probe> {
  const probe = new Probe(socket);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no ${event} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once(event, () => {
      clearTimeout(timer);
      resolve(probe);
    });
    socket.once("error", (error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    });
    socket.once("close", () => {
      clearTimeout(timer);
      reject(new Error(`closed before ${event}`));
    });
  });
}
