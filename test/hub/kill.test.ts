/**
 * Nothing lost, nothing doubled: `tend hub` killed with SIGKILL at random
 * moments while simulated nodes send, on SQLite and on PostgreSQL (a
 * throwaway cluster; skipped with the reason when PostgreSQL is not
 * installed). Small here (10 nodes, 12 kills each); scripts/hub-kill.ts
 * runs the size (50 nodes, 200 kills).
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import type { PgServer } from "../providers/databases/pg-server.js";
import { startPgServer } from "../providers/databases/pg-server.js";
import { databaseUnavailable, makeDatabase, type DatabaseKind } from "./harness.js";
import { killRun } from "./kill-run.js";

let pg: PgServer | undefined;
after(() => pg?.stop());

for (const kind of ["sqlite", "postgres"] as DatabaseKind[]) {
  test(`SIGKILLed hub on ${kind}: every spooled report stored exactly once`, {
    skip: databaseUnavailable(kind),
  }, async () => {
    if (kind === "postgres") pg ??= startPgServer();
    const db = makeDatabase(kind, pg);
    try {
      const result = await killRun({ database: db.spec, open: db.open, nodes: 10, kills: 12 });
      assert.ok(result.spooled > 20, `only ${result.spooled} reports were spooled`);
      assert.deepEqual(result.missing, [], "lost");
      assert.deepEqual(result.unexpected, [], "stored but never spooled");
      assert.deepEqual(result.incomplete, [], "stored in part");
      assert.equal(result.stored, result.spooled);
      assert.equal(result.refusedByHub, 0);
    } finally {
      db.stop();
    }
  });
}
