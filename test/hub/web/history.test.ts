/**
 * What the web pages read beyond the API's first calls, on both drivers:
 * the store's runs per UTC day (history) for the fleet and one node, and
 * the fleet page itself, which must come out the same from SQLite and from
 * PostgreSQL (a throwaway cluster, or skipped with the reason).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { HubStore } from "../../../src/hub/store/store.js";
import { DEFAULT_PAGE_OPTIONS, fleetPage, nodePage } from "../../../src/hub/web/pages.js";
import { databaseUnavailable, makeDatabase, type TestDatabase } from "../harness.js";
import { fillFleet, type NodeKind } from "./fill.js";

const NOW = new Date("2026-11-20T12:00:00Z");
const NODES = 8;
const DAYS = 6;
const pgReason = databaseUnavailable("postgres");
const dbs: TestDatabase[] = [];
const stores: Record<string, HubStore> = {};
let ids: Record<NodeKind, string[]>;

before(async () => {
  for (const kind of pgReason ? (["sqlite"] as const) : (["sqlite", "postgres"] as const)) {
    const db = makeDatabase(kind);
    dbs.push(db);
    const store = await db.open();
    stores[kind] = store;
    ids = await fillFleet(store, { nodes: NODES, days: DAYS, promises: 10, now: NOW, hostile: true });
  }
});

after(async () => {
  for (const store of Object.values(stores)) await store.close().catch(() => {});
  for (const db of dbs) db.stop();
});

test("history sums runs and outcomes per UTC day", async () => {
  for (const [kind, store] of Object.entries(stores)) {
    const days = await store.history(new Date(NOW.getTime() - DAYS * 86_400_000));
    assert.equal(days.length, DAYS, kind);
    assert.equal(days.at(-1)?.day, "2026-11-20", kind);
    // Today: 2 kept, 2 repaired, 2 failed nodes ran (the stale ones stopped 3 days ago).
    assert.deepEqual(days.at(-1), { day: "2026-11-20", runs: 6, kept: 48, repaired: 8, notKept: 4 }, kind);
    assert.equal(
      days.reduce((n, d) => n + d.runs, 0),
      6 * DAYS + 2 * (DAYS - 3),
      kind,
    );
    const one = await store.history(new Date(NOW.getTime() - DAYS * 86_400_000), ids.stale[0]);
    assert.equal(one.length, DAYS - 3, kind);
    assert.ok(one.every((d) => d.runs === 1));
  }
});

test("the fleet and node pages are the same on SQLite and PostgreSQL", async (t) => {
  if (pgReason) return t.skip(pgReason);
  const options = { ...DEFAULT_PAGE_OPTIONS, now: NOW };
  const url = new URL("https://hub.invalid/ui/");
  const [sqlite, postgres] = [stores.sqlite, stores.postgres] as HubStore[];
  assert.ok(sqlite && postgres);
  assert.equal(await fleetPage(postgres, url, options), await fleetPage(sqlite, url, options));
  const node = ids.failed[0] ?? "";
  const a = await nodePage(sqlite, node, url, options);
  const b = await nodePage(postgres, node, url, options);
  // Run ids are random per fill; everything else is the same.
  const strip = (html: string | undefined) => html?.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, "RUN");
  assert.equal(strip(b), strip(a));
});
