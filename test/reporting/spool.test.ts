/**
 * The node side: settings (off unless a hub is named; the policy server by
 * default), the spool (atomic files named oldest first, bounded by count
 * and age), and sending it to a hub: oldest first, kept when the hub is
 * away, set aside when refused for good.
 */
import assert from "node:assert/strict";
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { sendSpooled } from "../../src/reporting/send.js";
import { parseHubAddress, readReportingSettings } from "../../src/reporting/settings.js";
import { listSpool, spoolPaths, spoolReport } from "../../src/reporting/spool.js";
import { Logger, silentLogger } from "../../src/system/logger.js";
import { fakeNodeId, generateReport } from "../hub/generate.js";
import { makeDatabase, simNode, startTestHub, tempDir } from "../hub/harness.js";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function dir(): string {
  const d = tempDir("reporting");
  dirs.push(d);
  return d;
}

test("hub addresses: host, host:port, [v6]:port; the hub's port by default", () => {
  assert.deepEqual(parseHubAddress("hub.example"), { host: "hub.example", port: 5310 });
  assert.deepEqual(parseHubAddress("10.0.0.1:6000"), { host: "10.0.0.1", port: 6000 });
  assert.deepEqual(parseHubAddress("[fd00::1]:7"), { host: "fd00::1", port: 7 });
  assert.deepEqual(parseHubAddress("fd00::1"), { host: "fd00::1", port: 5310 });
  assert.match((parseHubAddress("h:99999") as { error: string }).error, /port must be/);
});

test("reporting is off without --hub or reporting.json; the policy server is the default hub", () => {
  const w = dir();
  assert.equal(readReportingSettings(w), undefined);
  assert.equal((readReportingSettings(w, "h:1") as { hub: unknown }).hub instanceof Object, true);
  writeFileSync(join(w, "reporting.json"), "{}");
  assert.match((readReportingSettings(w) as { error: string }).error, /not bootstrapped/);
  writeFileSync(join(w, "policy_server.dat"), "192.0.2.5:5308\n");
  const settings = readReportingSettings(w);
  assert.deepEqual((settings as { hub: unknown }).hub, { host: "192.0.2.5", port: 5310 });
  writeFileSync(join(w, "reporting.json"), '{"hub": "hub:1", "maxReports": -1}');
  assert.match((readReportingSettings(w) as { error: string }).error, /maxReports/);
  writeFileSync(join(w, "reporting.json"), "[");
  assert.match((readReportingSettings(w) as { error: string }).error, /reporting\.json: /);
});

test("the spool keeps files oldest first and drops past its bounds, saying so", () => {
  const spool = join(dir(), "spool");
  const warnings: string[] = [];
  const logger = new Logger((r) => warnings.push(r.message), "warning");
  const now = Date.parse("2026-06-01T00:00:00Z");
  const day = 86_400_000;
  const ids: string[] = [];
  for (const age of [10, 5, 3, 2, 1]) {
    const report = generateReport({ nodeId: fakeNodeId(1), ended: new Date(now - age * day) });
    ids.push(report.runId);
    spoolReport(spool, report, { maxReports: 3, maxAgeMs: 7 * day }, logger, now);
  }
  assert.deepEqual(
    listSpool(spool).map((e) => e.runId),
    ids.slice(2),
  );
  assert.ok(warnings.some((w) => /Dropped 1 unsent run report/.test(w)));
  assert.ok(
    readdirSync(spool).every((name) => !name.startsWith(".")),
    "no temporary file left",
  );
});

test("the spool goes to the hub oldest first; kept while the hub is away; set aside when refused", async () => {
  const db = makeDatabase("sqlite");
  const hub = await startTestHub(await db.open());
  try {
    const w = dir();
    const node = simNode(hub.workdir.ppkeys, hub.workdir.pair, w);
    const paths = spoolPaths(w);
    const bounds = { maxReports: 100, maxAgeMs: 1e12 };
    const reports = [3, 2, 1].map((m) => ({
      ...node.report(2),
      ended: new Date(Date.now() - m * 60000).toISOString(),
    }));
    for (const r of reports) spoolReport(paths.spool, r, bounds, silentLogger);
    const away = await sendSpooled(paths, { ...node.options(1), maxSends: 10 }, silentLogger);
    assert.equal(away.sent, 0);
    assert.equal(away.left, 3);
    assert.match(away.stopped ?? "", /cannot reach the hub/);
    const bad = { ...node.report(1), runId: reports[0]?.runId as string, ended: new Date().toISOString() };
    spoolReport(paths.spool, bad, bounds, silentLogger);
    const sent = await sendSpooled(paths, { ...node.options(hub.hub.port), maxSends: 10 }, silentLogger);
    assert.deepEqual([sent.sent, sent.refused, sent.left], [3, 1, 0]);
    assert.equal(listSpool(paths.refused).length, 1);
    const runs = await hub.store.runs(node.digest, 10);
    assert.deepEqual(
      runs.map((r) => r.runId).reverse(),
      reports.map((r) => r.runId),
    );
  } finally {
    await hub.close();
    await hub.store.close();
    db.stop();
  }
});
