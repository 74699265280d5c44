/**
 * Compliance on the hub (issue 19's scope):
 * - per promise, for every node: kept, repaired, not kept, and missing
 *   since the previous run;
 * - Rudder's, given the configuration (a policy directory with its
 *   expected-reports.json): computed at ingest from the run's report lines
 *   with src/rudder's code, stored with the run, per rule, directive and
 *   component, and summed by rule over the fleet's latest runs.
 * On SQLite and PostgreSQL (a throwaway cluster, or skipped with the
 * reason) through the store and the API, then end to end on SQLite: a
 * node posting over mutual TLS to a hub given --rudder-config's
 * configuration, and the pages read in Debian's headless Chromium
 * (skipped with the reason when absent; screenshots kept as artifacts).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { handleApi } from "../../src/hub/api.js";
import {
  type fleetRuleCompliance,
  loadRudderConfig,
  type NodeCompliance,
  promiseCompliance,
  rudderComplianceOf,
} from "../../src/hub/compliance.js";
import type { HubStore, IngestMeta, ResultRow } from "../../src/hub/store/store.js";
import { createToken } from "../../src/hub/tokens.js";
import type { NodeReport } from "../../src/reporting/report.js";
import { complianceOfRun, runComplianceJson } from "../../src/rudder/compliance/index.js";
import { generateReport } from "./generate.js";
import {
  databaseUnavailable,
  makeDatabase,
  post,
  simNode,
  startTestHub,
  type TestDatabase,
  tempDir,
} from "./harness.js";
import { browserUnavailable, launchBrowser } from "./web/browser.js";

/** A node's expected reports and one run's output, from the `tend rudder compliance` tests. */
const RUDDER = fileURLToPath(new URL("../../../test/fixtures/rudder/compliance/cli/", import.meta.url));
const RUN_LINES = readFileSync(join(RUDDER, "run.log"), "utf8")
  .split("\n")
  .filter((l) => l.startsWith("R: "));

function row(seq: number, promiser: string, outcome: string, type = "files"): ResultRow {
  return { seq, type, promiser, handle: "", bundle: "main", file: "p.cf", line: seq, outcome, message: "" };
}

test("per-promise compliance: kept, repaired, not kept, and missing since the previous run", () => {
  const previous = [row(0, "/a", "kept"), row(1, "/b", "kept"), row(2, "/c", "failed"), row(3, "/c", "kept")];
  const latest = [row(0, "/a", "repaired"), row(1, "/c", "failed"), row(2, "/d", "kept")];
  const c = promiseCompliance(latest, { runId: "r1", results: previous });
  assert.deepEqual([c.kept, c.repaired, c.notKept], [1, 1, 1]);
  // /b is gone, and /c ran once where it ran twice.
  assert.deepEqual(
    c.missing.map((r) => [r.promiser, r.outcome]),
    [
      ["/b", "kept"],
      ["/c", "kept"],
    ],
  );
  assert.equal(c.compliance, 40);
  assert.equal(c.previousRunId, "r1");
  const first = promiseCompliance(latest);
  assert.deepEqual([first.missing.length, first.compliance, first.previousRunId], [0, 66.67, undefined]);
  assert.equal(promiseCompliance([]).compliance, 100);
});

test("the Rudder configuration: one policy directory or a directory of them; errors say where", (t) => {
  const one = loadRudderConfig(RUDDER);
  assert.deepEqual([...one.nodes.keys()], ["node1"]);
  const dir = mkdtempSync(join(tmpdir(), "tend-hub-rudder-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  assert.throws(() => loadRudderConfig(dir), /no expected-reports\.json in it or in its subdirectories/);
  mkdirSync(join(dir, "node1"));
  writeFileSync(
    join(dir, "node1", "expected-reports.json"),
    readFileSync(join(RUDDER, "expected-reports.json")),
  );
  assert.deepEqual([...loadRudderConfig(dir).nodes.keys()], ["node1"]);
  mkdirSync(join(dir, "node2"));
  writeFileSync(join(dir, "node2", "expected-reports.json"), "{ not json");
  assert.throws(() => loadRudderConfig(dir), /node2\/expected-reports\.json: not JSON/);
});

/** A report of `nodeId` whose lines are the fixture's run (Rudder node1) and `promises` results. */
function rudderReport(nodeId: string, ended: Date, promises = 6): NodeReport {
  return {
    ...generateReport({ nodeId, name: `rudder-${nodeId.slice(-2)}`, promises, ended }),
    lines: RUN_LINES,
  };
}

function meta(report: NodeReport, extra: Partial<IngestMeta> = {}): IngestMeta {
  const digest = createHash("sha256").update(JSON.stringify(report)).digest("hex");
  return { digest, publicKey: "k", address: "192.0.2.1", receivedAt: new Date(report.ended), ...extra };
}

const dbs: TestDatabase[] = [];
after(() => {
  for (const db of dbs) db.stop();
});

for (const kind of ["sqlite", "postgres"] as const) {
  describe(`compliance stored on ${kind}`, { skip: databaseUnavailable(kind) }, () => {
    test("Rudder compliance at ingest, by node and by rule; per promise with the missing ones", async () => {
      const db = makeDatabase(kind);
      dbs.push(db);
      const store: HubStore = await db.open();
      try {
        const config = loadRudderConfig(RUDDER);
        const node = "MD5=00000000000000000000000000000a01";
        const other = "MD5=00000000000000000000000000000a02";
        const plain = "MD5=00000000000000000000000000000a03";
        const older = rudderReport(node, new Date(Date.now() - 600_000), 8);
        const latest = rudderReport(node, new Date(Date.now() - 60_000), 6);
        for (const r of [older, latest, rudderReport(other, new Date())]) {
          const compliance = rudderComplianceOf(config, r);
          assert.ok(compliance, "the lines name node1 of the configuration");
          assert.equal(await store.ingest(r, meta(r, { compliance })), "stored");
        }
        // A run whose lines are not Rudder's gets no Rudder compliance.
        const notRudder = generateReport({ nodeId: plain, promises: 5 });
        assert.equal(rudderComplianceOf(config, notRudder), undefined);
        await store.ingest(notRudder, meta(notRudder));

        // The node's Rudder compliance is what `tend rudder compliance --json` gives for the same run.
        const expected = runComplianceJson(
          complianceOfRun(config.nodes.get("node1") ?? assert.fail(), RUN_LINES.join("\n")),
        );
        const answer = (await handleApi(
          store,
          new URL(`https://h/api/v1/nodes/${encodeURIComponent(node)}/compliance`),
        )) as NodeCompliance;
        assert.deepEqual(answer.rudder, JSON.parse(JSON.stringify(expected)));
        assert.equal(answer.rudder?.compliance, 33.33);
        assert.deepEqual(
          answer.rudder?.rules.map((r) => [r.ruleId, r.compliance]),
          [
            ["r1", 50],
            ["r2", 0],
          ],
        );
        // Per promise: generated runs cycle kept, kept, kept, repaired, failed; the latest lacks 2 of 8.
        assert.equal(answer.runId, latest.runId);
        assert.deepEqual(
          [answer.promises.kept, answer.promises.repaired, answer.promises.notKept],
          [4, 1, 1],
        );
        assert.deepEqual(
          answer.promises.missing.map((r) => r.promiser),
          ["/etc/tend/generated/file-6.conf", "/etc/tend/generated/file-7.conf"],
        );
        assert.equal(answer.promises.compliance, 62.5);

        // The fleet by rule: the two Rudder nodes' latest runs (the older run is not counted).
        const fleet = (await handleApi(store, new URL("https://h/api/v1/compliance"))) as {
          rules: ReturnType<typeof fleetRuleCompliance>;
        };
        assert.deepEqual(fleet.rules, [
          {
            ruleId: "r1",
            nodes: 2,
            compliance: 50,
            complianceDetails: { successRepaired: 2, unexpectedMissingComponent: 2 },
          },
          { ruleId: "r2", nodes: 2, compliance: 0, complianceDetails: { auditNonCompliant: 2 } },
        ]);
        const none = (await handleApi(
          store,
          new URL(`https://h/api/v1/nodes/${encodeURIComponent(plain)}/compliance`),
        )) as NodeCompliance;
        assert.equal(none.rudder, undefined);
        assert.equal(none.promises.missing.length, 0);
        // Retention removes a run's compliance with it.
        assert.equal(await store.prune(new Date(Date.now() - 120_000)), 1);
        assert.equal(await store.runCompliance(older.runId), undefined);
        assert.ok(await store.runCompliance(latest.runId));
      } finally {
        await store.close();
      }
    });
  });
}

describe("end to end on SQLite: a node posts, the hub computes, Chromium shows it", () => {
  test("the node page shows Rudder compliance by rule and the missing promises; the fleet page by rule", async (t) => {
    const db = makeDatabase("sqlite");
    dbs.push(db);
    const store = await db.open();
    const hub = await startTestHub(store, { rudder: loadRudderConfig(RUDDER) });
    const root = tempDir("hub-compliance");
    t.after(async () => {
      await hub.close();
      await store.close().catch(() => {});
      rmSync(root, { recursive: true, force: true });
    });
    const node = simNode(hub.workdir.ppkeys, hub.workdir.pair, join(root, "node"));
    const send = async (ended: Date, promises: number) => {
      const report = {
        ...generateReport({ nodeId: node.digest, name: "rudder-web", promises, ended }),
        lines: RUN_LINES,
      };
      const result = await post(report, node.options(hub.hub.port));
      assert.equal(result.kind, "stored", JSON.stringify(result));
      return report;
    };
    await send(new Date(Date.now() - 300_000), 7);
    const last = await send(new Date(), 5);
    assert.ok(await store.runCompliance(last.runId), "the hub computed and stored it");

    const reason = browserUnavailable();
    if (reason) return t.skip(reason);
    const { token } = await createToken(store, "compliance test");
    const base = `https://127.0.0.1:${hub.hub.port}`;
    const browser = await launchBrowser();
    const shots = process.env.TEND_ARTIFACTS
      ? join(process.env.TEND_ARTIFACTS, "hub-compliance")
      : mkdtempSync(join(tmpdir(), "tend-hub-compliance-screenshots-"));
    mkdirSync(shots, { recursive: true });
    try {
      await browser.context.addCookies([{ name: "tend_token", value: token, url: base }]);
      const page = await browser.context.newPage();
      await page.goto(`${base}/ui/nodes/${encodeURIComponent(node.digest)}`);
      await page.screenshot({ path: join(shots, "node-compliance.png"), fullPage: true });
      assert.match((await page.textContent("#rudder-compliance")) ?? "", /^33\.33 %/);
      const rules = await page.locator("#rules tr.rule td:first-child").allTextContents();
      assert.deepEqual(rules, ["r1", "r2"]);
      const states = await page
        .locator("#rules tbody tr:not(.rule):not(.directive) td:nth-child(4)")
        .allTextContents();
      assert.deepEqual(states, ["EnforceRepaired", "Missing", "AuditNonCompliant", "AuditNonCompliant"]);
      assert.match(
        (await page.textContent("#promise-compliance")) ?? "",
        /3 kept, 1 repaired, 1 not kept, 2 missing since the previous run/,
      );
      assert.deepEqual(await page.locator("#missing tbody tr td:first-child").allTextContents(), [
        "/etc/tend/generated/file-5.conf",
        "/etc/tend/generated/file-6.conf",
      ]);
      await page.goto(`${base}/ui/`);
      await page.screenshot({ path: join(shots, "fleet-compliance.png"), fullPage: true });
      assert.deepEqual(await page.locator("#rule-compliance tbody tr td:nth-child(2)").allTextContents(), [
        "50.00 %",
        "0.00 %",
      ]);
    } finally {
      await browser.close();
      console.log(`hub compliance screenshots: ${shots}`);
    }
  });
});
