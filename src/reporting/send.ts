/**
 * Sends spooled reports to the hub: `POST /v1/reports` over HTTPS with
 * mutual TLS. The node shows its own key (`ppkeys/localhost.priv`) in the
 * certificate cf-serverd's peers make in memory (src/net/certificate.ts);
 * the hub's key is checked against the node's trusted keys
 * (`ppkeys/<user>-MD5=….pub`), and an unknown one is trusted on first use
 * only when the settings say so (as copy_from's `trustkey`). The check is
 * made when the handshake is done and before a byte of the report goes out.
 *
 * Reports go oldest first. An answer 200/201 (stored, or stored before)
 * removes the file; a refusal for good (400, 409, 413, 415, 403 "forged") sets it aside;
 * anything else (no hub, a timeout, 5xx, our key not trusted yet) stops
 * the round and keeps the rest for the next run. Nothing here throws.
 */
import { createPublicKey } from "node:crypto";
import http from "node:http";
import type { Duplex } from "node:stream";
import tls from "node:tls";
import { userInfo } from "node:os";
import { selfSignedCertificate } from "../net/certificate.js";
import { type KeyPair, keyDigest, privateKeyPem, readTrustedKey, sameKey, trustKey } from "../net/keys.js";
import type { Logger } from "../system/logger.js";
import type { HubAddress } from "./settings.js";
import { listSpool, removeQuietly, type SpoolPaths, setAside } from "./spool.js";
import { readFileSync } from "node:fs";

export interface SendOptions {
  readonly hub: HubAddress;
  readonly pair: KeyPair;
  readonly ppkeys: string;
  readonly trustHubKey: boolean;
  readonly timeoutMs: number;
  /** The user the hub's key is trusted for (`<user>-MD5=….pub`); default: this process's user. */
  readonly user?: string;
  /** The node's certificate (PEM); made from the pair when absent (which signs with RSA: give it when sending many). */
  readonly certificate?: string;
}

export type SendResult =
  | { readonly kind: "stored"; readonly status: number }
  | { readonly kind: "duplicate"; readonly status: number }
  | { readonly kind: "refused"; readonly status: number; readonly error: string }
  | { readonly kind: "retry"; readonly status?: number; readonly error: string };

/** Opens the TLS connection and checks the hub's key; rejects with the reason. */
function connectHub(options: SendOptions): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host: options.hub.host,
      port: options.hub.port,
      key: privateKeyPem(options.pair),
      cert: options.certificate ?? selfSignedCertificate(options.pair),
      // The hub's certificate is self-signed, as cf-serverd's: its key is what is checked.
      rejectUnauthorized: false,
      servername: /^[\d.:]+$/.test(options.hub.host) ? undefined : options.hub.host,
      timeout: options.timeoutMs,
    });
    const fail = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    socket.once("error", fail);
    socket.once("timeout", () => fail(new Error(`no answer within ${options.timeoutMs} ms`)));
    socket.setNoDelay(true);
    socket.once("secureConnect", () => {
      socket.off("error", fail);
      try {
        checkHubKey(socket, options);
        resolve(socket);
      } catch (error) {
        fail(error as Error);
      }
    });
  });
}

function checkHubKey(socket: tls.TLSSocket, options: SendOptions): void {
  const cert = socket.getPeerX509Certificate();
  if (!cert) throw new Error("the hub sent no certificate");
  const key = cert.publicKey.type === "public" ? cert.publicKey : createPublicKey(cert.publicKey);
  if (key.asymmetricKeyType !== "rsa") throw new Error("the hub's key is not an RSA key");
  const digest = keyDigest(key);
  const user = options.user ?? userInfo().username;
  const stored = readTrustedKey(options.ppkeys, user, digest);
  if (stored && sameKey(stored, key)) return;
  if (!options.trustHubKey)
    throw new UntrustedHub(
      `TRUST FAILED, the hub presented an untrusted key: ${digest} (trust it with tend key, or set "trustHubKey")`,
    );
  trustKey(options.ppkeys, user, key);
}

class UntrustedHub extends Error {}

/** POSTs one report body; resolves with what the hub answered. */
/**
 * An HTTP agent whose connections are TLS connections to the hub opened by
 * connectHub: the hub's key is checked before the agent hands a
 * connection to a request, so no byte of a report reaches an untrusted
 * hub. Connections are kept alive for the next report of the round.
 */
export class HubAgent extends http.Agent {
  constructor(private readonly sendOptions: SendOptions) {
    super({ keepAlive: true, maxSockets: 1, timeout: sendOptions.timeoutMs });
  }

  // Node's Agent takes a connection given later through the callback.
  override createConnection(
    _options: http.ClientRequestArgs,
    callback?: (error: Error | null, socket: Duplex) => void,
  ): undefined {
    const { host, port } = this.sendOptions.hub;
    connectHub(this.sendOptions).then(
      (socket) => callback?.(null, socket),
      (error: Error) =>
        callback?.(
          new ConnectError(`cannot reach the hub ${host}:${port}: ${error.message}`),
          undefined as unknown as Duplex,
        ),
    );
    return undefined;
  }
}

class ConnectError extends Error {}

/** POSTs one report body (through `agent`, else a connection of its own); resolves with what the hub answered. */
export async function sendReport(body: Buffer, options: SendOptions, agent?: HubAgent): Promise<SendResult> {
  const through = agent ?? new HubAgent(options);
  return new Promise<SendResult>((resolve) => {
    const request = http.request({
      method: "POST",
      path: "/v1/reports",
      host: options.hub.host,
      port: options.hub.port,
      headers: { "content-type": "application/json", "content-length": body.length },
      agent: through,
      timeout: options.timeoutMs,
    });
    request.once("timeout", () => request.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    request.once("error", (error) =>
      resolve({
        kind: "retry",
        error: error instanceof ConnectError ? error.message : `sending to the hub: ${error.message}`,
      }),
    );
    request.once("response", (response) => {
      const parts: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        if (size < 65536) parts.push(chunk);
        size += chunk.length;
      });
      response.once("error", (error) => resolve({ kind: "retry", error: error.message }));
      response.once("end", () =>
        resolve(interpret(response.statusCode ?? 0, Buffer.concat(parts).toString("utf8"))),
      );
    });
    request.end(body);
  }).finally(() => {
    if (!agent) through.destroy();
  });
}

/** What an answer means for the spooled file. */
function interpret(status: number, text: string): SendResult {
  let error = text.trim();
  try {
    const parsed = JSON.parse(text) as { error?: unknown; result?: unknown; code?: unknown };
    if (typeof parsed.error === "string") error = parsed.error;
    // Forged: this report names a key the node no longer has (made again since); it can never go.
    if (status === 403 && parsed.code === "forged") return { kind: "refused", status, error };
    if (status === 200 || status === 201)
      return parsed.result === "duplicate" ? { kind: "duplicate", status } : { kind: "stored", status };
  } catch {
    if (status === 200 || status === 201) return { kind: "stored", status };
  }
  if ([400, 409, 413, 415].includes(status)) return { kind: "refused", status, error };
  return { kind: "retry", status, error: `the hub answered ${status}: ${error}` };
}

export interface SendSummary {
  readonly sent: number;
  readonly refused: number;
  readonly left: number;
  /** Why the round stopped early, if it did. */
  readonly stopped?: string;
}

/** Sends spooled reports oldest first, at most `maxSends`; see the file comment. */
export async function sendSpooled(
  paths: SpoolPaths,
  options: SendOptions & { readonly maxSends: number; readonly keepRefused?: number },
  logger: Logger,
): Promise<SendSummary> {
  const entries = listSpool(paths.spool);
  if (entries.length === 0) return { sent: 0, refused: 0, left: 0 };
  options = { ...options, certificate: options.certificate ?? selfSignedCertificate(options.pair) };
  let sent = 0;
  let refused = 0;
  let stopped: string | undefined;
  const agent = new HubAgent(options);
  try {
    for (const entry of entries.slice(0, options.maxSends)) {
      let body: Buffer;
      try {
        body = readFileSync(entry.file);
      } catch {
        continue; // Sent and removed by a concurrent run.
      }
      const result = await sendReport(body, options, agent);
      if (result.kind === "stored" || result.kind === "duplicate") {
        removeQuietly(entry.file);
        sent++;
        logger.verbose(
          `Run report ${entry.runId} ${result.kind === "stored" ? "stored by" : "already at"} the hub`,
        );
      } else if (result.kind === "refused") {
        setAside(entry, paths, options.keepRefused ?? 100);
        refused++;
        logger.error(
          `The hub refused run report ${entry.runId} (${result.status}): ${result.error}; set aside in ${paths.refused}`,
        );
      } else {
        stopped = result.error;
        break;
      }
    }
  } finally {
    agent.destroy();
  }
  const left = listSpool(paths.spool).length;
  if (stopped)
    logger.warning(`Run reports not sent (${left} kept in the spool for the next run): ${stopped}`);
  return { sent, refused, left, ...(stopped ? { stopped } : {}) };
}
