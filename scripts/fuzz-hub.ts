/**
 * The hub's fuzzer at full size: `tend hub` (the built CLI, on SQLite) and
 * 100,000 malformed inputs (test/hub/fuzz-run.ts) from a trusted node.
 * Fails when the hub answers 500, answers outside its refusals, dies, or
 * stores anything but the inputs it answered 201 to.
 *
 *   npx tsc -p . && node scripts/bundle.js && node dist/scripts/fuzz-hub.js [--inputs N] [--seed S]
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { fuzzHub } from "../test/hub/fuzz-run.js";
import { keyedWorkdir, makeDatabase, simNode, startHubProcess, tempDir } from "../test/hub/harness.js";

const { values } = parseArgs({
  options: { inputs: { type: "string", default: "100000" }, seed: { type: "string", default: "1" } },
});
const total = Number(values.inputs);
const root = tempDir("hub-fuzz");
const db = makeDatabase("sqlite");
const hubDir = keyedWorkdir(join(root, "hub"));
const hub = await startHubProcess([
  "-w",
  hubDir.dir,
  "-p",
  "0",
  "--database",
  db.spec,
  "--max-report-size",
  "65536",
]);
const node = simNode(hubDir.ppkeys, hubDir.pair, join(root, "node"));
const started = Date.now();
let failed = false;
try {
  const summary = await fuzzHub(node, hub.port, total, Number(values.seed), 8);
  const alive = hub.child.exitCode === null && hub.child.signalCode === null;
  const exit = await hub.stop("SIGTERM");
  const store = await db.open();
  const ids = (await store.runIds()).sort();
  await store.close();
  const expected = [...summary.storedRunIds].sort();
  const same = ids.length === expected.length && ids.every((id, i) => id === expected[i]);
  failed = !alive || exit !== 0 || summary.unexpected.length > 0 || !same;
  console.log(
    `${summary.inputs} inputs in ${((Date.now() - started) / 1000).toFixed(0)} s; answers: ${JSON.stringify(summary.byStatus)}`,
  );
  console.log(
    `hub alive to the end: ${alive}; exit on SIGTERM: ${exit}; stored = answered 201: ${same} (${ids.length})`,
  );
  for (const line of summary.unexpected) console.log(`unexpected: ${line}`);
  console.log(failed ? "FAILED" : "OK");
} finally {
  await hub.stop("SIGKILL");
  db.stop();
  rmSync(root, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
