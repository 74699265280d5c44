/**
 * Chef's attribute helpers: `include_attribute` (another attribute file
 * loaded first, once, skipped when the load order reaches it), the
 * write-if-absent views (`default_unless`, `normal_unless`,
 * `override_unless`, `set_unless`) and `rm`/`rm_default`/`rm_normal`/
 * `rm_override`, as Chef documents them.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { RunNode } from "../../../src/recipes/node.js";
import { load, loadProblems, makeRepo, metadata } from "./repo.js";

const RECIPE = "export default () => {};\n";

test("includeAttribute loads the other file first, once; the order then skips it", async (t) => {
  const root = makeRepo(t, {
    "cookbooks/a/metadata.json": metadata("a"),
    "cookbooks/a/attributes/default.ts": `export default async (node: any) => {
  await node.includeAttribute("a::tuning");
  node.default.a.workers = node.get("a", "cores") * 2;
};\n`,
    "cookbooks/a/attributes/aaa.ts": `export default async (node: any) => {
  await node.includeAttribute("a::tuning");
  node.default.a.aaa = true;
};\n`,
    "cookbooks/a/attributes/tuning.ts": `export default (node: any) => {
  node.default.a.cores = 4;
  node.default.a.loads = (node.get("a", "loads") ?? 0) + 1;
};\n`,
    "cookbooks/a/recipes/default.ts": RECIPE,
    "cookbooks/b/metadata.json": metadata("b", { a: ">= 0.0.0" }),
    "cookbooks/b/attributes/default.ts": `export default async (node: any) => {
  await node.includeAttribute("a");
  node.default.b.port = node.get("a", "workers") + 8000;
};\n`,
    "cookbooks/b/recipes/default.ts": RECIPE,
  });
  const { run, steps } = await load(root, { runList: ["b"] });
  assert.deepEqual(steps, [
    "a/attributes/default",
    "a/attributes/tuning",
    "a/attributes/aaa",
    "b/attributes/default",
  ]);
  assert.deepEqual(run.node.get("a"), { cores: 4, loads: 1, workers: 8, aaa: true });
  assert.equal(run.node.get("b", "port"), 8008);
  await assert.rejects(run.node.includeAttribute("a"), /only during load/);
});

test("two attribute files including each other load once each", async (t) => {
  const include = (other: string, key: string) =>
    `export default async (node: any) => { await node.includeAttribute("a::${other}"); node.default.seen.${key} = (node.get("seen", "${key}") ?? 0) + 1; };\n`;
  const root = makeRepo(t, {
    "cookbooks/a/attributes/default.ts": include("other", "d"),
    "cookbooks/a/attributes/other.ts": include("default", "o"),
    "cookbooks/a/recipes/default.ts": RECIPE,
  });
  const { run, steps } = await load(root, { runList: ["a"] });
  assert.deepEqual(steps, ["a/attributes/default", "a/attributes/other"]);
  assert.deepEqual(run.node.get("seen"), { o: 1, d: 1 });
});

test("includeAttribute of a cookbook outside the run, or of a missing file, is an error at its line", async (t) => {
  const root = makeRepo(t, {
    "cookbooks/a/attributes/default.ts": `export default async (node: any) => {
  await node.includeAttribute("stranger");
};\n`,
    "cookbooks/a/recipes/default.ts": RECIPE,
    "cookbooks/stranger/attributes/default.ts": RECIPE,
    "cookbooks/b/attributes/default.ts": `export default async (node: any) => {
  await node.includeAttribute("b::nope");
};\n`,
    "cookbooks/b/recipes/default.ts": RECIPE,
  });
  const [a] = await loadProblems(root, { runList: ["a"] });
  assert.match(
    a ?? "",
    /^cookbooks\/a\/attributes\/default.ts:2:\d+: error: Error: includeAttribute\('stranger'\): cookbook 'stranger' is not part of this run/,
  );
  const [b] = await loadProblems(root, { runList: ["b"] });
  assert.match(
    b ?? "",
    /^cookbooks\/b\/attributes\/default.ts:2:\d+: error: .*cookbook 'b' has no attribute file 'nope'/,
  );
});

function node(automatic: object = {}): RunNode {
  return new RunNode("n", () => automatic as never);
}

test("default_unless, normal_unless, override_unless write only where their level has nothing", () => {
  const n = node();
  n.default_unless.app.port = 80;
  n.default_unless.app.port = 81;
  n.default.app.host = null;
  n.default_unless.app.host = "h";
  n.setComponent("role_default", { app: { user: "role" } });
  n.default_unless.app.user = "cookbook"; // the cookbook level has none: written, and the role wins on read
  assert.deepEqual(plain(n.component("default")), { app: { port: 80, host: "h", user: "cookbook" } });
  assert.equal(n.get("app", "user"), "role");
  n.normal.app.port = 1;
  n.normal_unless.app.port = 2;
  n.set_unless.app.mode = "fast";
  n.set_unless.app.mode = "slow";
  n.override_unless.app.port = 9;
  n.override_unless.app.port = 10;
  assert.deepEqual(plain(n.component("normal")), { app: { port: 1, mode: "fast" } });
  assert.deepEqual(plain(n.component("override")), { app: { port: 9 } });
  assert.equal(n.get("app", "port"), 9);
  // Reading through the view creates nothing.
  assert.equal(typeof n.default_unless.never.there, "object");
  assert.equal(n.has("never"), false);
});

test("rm_default, rm_normal, rm_override and rm remove their levels and return the value", () => {
  const n = node({ os: { family: "debian" } });
  n.default.app.port = 80;
  n.default.app.keep = "yes";
  n.setComponent("role_default", { app: { port: 81 } });
  n.setComponent("env_default", { app: { port: 82 } });
  n.force_default.app.port = 83;
  n.normal.app.port = 90;
  n.override.app.port = 100;
  n.setComponent("role_override", { app: { port: 101 } });
  n.force_override.app.port = 102;

  assert.equal(n.rm_default("app", "port"), 83);
  assert.equal(n.get("app", "port"), 102);
  assert.deepEqual(n.combinedDefault(), { app: { keep: "yes" } });
  assert.equal(n.rm_override("app", "port"), 102);
  assert.equal(n.get("app", "port"), 90);
  assert.deepEqual(n.combinedOverride(), { app: {} });
  assert.equal(n.rm_normal("app", "port"), 90);
  assert.equal(n.get("app", "port"), undefined);
  assert.equal(n.rm_normal("app", "port"), undefined);

  n.normal.app.port = 1;
  n.override.app.port = 2;
  assert.equal(n.rm("app", "port"), 2);
  assert.equal(n.get("app", "port"), undefined);
  assert.deepEqual(n.get("app"), { keep: "yes" });
  // Automatic attributes are the host's: rm leaves them.
  assert.equal(n.rm("os", "family"), "debian");
  assert.equal(n.get("os", "family"), "debian");
});

function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}
