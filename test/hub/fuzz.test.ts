/**
 * The fuzzer (fuzz-run.ts) against an in-process hub on SQLite, at a size
 * fit for the suite (scripts/fuzz-hub.ts runs 100,000 inputs and more):
 * every input answered with one of the hub's refusals or a closed
 * connection, no 500, and exactly the inputs answered 201 stored.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fuzzHub } from "./fuzz-run.js";
import { makeDatabase, simNode, startTestHub, tempDir } from "./harness.js";

test("1,500 malformed inputs: refused with the hub's codes, nothing bad stored, no crash", async () => {
  const db = makeDatabase("sqlite");
  const dir = tempDir("hub-fuzz");
  const hub = await startTestHub(await db.open(), { maxBodyBytes: 65536 });
  try {
    const node = simNode(hub.workdir.ppkeys, hub.workdir.pair, join(dir, "node"));
    const summary = await fuzzHub(node, hub.hub.port, 1500, 19);
    assert.deepEqual(summary.unexpected, []);
    assert.equal(summary.inputs, 1500);
    assert.ok((summary.byStatus["400"] ?? 0) > 300, JSON.stringify(summary.byStatus));
    assert.ok((summary.byStatus["201"] ?? 0) > 10, JSON.stringify(summary.byStatus));
    assert.ok((summary.byStatus["403"] ?? 0) > 10, JSON.stringify(summary.byStatus));
    assert.ok((summary.byStatus["409"] ?? 0) > 10, JSON.stringify(summary.byStatus));
    const ids = await hub.store.runIds();
    assert.deepEqual(ids.sort(), summary.storedRunIds.sort());
  } finally {
    await hub.close();
    await hub.store.close();
    db.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
