/**
 * Deep merge as Chef::Node::Attribute does it: within the default levels
 * (cookbook, environment, role, force_default) and within the override
 * levels, hashes merge key by key and arrays join as a set union (lower
 * level's elements first); between default, normal, override and automatic,
 * hashes merge key by key but arrays (and every other value) are replaced.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { deepMerge, hashOnlyMerge } from "../../../src/recipes/merge.js";
import { RunNode } from "../../../src/recipes/node.js";
import { load, makeRepo, metadata } from "./repo.js";

function node(automatic: Record<string, never> | object = {}): RunNode {
  return new RunNode("n", () => automatic as never);
}

test("nested hashes merge key by key across every level", () => {
  const n = node({ app: { auto: true } });
  n.default.app.conf.a = 1;
  n.default.app.conf.b = 1;
  n.setComponent("role_default", { app: { conf: { b: 2, c: 2 } } });
  n.normal.app.conf.d = 3;
  n.override.app.conf.c = 4;
  n.setComponent("env_override", { app: { conf: { e: 5 } } });
  assert.deepEqual(n.get("app"), { conf: { a: 1, b: 2, c: 4, d: 3, e: 5 }, auto: true });
});

test("arrays join within the default levels and within the override levels", () => {
  const n = node();
  n.default.pkgs = ["a", "b"];
  n.setComponent("env_default", { pkgs: ["b", "c"] });
  n.setComponent("role_default", { pkgs: ["d", "a"] });
  n.force_default.pkgs = ["e"];
  assert.deepEqual(n.get("pkgs"), ["a", "b", "c", "d", "e"]);
  n.override.ports = [80];
  n.setComponent("role_override", { ports: [443, 80] });
  n.setComponent("env_override", { ports: [8080] });
  assert.deepEqual(n.get("ports"), [80, 443, 8080]);
});

test("arrays are replaced between default, normal, override and automatic", () => {
  const n = node({ auto_list: ["ohai"] });
  n.default.list = ["d1", "d2"];
  n.normal.list = ["n"];
  assert.deepEqual(n.get("list"), ["n"]);
  n.override.list = ["o"];
  assert.deepEqual(n.get("list"), ["o"]);
  n.default.auto_list = ["d"];
  n.override.auto_list = ["o"];
  assert.deepEqual(n.get("auto_list"), ["ohai"]);
});

test("a union keeps structurally equal elements once, hashes compared without key order", () => {
  assert.deepEqual(deepMerge([{ a: 1, b: 2 }, [1]], [{ b: 2, a: 1 }, [1], [2]]), [{ a: 1, b: 2 }, [1], [2]]);
  assert.deepEqual(hashOnlyMerge({ x: [1, 2], y: { z: 1 } }, { x: [3], y: { w: 2 } }), {
    x: [3],
    y: { z: 1, w: 2 },
  });
});

test("a scalar or null at a higher level replaces a hash; a hash replaces a scalar", () => {
  const n = node();
  n.default.a.b = 1;
  n.override.a = null;
  assert.equal(n.get("a"), null);
  n.default.s = "text";
  n.normal.s = { now: "hash" };
  assert.deepEqual(n.get("s"), { now: "hash" });
  n.setComponent("env_default", { t: "scalar" });
  n.default.t = ["x"];
  assert.equal(n.get("t"), "scalar");
});

test("roles accumulate: an included role first, the including role over it; arrays joined", async (t) => {
  const root = makeRepo(t, {
    "cookbooks/app/metadata.json": metadata("app"),
    "cookbooks/app/recipes/default.ts": "export default () => {};\n",
    "roles/base.json": {
      run_list: ["app"],
      default_attributes: { who: "base", list: ["base"], h: { base: 1 } },
      override_attributes: { o: "base" },
    },
    "roles/web.json": {
      run_list: ["role[base]"],
      default_attributes: { who: "web", list: ["web"], h: { web: 1 } },
      override_attributes: { o: "web" },
    },
  });
  const { run } = await load(root, { runList: ["role[web]"] });
  assert.equal(run.node.get("who"), "web");
  assert.deepEqual(run.node.get("list"), ["base", "web"]);
  assert.deepEqual(run.node.get("h"), { base: 1, web: 1 });
  assert.equal(run.node.get("o"), "web");
});

test("the -j file's attributes deep-merge onto the saved node's normal attributes", async (t) => {
  const root = makeRepo(t, {
    "cookbooks/app/recipes/default.ts": "export default () => {};\n",
    "nodes/n1.json": {
      name: "n1",
      normal: { tags: ["saved"], keep: 1, h: { a: 1 } },
      run_list: ["recipe[app]"],
    },
    "node.json": { tags: ["json"], h: { b: 2 } },
  });
  const { run } = await load(root, { nodeName: "n1", jsonAttributes: join(root, "node.json") });
  assert.deepEqual(run.node.get("tags"), ["saved", "json"]);
  assert.deepEqual(run.node.get("h"), { a: 1, b: 2 });
  assert.equal(run.node.get("keep"), 1);
  assert.deepEqual(run.runList.recipes, ["app::default"]);
});

test("the merged view is read-only; levels auto-vivify and refuse what JSON cannot hold", () => {
  const n = node();
  n.default.deep.er.est = 1;
  const view = n.get("deep") as { er: { est: number } };
  assert.throws(() => {
    (view.er as { est: number }).est = 2;
  }, TypeError);
  assert.equal(n.get("deep", "er", "est"), 1);
  n.default.list = [];
  n.default.list.push("a");
  assert.deepEqual(n.get("list"), ["a"]);
  assert.throws(() => {
    n.default.bad = new Map();
  }, /attribute 'default.bad': a Map is not JSON data/);
  assert.throws(() => {
    n.default.x.f = () => 1;
  }, /attribute 'default.x.f': a function is not JSON data/);
  assert.equal(n.get("missing", "path"), undefined);
  assert.equal(n.has("deep", "er"), true);
});
