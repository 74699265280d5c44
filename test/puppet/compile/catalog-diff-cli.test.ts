import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runTend } from "../../cli/run-tend.js";
import { fixturesDir } from "./harness.js";

test("tend puppet catalog diff: same, different, and bad input", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "tend-catalog-diff-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const recorded = JSON.parse(
    readFileSync(join(fixturesDir, "catalogs/production/ntp.example.com.json"), "utf8"),
  ) as {
    catalog: { resources: { type: string; title: string; parameters?: Record<string, unknown> }[] };
  };
  // A as `puppet catalog compile` prints it without --log_level err: a Notice line, then the JSON.
  const a = { ...recorded.catalog, version: 1, catalog_uuid: "u1", code_id: null };
  writeFileSync(join(dir, "a.json"), `Notice: Compiled catalog for ntp.example.com\n${JSON.stringify(a)}\n`);
  const b = structuredClone({ ...recorded.catalog, version: 2, catalog_uuid: "u2", code_id: null });
  writeFileSync(join(dir, "b.json"), JSON.stringify(b));

  const same = runTend(["puppet", "catalog", "diff", "a.json", "b.json"], { cwd: dir });
  assert.equal(same.code, 0, same.stderr);
  assert.equal(same.stdout, "The catalogs are the same.\n");

  // The recording itself (a `catalog` member) is accepted too.
  const wrapped = runTend(
    ["puppet", "catalog", "diff", "a.json", join(fixturesDir, "catalogs/production/ntp.example.com.json")],
    { cwd: dir },
  );
  assert.equal(wrapped.code, 0, wrapped.stdout + wrapped.stderr);

  const service = b.resources.find((r) => r.type === "Service");
  assert.ok(service?.parameters);
  service.parameters.ensure = "stopped";
  writeFileSync(join(dir, "b.json"), JSON.stringify(b));
  const differs = runTend(["puppet", "catalog", "diff", "a.json", "b.json"], { cwd: dir });
  assert.equal(differs.code, 1);
  assert.equal(
    differs.stdout,
    'The catalogs differ (1 difference):\n  Service[ntp] parameters.ensure: a.json "running" | b.json "stopped"\n',
  );
  const json = runTend(["puppet", "catalog", "diff", "--json", "a.json", "b.json"], { cwd: dir });
  assert.equal(json.code, 1);
  const parsed = JSON.parse(json.stdout) as {
    equal: boolean;
    differences: { category: string; field: string }[];
  };
  assert.equal(parsed.equal, false);
  assert.deepEqual(
    parsed.differences.map((d) => [d.category, d.field]),
    [["parameters", "parameters.ensure"]],
  );

  writeFileSync(join(dir, "bad.json"), "Notice: no catalog here\n");
  const bad = runTend(["puppet", "catalog", "diff", "a.json", "bad.json"], { cwd: dir });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /bad\.json:1:1: not a catalog: expected a JSON object/);
  assert.doesNotMatch(bad.stderr, /\n\s+at /);
  const one = runTend(["puppet", "catalog", "diff", "a.json"], { cwd: dir });
  assert.equal(one.code, 2);
  assert.match(one.stderr, /expected two catalog files, got 1/);
});
