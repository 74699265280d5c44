/**
 * The hub's HTTPS listener. One port, three kinds of request:
 *
 * - `POST /v1/reports`: a node's report, over mutual TLS. The client's
 *   certificate carries its key; the key must be trusted (trust.ts), the
 *   report valid (src/reporting/report.ts), under `maxBodyBytes`, and its
 *   `node.id` the key's digest (a node reports only as itself). Answers:
 *   201 stored, 200 stored before (the same bytes), 400 malformed, 401 no
 *   certificate, 403 untrusted or forged, 409 a run id already stored with
 *   other content (a replay), 413 too large, 415 an encoding other than
 *   identity, 503 the database failed (the node keeps it and retries).
 *   Every answer is JSON: `{ "result": "stored" }` or `{ "error": "…",
 *   "code": "forged" }` (RefusalCode).
 * - `GET /health`: `{ "status": "ok", … }`, no token.
 * - `GET /api/v1/…`: the read API (api.ts), with `Authorization: Bearer
 *   <token>` (tokens.ts). Nothing is writable through it.
 * - `/`, `/ui/…`, `/login`, `/logout`: the web pages (web/handler.ts).
 *
 * `close()` stops accepting, lets the requests in flight finish (their
 * writes commit or roll back whole) and then closes the store.
 */
import { createHash, createPublicKey } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import type { KeyPair } from "../net/keys.js";
import { keyDigest, publicKeyPem } from "../net/keys.js";
import { peerAddress, tlsServerOptions } from "../net/server-side.js";
import { type NodeReport, validateNodeReport } from "../reporting/report.js";
import type { Logger } from "../system/logger.js";
import { handleApi } from "./api.js";
import { type RudderConfig, rudderComplianceOf } from "./compliance.js";
import type { HubStore, IngestCompliance } from "./store/store.js";
import { tokenHash } from "./tokens.js";
import type { KeyTrust } from "./trust.js";
import { handleWeb, isWebPath } from "./web/handler.js";

export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

export interface HubServerOptions {
  readonly store: HubStore;
  readonly pair: KeyPair;
  readonly trust: KeyTrust;
  readonly logger: Logger;
  readonly maxBodyBytes?: number;
  readonly version?: string;
  /** Rudder's configuration: runs of its nodes get Rudder compliance (compliance.ts). */
  readonly rudder?: RudderConfig;
}

export interface RunningHub {
  readonly host: string;
  readonly port: number;
  /** Reports stored, duplicates and refused reports since the start. */
  readonly stats: HubStats;
  close(): Promise<void>;
}

export interface HubStats {
  stored: number;
  duplicate: number;
  refused: number;
}

/** Why a request is refused: the HTTP status, a stable code, and the message. */
export type RefusalCode =
  | "malformed"
  | "invalid"
  | "too-large"
  | "encoding"
  | "no-certificate"
  | "untrusted"
  | "forged"
  | "replay"
  | "unavailable"
  | "token"
  | "not-found"
  | "method";

class Refusal {
  constructor(
    readonly status: number,
    readonly code: RefusalCode,
    readonly error: string,
  ) {}
}

function send(response: ServerResponse, status: number, body: object): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
  });
  response.end(text);
}

/** Reads the body up to `max` bytes; a Refusal 413 past it. */
function readBody(request: IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = request.headers["content-length"];
    if (declared !== undefined && Number(declared) > max) {
      reject(new Refusal(413, "too-large", `the report is larger than the hub takes (${max} bytes)`));
      return;
    }
    const parts: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        reject(new Refusal(413, "too-large", `the report is larger than the hub takes (${max} bytes)`));
        request.pause();
        return;
      }
      parts.push(chunk);
    });
    request.once("end", () => resolve(Buffer.concat(parts)));
    request.once("error", (error) =>
      reject(new Refusal(400, "malformed", `reading the report: ${error.message}`)),
    );
    request.once("aborted", () =>
      reject(new Refusal(400, "malformed", "the node closed the connection mid-report")),
    );
  });
}

/** The peer's key from its certificate, or a Refusal. */
function peerKey(request: IncomingMessage) {
  const socket = request.socket as TLSSocket;
  const cert = socket.getPeerX509Certificate?.();
  if (!cert)
    throw new Refusal(
      401,
      "no-certificate",
      "a client certificate (the node's key) is required to send reports",
    );
  const key = cert.publicKey.type === "public" ? cert.publicKey : createPublicKey(cert.publicKey);
  if (key.asymmetricKeyType !== "rsa")
    throw new Refusal(403, "untrusted", "the client's key is not an RSA key");
  return key;
}

function parseReport(body: Buffer): NodeReport {
  let value: unknown;
  try {
    value = JSON.parse(body.toString("utf8"));
  } catch (error) {
    throw new Refusal(400, "malformed", `malformed JSON: ${(error as Error).message}`);
  }
  const problems = validateNodeReport(value);
  if (problems.length > 0) throw new Refusal(400, "invalid", `not a node report: ${problems.join("; ")}`);
  return value as NodeReport;
}

/** The report's Rudder compliance, when the hub has a configuration naming its node. */
function compliance(report: NodeReport, options: HubServerOptions): { compliance?: IngestCompliance } {
  if (!options.rudder) return {};
  try {
    const result = rudderComplianceOf(options.rudder, report);
    return result ? { compliance: result } : {};
  } catch (error) {
    // A fault in computing compliance must not lose the report: it is stored without.
    options.logger.error(`Compliance of run ${report.runId} failed: ${(error as Error).message}`);
    return {};
  }
}

async function ingest(request: IncomingMessage, options: HubServerOptions, stats: HubStats) {
  const address = peerAddress(request.socket);
  const key = peerKey(request);
  const digest = keyDigest(key);
  const encoding = request.headers["content-encoding"];
  if (encoding !== undefined && encoding !== "identity")
    throw new Refusal(
      415,
      "encoding",
      `content encoding '${encoding}' is not taken; send the report as it is`,
    );
  if (options.trust.decide(key, digest, address) === "untrusted")
    throw new Refusal(
      403,
      "untrusted",
      `untrusted key ${digest}: the hub does not trust this node (trust its key, or add its address to --trust-keys-from)`,
    );
  const body = await readBody(request, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  const report = parseReport(body);
  if (report.node.id !== digest) {
    options.logger.warning(
      `Forged report refused: ${address} with key ${digest} sent run ${report.runId} as ${report.node.id}`,
    );
    throw new Refusal(
      403,
      "forged",
      `forged report: node.id ${report.node.id} is not the sender's key ${digest}`,
    );
  }
  const meta = {
    digest: createHash("sha256").update(body).digest("hex"),
    publicKey: publicKeyPem(key),
    address,
    receivedAt: new Date(),
    ...compliance(report, options),
  };
  let result: Awaited<ReturnType<HubStore["ingest"]>>;
  try {
    result = await options.store.ingest(report, meta);
  } catch (error) {
    options.logger.error(`Storing run ${report.runId} of ${digest} failed: ${(error as Error).message}`);
    throw new Refusal(503, "unavailable", "the hub could not store the report now; send it again later");
  }
  if (result === "conflict") {
    options.logger.warning(
      `Replayed run id refused: ${report.runId} from ${digest} (${address}) differs from the stored run`,
    );
    throw new Refusal(409, "replay", `run ${report.runId} is stored already with other content (a replay?)`);
  }
  stats[result]++;
  options.logger.verbose(
    `Run ${report.runId} of ${report.node.name} (${digest}) ${result}: ${report.run.promises.length} results`,
  );
  return { status: result === "stored" ? 201 : 200, body: { result, runId: report.runId } };
}

function requestUrl(path: string): URL {
  try {
    return new URL(`https://hub.invalid${path.startsWith("/") ? "" : "/"}${path}`);
  } catch {
    throw new Refusal(400, "malformed", "the request's path is not a URL path");
  }
}

async function route(
  request: IncomingMessage,
  response: ServerResponse,
  options: HubServerOptions,
  stats: HubStats,
): Promise<void> {
  const url = requestUrl(request.url ?? "/");
  if (url.pathname === "/v1/reports") {
    if (request.method !== "POST") throw new Refusal(405, "method", "send reports with POST");
    const { status, body } = await ingest(request, options, stats);
    send(response, status, body);
    return;
  }
  if (url.pathname === "/health") {
    send(response, 200, { status: "ok", database: options.store.kind, version: options.version ?? "" });
    return;
  }
  if (url.pathname.startsWith("/api/")) {
    if (request.method !== "GET" && request.method !== "HEAD")
      throw new Refusal(405, "method", "the API is read-only (GET)");
    const auth = request.headers.authorization ?? "";
    const token = /^Bearer ([\x21-\x7e]{1,512})$/.exec(auth)?.[1];
    if (!token || !(await options.store.tokenValid(tokenHash(token))))
      throw new Refusal(
        401,
        "token",
        "a valid read token is required (Authorization: Bearer TOKEN; see tend hub token create)",
      );
    const answer = await handleApi(options.store, url);
    if (!answer) throw new Refusal(404, "not-found", `no such API resource: ${url.pathname}`);
    send(response, 200, answer);
    return;
  }
  if (isWebPath(url.pathname)) return handleWeb(request, response, options.store, url);
  throw new Refusal(404, "not-found", `nothing here: ${url.pathname}`);
}

/** Starts listening on `host`:`port` (0 picks a free port). */
export function startHubServer(
  options: HubServerOptions,
  listen: { host: string; port: number },
): Promise<RunningHub> {
  const stats: HubStats = { stored: 0, duplicate: 0, refused: 0 };
  const inFlight = new Set<Promise<void>>();
  const server = https.createServer({
    ...tlsServerOptions(options.pair),
    maxHeaderSize: 16384,
    requestTimeout: 120_000,
    headersTimeout: 30_000,
    keepAliveTimeout: 5_000,
  });
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    const work = route(request, response, options, stats)
      .catch((error: unknown) => {
        // Refused reports are counted; a browser's missing favicon is not one.
        if (request.url?.startsWith("/v1/reports")) stats.refused++;
        if (error instanceof Refusal) {
          if (error.status === 413 || error.status === 400)
            options.logger.info(`Refused from ${peerAddress(request.socket)}: ${error.error}`);
          send(response, error.status, { error: error.error, code: error.code });
          // The rest of a refused body is not read: the connection goes with it.
          if (!request.complete) response.once("finish", () => request.socket.destroy());
          return;
        }
        options.logger.error(`Request failed: ${(error as Error).message}`);
        send(response, 500, { error: "internal error" });
      })
      .finally(() => inFlight.delete(work));
    inFlight.add(work);
  });
  server.on("tlsClientError", (error) => options.logger.debug(`TLS: ${error.message}`));
  server.on("clientError", (_error, socket) => socket.destroy());
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.host, () => {
      server.off("error", reject);
      const address = server.address() as AddressInfo;
      resolve({
        host: address.address,
        port: address.port,
        stats,
        async close() {
          const closed = new Promise<void>((done) => server.close(() => done()));
          // In-flight reports finish (and commit) before their connections go.
          while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
          server.closeAllConnections();
          await closed;
        },
      });
    });
  });
}
