/**
 * The hub's fuzzer: malformed bodies (mutated reports: bytes flipped,
 * truncated, values of the wrong type, keys removed, forged identities,
 * replayed run ids with other content, bad UTF-8, deep nesting), headers
 * (methods, paths, encodings, chunked bodies, tokens) and raw HTTP (lengths
 * that lie, garbage request lines, oversized headers) against a hub, from
 * a trusted node's key. The hub must answer each with one of its refusals
 * (or close a connection that is not HTTP), never 500, never crash; and
 * what it stores must be exactly the inputs it answered 201 to.
 * Deterministic for a seed. Shared by test/hub/fuzz.test.ts (a few
 * thousand inputs) and scripts/fuzz-hub.ts (100,000 and more).
 */
import http from "node:http";
import tls from "node:tls";
import { privateKeyPem } from "../../src/net/keys.js";
import { fakeNodeId } from "./generate.js";
import type { SimNode } from "./harness.js";
import { HubAgent } from "../../src/reporting/send.js";

/** A small deterministic generator (mulberry32). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rng = () => number;
const pick = <T>(rng: Rng, list: readonly T[]): T => list[Math.floor(rng() * list.length)] as T;

const ODD_VALUES: readonly unknown[] = [
  null,
  0,
  -1,
  1e308,
  Number.MAX_SAFE_INTEGER + 2,
  1.5,
  "",
  "x".repeat(70000),
  "\u0000",
  "\ud800",
  [],
  {},
  [[[[[]]]]],
  { "": 1 },
  true,
  "2026-13-45T99:99:99Z",
  "MD5=",
];

function pathsOf(
  value: unknown,
  prefix: (string | number)[] = [],
  out: (string | number)[][] = [],
): (string | number)[][] {
  if (out.length > 400) return out;
  if (Array.isArray(value))
    value.slice(0, 5).forEach((v, i) => {
      pathsOf(v, [...prefix, i], out);
    });
  else if (typeof value === "object" && value !== null)
    for (const [k, v] of Object.entries(value)) {
      out.push([...prefix, k]);
      pathsOf(v, [...prefix, k], out);
    }
  return out;
}

function setAt(root: unknown, path: (string | number)[], value: unknown, remove = false): void {
  let node = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path.at(-1) as string | number;
  if (remove) delete node[last];
  else node[last] = value;
}

export type FuzzInput =
  | { kind: "request"; method: string; path: string; headers: Record<string, string | number>; body: Buffer }
  | { kind: "raw"; bytes: Buffer };

/** The `i`th input; `valid()` gives a fresh valid report of the node. */
export function makeInput(rng: Rng, node: SimNode, stored: readonly string[]): FuzzInput {
  const report = JSON.parse(JSON.stringify(node.report(3))) as Record<string, unknown>;
  const post = (body: Buffer | string, headers: Record<string, string | number> = {}): FuzzInput => {
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
    return {
      kind: "request",
      method: "POST",
      path: "/v1/reports",
      headers: { "content-type": "application/json", "content-length": bytes.length, ...headers },
      body: bytes,
    };
  };
  const r = rng();
  const text = JSON.stringify(report);
  if (r < 0.15) {
    const bytes = Buffer.from(text);
    for (let n = 1 + Math.floor(rng() * 4); n > 0; n--)
      bytes[Math.floor(rng() * bytes.length)] = Math.floor(rng() * 256);
    return post(bytes);
  }
  if (r < 0.25) return post(text.slice(0, Math.floor(rng() * text.length)));
  if (r < 0.45) {
    const paths = pathsOf(report);
    setAt(report, pick(rng, paths), pick(rng, ODD_VALUES), rng() < 0.3);
    return post(JSON.stringify(report));
  }
  if (r < 0.5) {
    (report.node as Record<string, unknown>).id = fakeNodeId(Math.floor(rng() * 1000));
    return post(JSON.stringify(report));
  }
  if (r < 0.55 && stored.length > 0) {
    report.runId = pick(rng, stored);
    return post(JSON.stringify(report));
  }
  if (r < 0.6) return post(JSON.stringify(report)); // valid: stored
  if (r < 0.65)
    return post(
      pick(rng, [
        "",
        "null",
        "[]",
        "1",
        '"x"',
        "{",
        `${"[".repeat(100000)}`,
        "\u00ff\u00fe",
        `{"version":1${',"a":1'.repeat(1000)}}`,
      ]),
    );
  if (r < 0.7) return post(Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1]));
  if (r < 0.8) {
    const method = pick(rng, ["GET", "PUT", "DELETE", "PATCH", "OPTIONS", "POST", "HEAD"]);
    const path = pick(rng, [
      "/v1/reports",
      "/v1/reports/../../etc/passwd",
      "/api/v1/nodes",
      "/api/v1/runs/%00",
      "/api/v1/nodes/%E0%A4%A",
      `/api/v1/${"a/".repeat(500)}`,
      "/health?x=1",
      "//",
      "/%",
      "*",
    ]);
    const headers: Record<string, string | number> = {};
    if (rng() < 0.5)
      headers.authorization = pick(rng, [
        "Bearer ",
        "Bearer x",
        "Basic Zm9v",
        `Bearer ${"t".repeat(600)}`,
        "Bearer tend_\u00e9",
      ]);
    if (rng() < 0.5) headers["content-encoding"] = pick(rng, ["gzip", "br", "identity", "x"]);
    if (rng() < 0.3)
      headers["content-type"] = pick(rng, ["text/plain", "application/json; charset=latin1", ""]);
    const body = Buffer.from(method === "GET" || method === "HEAD" ? "" : text);
    return { kind: "request", method, path, headers: { ...headers, "content-length": body.length }, body };
  }
  // Raw bytes on a connection of their own: lengths that lie, garbage, oversized headers.
  const body = Buffer.from(text);
  const raw = pick(rng, [
    () => `POST /v1/reports HTTP/1.1\r\nHost: h\r\nContent-Length: ${body.length + 100}\r\n\r\n${text}`,
    () => `POST /v1/reports HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\n${text}`,
    () => `POST /v1/reports HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n${text}`,
    () => `POST /v1/reports HTTP/1.1\r\nHost: h\r\nContent-Length: 1e3\r\n\r\n${text}`,
    () => `POST /v1/reports HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999\r\n\r\n`,
    () =>
      `POST /v1/reports HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n5\r\nabcde\r\n0\r\n\r\n`,
    () => `POST /v1/reports HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`,
    () => `POST /v1/reports HTTP/1.1\r\nHost: h\r\nX: ${"a".repeat(20000)}\r\n\r\n`,
    () => `${"GARBAGE ".repeat(Math.floor(rng() * 100))}\r\n\r\n`,
    () => `POST /v1/reports HTTP/9.9\r\n\r\n`,
    () => "\r\n\r\n\r\n",
    () => `POST /v1/reports HTTP/1.1\r\nHost: h\r\n${"H: v\r\n".repeat(3000)}\r\n`,
    () =>
      `POST /v1/reports HTTP/1.1\r\nHost: h\r\nContent-Length: ${body.length}\r\n\r\n${text}POST /v1/reports HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}`,
    () => String.fromCharCode(...Array.from({ length: 64 }, () => Math.floor(rng() * 256))),
  ])();
  return { kind: "raw", bytes: Buffer.from(raw, "latin1") };
}

/** Statuses the hub may answer bad input with. */
const EXPECTED = new Set([200, 201, 400, 401, 403, 404, 405, 409, 413, 415, 431]);

export interface FuzzSummary {
  inputs: number;
  byStatus: Record<string, number>;
  unexpected: string[];
  /** Run ids the hub answered 201 to. */
  storedRunIds: string[];
}

function sendRequest(input: Extract<FuzzInput, { kind: "request" }>, agent: HubAgent, port: number) {
  return new Promise<{ status: number | "closed"; body: string }>((resolve) => {
    const request = http.request(
      {
        host: "127.0.0.1",
        port,
        method: input.method,
        path: input.path,
        headers: input.headers,
        agent,
        timeout: 20000,
      },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (c) => (body += c));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
        response.on("error", () => resolve({ status: "closed", body }));
      },
    );
    request.on("error", () => resolve({ status: "closed", body: "" }));
    request.on("timeout", () => request.destroy());
    request.end(input.body);
  });
}

function sendRaw(bytes: Buffer, node: SimNode, port: number) {
  return new Promise<{ status: number | "closed"; body: string }>((resolve) => {
    const options = node.options(port);
    const socket = tls.connect({
      host: "127.0.0.1",
      port,
      key: privateKeyPem(options.pair),
      cert: options.certificate,
      rejectUnauthorized: false,
    });
    let text = "";
    const done = () => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      resolve({ status: status ? Number(status) : "closed", body: text });
      socket.destroy();
    };
    socket.setTimeout(3000, done);
    socket.on("secureConnect", () => socket.end(bytes));
    socket.on("data", (c: Buffer) => {
      text += c.toString("latin1");
    });
    socket.on("close", done);
    socket.on("error", () => {});
  });
}

/** Sends `count` inputs from `node` (trusted by the hub on `port`), `parallel` at a time. */
export async function fuzzHub(
  node: SimNode,
  port: number,
  count: number,
  seed: number,
  parallel = 4,
): Promise<FuzzSummary> {
  const rng = random(seed);
  const summary: FuzzSummary = { inputs: 0, byStatus: {}, unexpected: [], storedRunIds: [] };
  const stored: string[] = [];
  let next = 0;
  const worker = async () => {
    const agent = new HubAgent(node.options(port));
    try {
      while (next < count) {
        next++;
        const input = makeInput(rng, node, stored);
        const answer =
          input.kind === "request"
            ? await sendRequest(input, agent, port)
            : await sendRaw(input.bytes, node, port);
        summary.inputs++;
        const key = String(answer.status);
        summary.byStatus[key] = (summary.byStatus[key] ?? 0) + 1;
        if (answer.status === 201) {
          const runId = /"runId":"([0-9a-f-]{36})"/.exec(answer.body)?.[1] ?? "?";
          stored.push(runId);
          summary.storedRunIds.push(runId);
        }
        if (answer.status !== "closed" && !EXPECTED.has(answer.status) && summary.unexpected.length < 20)
          summary.unexpected.push(
            `${answer.status} for ${input.kind === "raw" ? input.bytes.toString("latin1").slice(0, 120) : `${input.method} ${input.path} ${input.body.toString("latin1").slice(0, 120)}`}: ${answer.body.slice(0, 200)}`,
          );
      }
    } finally {
      agent.destroy();
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return summary;
}
