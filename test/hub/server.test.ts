/**
 * The hub's listener in process, on SQLite: what it stores and what it
 * refuses (malformed, schema, oversized, replayed, forged, untrusted, no
 * certificate), trust on first use by address, the read API behind its
 * tokens, health, and a close that lets a write in flight finish.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import https from "node:https";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createToken } from "../../src/hub/tokens.js";
import { keyDigest } from "../../src/net/keys.js";
import {
  makeDatabase,
  post,
  type SimNode,
  simNode,
  startTestHub,
  type TestDatabase,
  type TestHub,
  tempDir,
} from "./harness.js";

let db: TestDatabase;
let hub: TestHub;
let node: SimNode;
let stranger: SimNode;
let token: string;
const dir = tempDir("hub-server");

before(async () => {
  db = makeDatabase("sqlite");
  hub = await startTestHub(await db.open(), { maxBodyBytes: 200_000 });
  node = simNode(hub.workdir.ppkeys, hub.workdir.pair, join(dir, "node"));
  stranger = simNode(hub.workdir.ppkeys, hub.workdir.pair, join(dir, "stranger"), false);
  token = (await createToken(hub.store, "test")).token;
});

after(async () => {
  await hub?.close();
  await hub?.store.close();
  db?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function get(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    https
      .get(
        { host: "127.0.0.1", port: hub.hub.port, path, headers, rejectUnauthorized: false },
        (response) => {
          let text = "";
          response.on("data", (c) => (text += c));
          response.on("end", () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
        },
      )
      .on("error", reject);
  });
}

test("a report is stored, and sent again is taken as stored before", async () => {
  const report = node.report(5);
  assert.deepEqual(await post(report, node.options(hub.hub.port)), { kind: "stored", status: 201 });
  assert.deepEqual(await post(report, node.options(hub.hub.port)), { kind: "duplicate", status: 200 });
  assert.equal((await hub.store.run(report.runId))?.total, 5);
});

test("a replay under a stored run id with other content is refused (409) and not stored", async () => {
  const report = node.report(3);
  await post(report, node.options(hub.hub.port));
  const replay = { ...report, run: { ...report.run, exitCode: 1 } };
  const result = await post(replay, node.options(hub.hub.port));
  assert.equal(result.kind, "refused");
  assert.equal(result.status, 409);
  assert.equal((await hub.store.run(report.runId))?.exitCode, 0);
});

test("malformed JSON, schema violations and oversized bodies are refused with the reason", async () => {
  const options = node.options(hub.hub.port);
  const before = await hub.store.counts();
  const malformed = await post("{not json", options);
  assert.equal(malformed.status, 400);
  assert.match((malformed as { error: string }).error, /^malformed JSON: /);
  const bad = { ...node.report(1), started: "yesterday" };
  const schema = await post(bad, options);
  assert.equal(schema.status, 400);
  assert.match((schema as { error: string }).error, /started: expected an ISO 8601 time/);
  const big = await post(node.report(2000), options);
  assert.equal(big.status, 413);
  assert.deepEqual(await hub.store.counts(), before);
});

test("a report under another node's identity is refused as forged (403)", async () => {
  const report = {
    ...node.report(1),
    node: { id: keyDigest(stranger.pair.publicKey), name: "x", addresses: [] },
  };
  const result = await post(report, node.options(hub.hub.port));
  assert.equal(result.kind, "refused");
  assert.equal(result.status, 403);
  assert.match((result as { error: string }).error, /^forged report/);
  assert.equal(await hub.store.run(report.runId), undefined);
});

test("an untrusted key is refused (403); it is kept for retry, not set aside", async () => {
  const result = await post(stranger.report(1), stranger.options(hub.hub.port));
  assert.equal(result.kind, "retry");
  assert.equal(result.status, 403);
  assert.match((result as { error: string }).error, /untrusted key MD5=/);
});

test("a client without a certificate cannot send (401)", async () => {
  const status = await new Promise<number>((resolve, reject) => {
    const request = https.request(
      {
        host: "127.0.0.1",
        port: hub.hub.port,
        path: "/v1/reports",
        method: "POST",
        rejectUnauthorized: false,
      },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on("error", reject);
    request.end("{}");
  });
  assert.equal(status, 401);
});

test("a node whose key is unknown is trusted on first use when its address is in trustKeysFrom", async () => {
  const db2 = makeDatabase("sqlite");
  const open = await startTestHub(await db2.open(), { trustKeysFrom: ["127.0.0.0/8"] });
  try {
    const newcomer = simNode(undefined, open.workdir.pair, join(dir, "newcomer"));
    assert.equal((await post(newcomer.report(1), newcomer.options(open.hub.port))).kind, "stored");
  } finally {
    await open.close();
    await open.store.close();
    db2.stop();
  }
});

test("the read API needs a token and answers nodes, runs, results and lines", async () => {
  assert.equal((await get("/health")).body.status, "ok");
  assert.equal((await get("/api/v1/nodes")).status, 401);
  assert.equal((await get("/api/v1/nodes", { authorization: "Bearer tend_nope" })).status, 401);
  const auth = { authorization: `Bearer ${token}` };
  const report = node.report(10);
  await post(report, node.options(hub.hub.port));
  const nodes = (await get("/api/v1/nodes", auth)).body.nodes as { id: string; status: string }[];
  assert.deepEqual(
    nodes.map((n) => [n.id, n.status]),
    [[node.digest, "failed"]],
  );
  const detail = await get(`/api/v1/nodes/${encodeURIComponent(node.digest)}`, auth);
  assert.equal((detail.body.runs as unknown[]).length, 3);
  const results = await get(`/api/v1/runs/${report.runId}/results?outcome=failed`, auth);
  assert.deepEqual(
    (results.body.results as { outcome: string }[]).map((r) => r.outcome),
    ["failed", "failed"],
  );
  assert.equal(((await get(`/api/v1/runs/${report.runId}/lines`, auth)).body.lines as string[]).length, 2);
  assert.equal((await get("/api/v1/summary", auth)).body.nodesByStatus instanceof Object, true);
  assert.equal((await get("/api/v1/runs/00000000-0000-4000-8000-000000000000", auth)).status, 404);
  assert.equal((await get("/elsewhere")).status, 404);
});

test("close waits for the reports in flight", async () => {
  const db3 = makeDatabase("sqlite");
  const local = await startTestHub(await db3.open());
  const sender = simNode(local.workdir.ppkeys, local.workdir.pair, join(dir, "late"));
  const reports = Array.from({ length: 5 }, () => sender.report(200));
  const sending = reports.map((r) => post(r, sender.options(local.hub.port)));
  await new Promise((resolve) => setTimeout(resolve, 30));
  await local.close();
  const results = await Promise.all(sending);
  const stored = results.filter((r) => r.kind === "stored").length;
  assert.equal((await local.store.counts()).runs, stored, "every report answered 'stored' is in the store");
  await local.store.close();
  db3.stop();
});
