/**
 * The fleet's read model on SQLite and PostgreSQL (a throwaway cluster, or
 * skipped with the reason): each node's latest run and the per-day totals
 * kept by ingest (schema migration 2), the fleet query (counts by status,
 * filters, paging, failures first), retention keeping the latest run and
 * the daily totals, and migration 2 filling both from a version-1 database.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, describe, test } from "node:test";
import type { FleetQuery, HubStore, IngestMeta } from "../../src/hub/store/store.js";
import type { NodeReport, PromiseOutcome } from "../../src/reporting/report.js";
import { databaseUnavailable, makeDatabase, type TestDatabase } from "./harness.js";
import { fakeNodeId, generateReport } from "./generate.js";

const NOW = new Date("2026-11-20T12:00:00Z");
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function meta(report: NodeReport): IngestMeta {
  const digest = createHash("sha256").update(JSON.stringify(report)).digest("hex");
  return {
    digest,
    publicKey: "-----BEGIN PUBLIC KEY-----\n…",
    address: "192.0.2.1",
    receivedAt: new Date(report.ended),
  };
}

/** A report of node `n` ended at `ended`, its promises all `outcome` (4 of them). */
function report(n: number, name: string, ended: Date, outcome: PromiseOutcome): NodeReport {
  const base = generateReport({ nodeId: fakeNodeId(n), name, promises: 4, ended });
  return {
    ...base,
    run: { ...base.run, promises: base.run.promises.map(({ message: _, ...p }) => ({ ...p, outcome })) },
    lines: [],
  };
}

function query(extra: Partial<FleetQuery> = {}): FleetQuery {
  return { staleBefore: new Date(NOW.getTime() - HOUR), limit: 100, offset: 0, ...extra };
}

const dbs: TestDatabase[] = [];
after(() => {
  for (const db of dbs) db.stop();
});

for (const kind of ["sqlite", "postgres"] as const) {
  const reason = databaseUnavailable(kind);
  describe(`the fleet on ${kind}`, { skip: reason }, () => {
    let store: HubStore;
    test("ingest keeps each node's latest run, its status and the day's totals", async () => {
      const db = makeDatabase(kind);
      dbs.push(db);
      store = await db.open();
      const at = (h: number) => new Date(NOW.getTime() - h * HOUR);
      // Node 1: failed now, after an older kept run sent later (out of order).
      await store.ingest(...withMeta(report(1, "b-failed", at(0.5), "failed")));
      await store.ingest(...withMeta(report(1, "b-failed", at(5), "kept")));
      // Node 2: repaired now; node 3: kept now; node 4: kept, but last seen 2 days ago (stale).
      await store.ingest(...withMeta(report(2, "c-repaired", at(0.2), "repaired")));
      await store.ingest(...withMeta(report(3, "a-kept", at(0.1), "kept")));
      await store.ingest(...withMeta(report(4, "d-stale", at(48), "kept")));
      // Node 5: failed, 3 days ago: a failed node stays failed, not stale.
      await store.ingest(...withMeta(report(5, "e-old-failure", at(72), "failed")));
      // A duplicate changes nothing.
      const twice = report(6, "f_100%", at(0.3), "kept");
      assert.equal(await store.ingest(...withMeta(twice)), "stored");
      assert.equal(await store.ingest(...withMeta(twice)), "duplicate");

      const fleet = await store.fleet(query());
      assert.deepEqual(fleet.counts, { failed: 2, stale: 1, repaired: 1, "no-run": 0, kept: 2 });
      assert.equal(fleet.total, 6);
      assert.equal(fleet.matching, 6);
      assert.deepEqual(
        fleet.nodes.map((n) => [n.node.name, n.status]),
        [
          ["b-failed", "failed"],
          ["e-old-failure", "failed"],
          ["d-stale", "stale"],
          ["c-repaired", "repaired"],
          ["a-kept", "kept"],
          ["f_100%", "kept"],
        ],
      );
      const first = fleet.nodes[0]?.node;
      assert.equal(first?.lastRun?.notKept, 4, "the latest run, not the one sent last");
      assert.equal(first?.lastRun?.ended, at(0.5).toISOString());
      assert.equal((await store.node(fakeNodeId(1)))?.lastRun?.runId, first?.lastRun?.runId);

      const days = await store.history(new Date(NOW.getTime() - 3 * DAY));
      assert.deepEqual(
        days.map((d) => [d.day, d.runs, d.kept, d.repaired, d.notKept]),
        [
          ["2026-11-17", 1, 0, 0, 4],
          ["2026-11-18", 1, 4, 0, 0],
          ["2026-11-20", 5, 12, 4, 4],
        ],
      );
    });

    test("filters by status and text, with LIKE's characters taken literally; pages", async () => {
      assert.deepEqual(
        (await store.fleet(query({ status: "kept" }))).nodes.map((n) => n.node.name),
        ["a-kept", "f_100%"],
      );
      const text = await store.fleet(query({ text: "_100%" }));
      assert.equal(text.matching, 1);
      assert.deepEqual(
        text.nodes.map((n) => n.node.name),
        ["f_100%"],
      );
      assert.equal((await store.fleet(query({ text: "B-FAIL" }))).matching, 1, "case-insensitive");
      assert.equal((await store.fleet(query({ text: fakeNodeId(3).slice(-6) }))).matching, 1, "by id");
      const page = await store.fleet(query({ limit: 2, offset: 2 }));
      assert.equal(page.matching, 6);
      assert.deepEqual(
        page.nodes.map((n) => n.node.name),
        ["d-stale", "c-repaired"],
      );
      assert.equal((await store.fleet(query({ limit: 0 }))).nodes.length, 0);
    });

    test("retention keeps each node's latest run and the daily totals", async () => {
      const pruned = await store.prune(new Date(NOW.getTime() - 2 * HOUR));
      // Node 1's older run (5 h) goes; nodes 4 and 5 keep their only (latest) runs.
      assert.equal(pruned, 1);
      const fleet = await store.fleet(query());
      assert.equal(fleet.counts.failed, 2);
      assert.equal(fleet.nodes.find((n) => n.node.name === "d-stale")?.node.lastRun?.kept, 4);
      const days = await store.history(new Date(NOW.getTime() - 3 * DAY));
      assert.equal(
        days.reduce((n, d) => n + d.runs, 0),
        7,
        "the daily totals outlive the pruned run",
      );
      // A node's own history is from its stored runs.
      assert.equal((await store.history(new Date(NOW.getTime() - 3 * DAY), fakeNodeId(1)))[0]?.runs, 1);
      await store.close();
    });

    test("migration 2 fills the latest runs and daily totals of a version-1 database", async () => {
      const db = makeDatabase(kind);
      dbs.push(db);
      await versionOne(db, kind);
      const migrated = await db.open();
      try {
        const fleet = await migrated.fleet(query());
        assert.deepEqual(fleet.counts, { failed: 1, stale: 0, repaired: 0, "no-run": 1, kept: 0 });
        assert.equal(fleet.nodes[0]?.node.lastRun?.runId, "run-new");
        const days = await migrated.history(new Date(NOW.getTime() - 2 * DAY));
        assert.deepEqual(
          days.map((d) => [d.day, d.runs, d.notKept]),
          [
            ["2026-11-19", 1, 0],
            ["2026-11-20", 1, 3],
          ],
        );
        // Ingest goes on from there.
        assert.equal(await migrated.ingest(...withMeta(report(9, "n1", NOW, "kept"))), "stored");
        assert.equal((await migrated.history(new Date(NOW.getTime() - DAY))).at(-1)?.runs, 2);
      } finally {
        await migrated.close();
      }
    });
  });
}

function withMeta(r: NodeReport): [NodeReport, IngestMeta] {
  return [r, meta(r)];
}

/** Writes a version-1 database by hand: schema 1, two nodes (one without runs), two runs of node 9. */
async function versionOne(db: TestDatabase, kind: "sqlite" | "postgres"): Promise<void> {
  const { migrations, MIGRATIONS_TABLE } = await import("../../src/hub/store/schema.js");
  const statements = [MIGRATIONS_TABLE, ...(migrations(kind)[0]?.statements ?? [])];
  statements.push(
    "INSERT INTO hub_migrations (version, applied) VALUES (1, '2026-01-01T00:00:00Z')",
    `INSERT INTO nodes (id, name, addresses, public_key, first_seen, last_seen) VALUES
      ('${fakeNodeId(9)}', 'n1', '[]', 'k', '2026-11-19T00:00:00Z', '${NOW.toISOString()}'),
      ('${fakeNodeId(10)}', 'n2', '[]', 'k', '${NOW.toISOString()}', '${NOW.toISOString()}')`,
    `INSERT INTO runs (run_id, node_id, front_end, started, ended, received, exit_code, outcome, kept, repaired,
      not_kept, total, policy, policy_release, address, digest) VALUES
      ('run-old', '${fakeNodeId(9)}', 'agent', '2026-11-19T10:00:00.000Z', '2026-11-19T10:00:00.000Z',
        '2026-11-19T10:00:00.000Z', 0, 'kept', 5, 0, 0, 5, 'p', NULL, 'a', 'd1'),
      ('run-new', '${fakeNodeId(9)}', 'agent', '2026-11-20T11:00:00.000Z', '2026-11-20T11:00:00.000Z',
        '2026-11-20T11:00:00.000Z', 1, 'failed', 2, 0, 3, 5, 'p', NULL, 'a', 'd2')`,
  );
  if (kind === "sqlite") {
    const { createRequire } = await import("node:module");
    const Database = createRequire(import.meta.url)("better-sqlite3") as typeof import("better-sqlite3");
    const path = db.spec.slice("sqlite:".length);
    const { mkdirSync } = await import("node:fs");
    const { dirname } = await import("node:path");
    mkdirSync(dirname(path), { recursive: true });
    const handle = new Database(path);
    for (const s of statements) handle.exec(s);
    handle.close();
    return;
  }
  const { createRequire } = await import("node:module");
  const { Client } = createRequire(import.meta.url)("pg") as typeof import("pg");
  const client = new Client({ connectionString: db.spec });
  await client.connect();
  try {
    for (const s of statements) await client.query(s);
  } finally {
    await client.end();
  }
}
