/**
 * The benchmarks' check that bin/tend will run the bundle, not the
 * compiled modules it falls back to when the bundle is stale.
 */
import assert from "node:assert/strict";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { bundleProblem } from "../../bench/measure.js";
import { scratchDirectory } from "../scratch.js";

test("a missing or stale bundle is named; a fresh one is not", () => {
  const root = scratchDirectory("tend-bench-bundle-");
  mkdirSync(join(root, "dist", "src", "cli"), { recursive: true });
  const sources = join(root, "dist", "src", "cli", "main.js");
  writeFileSync(sources, "");
  assert.match(bundleProblem(root) ?? "", /tend\.cjs is missing/);
  mkdirSync(join(root, "dist", "bundle"));
  const bundle = join(root, "dist", "bundle", "tend.cjs");
  writeFileSync(bundle, "");
  utimesSync(sources, 1_000, 1_000);
  utimesSync(bundle, 2_000, 2_000);
  assert.equal(bundleProblem(root), undefined);
  utimesSync(sources, 3_000, 3_000);
  assert.match(bundleProblem(root) ?? "", /older than dist\/src/);
});
