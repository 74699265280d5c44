/**
 * The hub's store on SQLite and on PostgreSQL (a throwaway cluster, or
 * skipped with the reason): migrations, idempotent ingest (duplicate and
 * conflicting copies of a run), retention keeping each node's latest run,
 * the read queries, tokens.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { openStore } from "../../src/hub/store/open.js";
import type { HubStore, IngestMeta } from "../../src/hub/store/store.js";
import type { NodeReport } from "../../src/reporting/report.js";
import { type PgServer, pgUnavailable, startPgServer } from "../providers/databases/pg-server.js";
import { fakeNodeId, generateReport } from "./generate.js";

function meta(report: NodeReport, receivedAt = new Date()): IngestMeta {
  const digest = createHash("sha256").update(JSON.stringify(report)).digest("hex");
  return { digest, publicKey: "-----BEGIN RSA PUBLIC KEY-----\n…", address: "127.0.0.1", receivedAt };
}

/** The same tests against each driver. */
function storeSuite(name: string, open: () => Promise<HubStore>, skip?: string) {
  describe(`store on ${name}`, { skip }, () => {
    let store: HubStore;
    before(async () => {
      store = await open();
    });
    after(async () => {
      await store?.close();
    });

    test("a report is stored once, a second copy is a duplicate, a changed copy a conflict", async () => {
      const report = generateReport({ nodeId: fakeNodeId(1), promises: 12 });
      assert.equal(await store.ingest(report, meta(report)), "stored");
      assert.equal(await store.ingest(report, meta(report)), "duplicate");
      const forged = { ...report, run: { ...report.run, exitCode: 1 } };
      assert.equal(await store.ingest(forged, meta(forged)), "conflict");
      const run = await store.run(report.runId);
      assert.equal(run?.exitCode, 0);
      assert.equal(run?.total, 12);
      assert.deepEqual([run?.kept, run?.repaired, run?.notKept], [8, 2, 2]);
      const results = await store.results(report.runId);
      assert.equal(results.length, 12);
      assert.deepEqual(
        results.slice(0, 4).map((r) => r.outcome),
        ["failed", "failed", "repaired", "repaired"],
      );
      assert.equal(results[0]?.message, "could not converge file-4");
      assert.equal((await store.results(report.runId, { outcomes: ["repaired"] })).length, 2);
      assert.equal((await store.lines(report.runId)).length, 2);
    });

    test("nodes show their latest run; runs come latest first", async () => {
      const id = fakeNodeId(2);
      const older = generateReport({ nodeId: id, name: "web-2", ended: new Date(Date.now() - 60000) });
      const newer = generateReport({ nodeId: id, name: "web-2", ended: new Date() });
      await store.ingest(newer, meta(newer));
      await store.ingest(older, meta(older));
      const node = await store.node(id);
      assert.equal(node?.name, "web-2");
      assert.deepEqual(node?.addresses, ["192.0.2.10"]);
      assert.equal(node?.lastRun?.runId, newer.runId);
      assert.deepEqual(
        (await store.runs(id, 10)).map((r) => r.runId),
        [newer.runId, older.runId],
      );
      assert.ok((await store.nodes()).some((n) => n.id === id));
    });

    test("retention prunes old runs but keeps each node's latest", async () => {
      const id = fakeNodeId(3);
      const day = 86400000;
      const reports = [40, 35, 31].map((d) =>
        generateReport({ nodeId: id, ended: new Date(Date.now() - d * day) }),
      );
      for (const r of reports) await store.ingest(r, meta(r));
      const recent = generateReport({ nodeId: fakeNodeId(4), ended: new Date(Date.now() - 40 * day) });
      await store.ingest(recent, meta(recent));
      const before = await store.counts();
      const pruned = await store.prune(new Date(Date.now() - 30 * day));
      assert.equal(pruned, 2);
      assert.deepEqual(
        (await store.runs(id, 10)).map((r) => r.runId),
        [reports[2]?.runId],
      );
      assert.equal((await store.runs(fakeNodeId(4), 10)).length, 1, "the only run of a node stays");
      const after = await store.counts();
      assert.equal(after.results, before.results - 20, "results go with their runs");
    });

    test("tokens are added, listed, checked and revoked", async () => {
      await store.addToken("t1", "ops", "hash-1", new Date());
      assert.equal(await store.tokenValid("hash-1"), true);
      assert.equal(await store.tokenValid("hash-2"), false);
      assert.deepEqual(
        (await store.tokens()).map((t) => [t.id, t.name, t.revoked]),
        [["t1", "ops", null]],
      );
      assert.equal(await store.revokeToken("t1", new Date()), true);
      assert.equal(await store.revokeToken("t1", new Date()), false);
      assert.equal(await store.tokenValid("hash-1"), false);
    });

    test("text with NUL and odd characters comes back (NUL as U+FFFD on PostgreSQL)", async () => {
      const report = generateReport({ nodeId: fakeNodeId(5), promises: 1 });
      const odd = { ...report, lines: ["R: é ✓ \u0000 '; DROP TABLE runs; --"] };
      assert.equal(await store.ingest(odd, meta(odd)), "stored");
      const [line] = await store.lines(report.runId);
      assert.match(line ?? "", /^R: é ✓ (\u0000|\ufffd) '; DROP TABLE runs; --$/);
    });
  });
}

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

storeSuite("SQLite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tend-hub-store-"));
  dirs.push(dir);
  const path = join(dir, "sub", "hub.db");
  // Opened twice: migrations already applied are not applied again.
  await (await openStore({ kind: "sqlite", target: path })).close();
  return openStore({ kind: "sqlite", target: path });
});

let pg: PgServer | undefined;
const pgSkip = pgUnavailable();
after(() => pg?.stop());
storeSuite(
  "PostgreSQL",
  async () => {
    pg = startPgServer();
    pg.sql("CREATE DATABASE hub");
    const url = `postgres://postgres@${encodeURIComponent(pg.socketDir)}/hub`;
    await (await openStore({ kind: "postgres", target: url })).close();
    return openStore({ kind: "postgres", target: url });
  },
  pgSkip,
);
