/**
 * Every front end reports to the hub (issue 19's scope): `tend converge`
 * (the recipes front end, on the shared catalog applier) with `--hub` and
 * its own work directory and key sends its run's report, one promise per
 * resource, to a `tend hub` process; the catalog report's outcomes map to
 * the hub's (changed is repaired, failed is failed). Without `--hub` or a
 * reporting.json, nothing is sent and nothing is spooled. `tend puppet apply
 * --hub` does the same for a compiled Puppet catalog.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { trustKey } from "../../src/net/keys.js";
import { catalogRunReport } from "../../src/cli/catalog-run-report.js";
import type { RunReport as CatalogRunReport } from "../../src/catalog/report.js";
import { repoRoot, runTend } from "../cli/run-tend.js";
import { keyedWorkdir, makeDatabase, startHubProcess, tempDir } from "./harness.js";

const EXAMPLES = join(repoRoot, "examples", "cookbooks");

test("tend converge --hub sends its run's report to the hub, one promise per resource", async (t) => {
  const root = tempDir("hub-converge");
  const db = makeDatabase("sqlite");
  t.after(() => {
    db.stop();
    rmSync(root, { recursive: true, force: true });
  });
  const hubDir = keyedWorkdir(join(root, "hub"));
  const node = keyedWorkdir(join(root, "node"));
  trustKey(hubDir.ppkeys, "root", node.pair.publicKey);
  trustKey(node.ppkeys, "root", hubDir.pair.publicKey);
  const hub = await startHubProcess(["-w", hubDir.dir, "-p", "0", "--database", db.spec]);
  const args = (dir: string, ...more: string[]) => {
    const attributes = join(dir, "node.json");
    writeFileSync(attributes, JSON.stringify({ example: { root: join(dir, "root") } }));
    return [
      "converge",
      "--cookbook-path",
      EXAMPLES,
      "-o",
      "website",
      "-j",
      attributes,
      "--node-path",
      join(dir, "nodes"),
      "-N",
      "converge-node",
      ...more,
    ];
  };
  try {
    const first = runTend(args(root, "-w", node.dir, "--hub", `127.0.0.1:${hub.port}`), { cwd: root });
    assert.equal(first.code, 0, first.stderr);
    assert.doesNotMatch(first.stderr, /report|hub|spool/i);
    const second = runTend(args(root, "-w", node.dir, "--hub", `127.0.0.1:${hub.port}`), { cwd: root });
    assert.equal(second.code, 0, second.stderr);
    // Off without --hub or reporting.json: nothing spooled.
    const quiet = keyedWorkdir(join(root, "quiet"));
    const off = runTend(args(join(root, "quiet"), "-w", quiet.dir), { cwd: root });
    assert.equal(off.code, 0, off.stderr);
    assert.equal(existsSync(join(quiet.dir, "outputs", "reports")), false);
  } finally {
    await hub.stop("SIGTERM");
  }
  const store = await db.open();
  try {
    const stored = await store.node(node.digest);
    assert.ok(stored, "the node is known to the hub by its key");
    const runs = await store.runs(node.digest, 10);
    assert.equal(runs.length, 2);
    const [latest, first] = runs;
    assert.equal(first?.frontEnd, "recipes");
    assert.deepEqual([first?.repaired, first?.notKept, first?.total], [9, 0, 9]);
    assert.deepEqual([latest?.repaired, latest?.kept], [0, 9]);
    const results = await store.results(first?.runId ?? "");
    assert.ok(results.some((r) => r.type === "execute" && r.handle === "Execute[reload web server]"));
    assert.ok(results.every((r) => r.outcome === "repaired"));
  } finally {
    await store.close();
  }
});

test("the catalog report's outcomes as the hub's", () => {
  const status = (over: Record<string, unknown>) => ({
    title: "/x",
    file: "/c/recipes/default.ts",
    line: 3,
    resource: "File[/x]",
    resource_type: "File",
    provider_used: null,
    containment_path: ["Stage[main]", "Base::Default", "File[/x]"],
    evaluation_time: 0,
    tags: [],
    time: "",
    failed: false,
    failed_to_restart: false,
    changed: false,
    out_of_sync: false,
    skipped: false,
    change_count: 0,
    out_of_sync_count: 0,
    events: [],
    corrective_change: false,
    restarted: false,
    ...over,
  });
  const failure = {
    audited: false,
    property: null,
    previous_value: null,
    desired_value: null,
    historical_value: null,
    message: "could not write /y",
    name: null,
    status: "failure",
    time: "",
    redacted: null,
    corrective_change: false,
  };
  const report = {
    status: "failed",
    resource_statuses: {
      "File[/x]": status({}),
      "File[/y]": status({ title: "/y", resource: "File[/y]", failed: true, events: [failure] }),
      "File[/z]": status({ title: "/z", resource: "File[/z]", changed: true }),
      "File[/w]": status({ title: "/w", resource: "File[/w]", out_of_sync: true }),
    },
  } as unknown as CatalogRunReport;
  const run = catalogRunReport(report, "cookbooks", 1);
  assert.equal(run.outcome, "failed");
  assert.deepEqual(
    run.promises.map((p) => [p.promiser, p.outcome, p.type, p.bundle, p.line, p.message]),
    [
      ["/x", "kept", "file", "Base::Default", 3, undefined],
      ["/y", "failed", "file", "Base::Default", 3, "could not write /y"],
      ["/z", "repaired", "file", "Base::Default", 3, undefined],
      ["/w", "warn", "file", "Base::Default", 3, undefined],
    ],
  );
});

test("tend puppet apply --hub sends its run's report to the hub, one promise per resource", async (t) => {
  const root = tempDir("hub-puppet");
  const db = makeDatabase("sqlite");
  t.after(() => {
    db.stop();
    rmSync(root, { recursive: true, force: true });
  });
  const hubDir = keyedWorkdir(join(root, "hub"));
  const node = keyedWorkdir(join(root, "node"));
  trustKey(hubDir.ppkeys, "root", node.pair.publicKey);
  trustKey(node.ppkeys, "root", hubDir.pair.publicKey);
  mkdirSync(join(root, "etc"), { recursive: true });
  mkdirSync(join(root, "code", "environments", "production", "manifests"), { recursive: true });
  writeFileSync(join(root, "etc", "puppet.conf"), `[main]\nvardir = ${root}/var\ncodedir = ${root}/code\n`);
  mkdirSync(join(root, "var", "client_data", "facts"), { recursive: true });
  writeFileSync(
    join(root, "var", "client_data", "facts", "p1.example.com.json"),
    JSON.stringify({ name: "p1.example.com", values: { clientcert: "p1.example.com" } }),
  );
  const code = `file { '${root}/made': content => "made\\n" }
exec { '/bin/false': }
file { '${root}/after': content => "x\\n", require => Exec['/bin/false'] }`;
  const hub = await startHubProcess(["-w", hubDir.dir, "-p", "0", "--database", db.spec]);
  try {
    const run = runTend(
      [
        "puppet",
        "apply",
        "--confdir",
        join(root, "etc"),
        "--facts_terminus",
        "json",
        "--certname",
        "p1.example.com",
        "--detailed-exitcodes",
        "-w",
        node.dir,
        "--hub",
        `127.0.0.1:${hub.port}`,
        "-e",
        code,
      ],
      { cwd: root },
    );
    assert.equal(run.code, 6, run.stderr);
    assert.doesNotMatch(run.stderr, /report|spool/i);
  } finally {
    await hub.stop("SIGTERM");
  }
  const store = await db.open();
  try {
    const runs = await store.runs(node.digest, 10);
    assert.equal(runs.length, 1);
    assert.equal(runs[0]?.frontEnd, "puppet");
    const results = await store.results(runs[0]?.runId ?? "");
    const outcome = (handle: string) => results.find((r) => r.handle === handle)?.outcome;
    assert.equal(outcome(`File[${root}/made]`), "repaired");
    assert.equal(outcome("Exec[/bin/false]"), "failed");
    // Skipped after the failure: the catalog report does not say why a resource was skipped
    // (Chef's action :nothing is skipped too), so the hub cannot tell it from kept yet.
    assert.equal(outcome(`File[${root}/after]`), "kept");
  } finally {
    await store.close();
  }
});
