/**
 * The "nothing lost" run at full size: 50 simulated nodes sending
 * while `tend hub` is killed with SIGKILL 200 times, on SQLite and then on
 * PostgreSQL (a throwaway cluster); every spooled report must be stored
 * exactly once. test/hub/kill.test.ts runs the same, smaller.
 *
 *   npx tsc -p . && node scripts/bundle.js && node dist/scripts/hub-kill.js [--nodes N] [--kills K] [--only sqlite|postgres]
 */
import { parseArgs } from "node:util";
import { startPgServer } from "../test/providers/databases/pg-server.js";
import { type DatabaseKind, databaseUnavailable, makeDatabase } from "../test/hub/harness.js";
import { killRun } from "../test/hub/kill-run.js";

const { values } = parseArgs({
  options: {
    nodes: { type: "string", default: "50" },
    kills: { type: "string", default: "200" },
    only: { type: "string" },
  },
});
let failed = false;
for (const kind of ["sqlite", "postgres"] as DatabaseKind[]) {
  if (values.only && values.only !== kind) continue;
  const unavailable = databaseUnavailable(kind);
  if (unavailable) {
    console.log(`${kind}: skipped: ${unavailable}`);
    continue;
  }
  const pg = kind === "postgres" ? startPgServer() : undefined;
  const db = makeDatabase(kind, pg);
  try {
    const result = await killRun({
      database: db.spec,
      open: db.open,
      nodes: Number(values.nodes),
      kills: Number(values.kills),
      progress: (text) => console.log(`${kind}: ${text}`),
    });
    const ok =
      result.missing.length === 0 &&
      result.unexpected.length === 0 &&
      result.incomplete.length === 0 &&
      result.stored === result.spooled;
    failed ||= !ok;
    console.log(
      `${kind}: ${ok ? "OK" : "FAILED"}: ${result.kills} kills, ${result.spooled} reports spooled, ${result.stored} stored, ` +
        `${result.missing.length} lost, ${result.unexpected.length} unexpected, ${result.incomplete.length} incomplete, ` +
        `${result.refusedByHub} refused, ${result.seconds.toFixed(1)} s`,
    );
  } finally {
    db.stop();
    pg?.stop();
  }
}
process.exit(failed ? 1 : 0);
