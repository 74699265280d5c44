/**
 * The load order of Chef's model (issue 17, must-show 1): cookbooks in
 * run-list order with each cookbook's dependencies (sorted by name) first,
 * each once; every library of every cookbook, then every attribute file,
 * then resources, providers and definitions; files alphabetically within a
 * cookbook with attributes/default first. And the diagnostics of bad
 * cookbooks.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { load, loadProblems, makeRepo, metadata } from "./repo.js";

const NOOP = "export default (node: unknown) => {};\n";
const LIB = "export const loaded = true;\n";
const RESOURCE = "export default { resource: true };\n";

test("cookbook B depending on A loads in Chef's phases", async (t) => {
  const root = makeRepo(t, {
    "cookbooks/a/metadata.json": metadata("a"),
    "cookbooks/a/libraries/helpers.ts": LIB,
    "cookbooks/a/attributes/default.ts": NOOP,
    "cookbooks/a/recipes/default.ts": NOOP,
    "cookbooks/b/metadata.json": metadata("b", { a: ">= 0.0.0" }),
    "cookbooks/b/libraries/b_lib.ts": LIB,
    "cookbooks/b/attributes/zzz.ts": NOOP,
    "cookbooks/b/attributes/default.ts": NOOP,
    "cookbooks/b/attributes/aaa.ts": NOOP,
    "cookbooks/b/resources/second.ts": RESOURCE,
    "cookbooks/b/resources/first.ts": RESOURCE,
    "cookbooks/b/resources/_partial.ts": RESOURCE,
    "cookbooks/b/providers/first.ts": LIB,
    "cookbooks/b/definitions/thing.ts": LIB,
    "cookbooks/b/recipes/default.ts": NOOP,
  });
  const { run, steps } = await load(root, { runList: ["recipe[b]"] });
  assert.deepEqual(steps, [
    "a/libraries/helpers",
    "b/libraries/b_lib",
    "a/attributes/default",
    "b/attributes/default",
    "b/attributes/aaa",
    "b/attributes/zzz",
    "b/resources/first",
    "b/resources/second",
    "b/providers/first",
    "b/definitions/thing",
  ]);
  assert.deepEqual(run.runList.cookbooks, ["a", "b"]);
  assert.deepEqual(
    run.resources.map((r) => r.file.name),
    ["first", "second"],
  );
  // Recipes come later, on demand, and are then part of the sequence.
  await run.recipeBook.include("b");
  assert.equal(steps.at(-1), "b/recipes/default");
});

test("dependencies sorted by name come first, recursively; each cookbook once", async (t) => {
  const files: Record<string, string | object> = {
    "cookbooks/app/metadata.json": metadata("app", { zlib: ">= 0.0.0", base: "~> 1.0", db: ">= 1.0" }),
    "cookbooks/db/metadata.json": metadata("db", { base: ">= 0.0.0" }),
    "cookbooks/base/metadata.json": metadata("base", {}, "1.4.0"),
    "cookbooks/zlib/metadata.json": metadata("zlib", { base: ">= 0.0.0" }),
    "cookbooks/web/metadata.json": metadata("web", { app: ">= 0.0.0" }),
    "cookbooks/unused/metadata.json": metadata("unused"),
  };
  for (const cb of ["app", "db", "base", "zlib", "web", "unused"]) {
    files[`cookbooks/${cb}/libraries/l.ts`] = LIB;
    files[`cookbooks/${cb}/recipes/default.ts`] = NOOP;
  }
  const root = makeRepo(t, files);
  const { run, steps } = await load(root, { runList: ["web", "recipe[db]", "app::default"] });
  assert.deepEqual(run.runList.cookbooks, ["base", "db", "zlib", "app", "web"]);
  assert.deepEqual(
    steps,
    ["base", "db", "zlib", "app", "web"].map((cb) => `${cb}/libraries/l`),
  );
  assert.deepEqual(run.runList.recipes, ["web::default", "db::default", "app::default"]);
});

test("libraries at any depth in byte order; JavaScript files too", async (t) => {
  const root = makeRepo(t, {
    "cookbooks/a/libraries/b.ts": LIB,
    "cookbooks/a/libraries/A.js": "export const js = 1;\n",
    "cookbooks/a/libraries/sub/c.ts": LIB,
    "cookbooks/a/libraries/types.d.ts": "export type X = 1;\n",
    "cookbooks/a/recipes/default.ts": NOOP,
  });
  const { steps } = await load(root, { runList: ["a"] });
  assert.deepEqual(steps, ["a/libraries/A", "a/libraries/b", "a/libraries/sub/c"]);
});

test("several cookbook paths; the same cookbook in two is an error", async (t) => {
  const root = makeRepo(t, {
    "one/a/metadata.json": metadata("a", { b: ">= 0.0.0" }),
    "one/a/recipes/default.ts": NOOP,
    "two/b/metadata.json": metadata("b"),
    "two/b/libraries/x.ts": LIB,
  });
  const { steps } = await load(root, {
    cookbookPaths: [join(root, "one"), join(root, "two")],
    runList: ["a"],
  });
  assert.deepEqual(steps, ["b/libraries/x"]);
  const dup = makeRepo(t, {
    "one/a/metadata.json": metadata("a"),
    "two/a2/metadata.json": metadata("a"),
  });
  assert.deepEqual(
    await loadProblems(dup, { cookbookPaths: [join(dup, "one"), join(dup, "two")], runList: ["a"] }),
    ["two/a2/metadata.json:1:1: error: cookbook 'a' is also at one/a; each cookbook must be in one place"],
  );
});

test("a missing dependency, a cycle, an unmet version: errors at metadata.json's entry", async (t) => {
  const missing = makeRepo(t, {
    "cookbooks/a/metadata.json": metadata("a", { nothere: ">= 0.0.0" }),
  });
  assert.deepEqual(await loadProblems(missing, { runList: ["a"] }), [
    "cookbooks/a/metadata.json:5:16: error: cookbook 'a' depends on 'nothere', which is not on the cookbook path",
  ]);
  const cycle = makeRepo(t, {
    "cookbooks/a/metadata.json": metadata("a", { b: ">= 0.0.0" }),
    "cookbooks/b/metadata.json": metadata("b", { c: ">= 0.0.0" }),
    "cookbooks/c/metadata.json": metadata("c", { a: ">= 0.0.0" }),
  });
  assert.deepEqual(await loadProblems(cycle, { runList: ["a"] }), [
    "cookbooks/c/metadata.json:5:10: error: cookbooks depend on each other: a -> b -> c -> a",
  ]);
  const old = makeRepo(t, {
    "cookbooks/a/metadata.json": metadata("a", { b: "~> 2.0" }),
    "cookbooks/b/metadata.json": metadata("b", {}, "1.9.9"),
  });
  assert.deepEqual(await loadProblems(old, { runList: ["a"] }), [
    "cookbooks/a/metadata.json:5:10: error: cookbook 'a' needs 'b' ~> 2.0; cookbooks/b is version 1.9.9",
  ]);
});

test("bad metadata.json: file:line:col of the offending value", async (t) => {
  const cases: [string, string][] = [
    [
      '{\n  "name": "b",\n  "version": 2\n}\n',
      "cookbooks/b/metadata.json:3:14: error: 'version' must be a version like \"1.2.3\"",
    ],
    [
      '{\n  "name": "b",\n  "dependencies": { "a": "newest" }\n}\n',
      `cookbooks/b/metadata.json:3:26: error: the constraint on 'a' must be a version constraint like ">= 1.0.0" or "~> 2.1"`,
    ],
    [
      '{\n  "name": "c",\n  "version": "1.0.0",\n}\n',
      "cookbooks/b/metadata.json:4:1: error: invalid JSON: expected a member name in double quotes, found '}'",
    ],
    [
      '{ "name": "has space" }',
      "cookbooks/b/metadata.json:1:11: error: 'name' must be a cookbook name (letters, digits, '_' and '-')",
    ],
  ];
  for (const [text, expected] of cases) {
    const root = makeRepo(t, { "cookbooks/b/metadata.json": text });
    assert.deepEqual(await loadProblems(root, { runList: ["b"] }), [expected]);
  }
});

test("a cookbook without metadata.json is named after its directory", async (t) => {
  const root = makeRepo(t, {
    "cookbooks/plain/libraries/x.ts": LIB,
    "cookbooks/plain/recipes/default.ts": NOOP,
  });
  const { run, steps } = await load(root, { runList: ["plain"] });
  assert.deepEqual(steps, ["plain/libraries/x"]);
  assert.equal(run.cookbooks[0]?.version, "0.0.0");
});

test("cookbooks not reached from the run list are not loaded; unknown ones are errors", async (t) => {
  const root = makeRepo(t, {
    "cookbooks/a/libraries/x.ts": LIB,
    "cookbooks/a/recipes/default.ts": NOOP,
    "cookbooks/other/libraries/x.ts": "throw new Error('must not load');\n",
    "node.json": { run_list: ["recipe[a]", "recipe[ghost::web]"] },
  });
  assert.deepEqual(await loadProblems(root, { jsonAttributes: join(root, "node.json") }), [
    "node.json:4:5: error: cookbook 'ghost' (for recipe 'ghost::web') is not on the cookbook path",
  ]);
  const { steps } = await load(root, { runList: ["a"] });
  assert.deepEqual(steps, ["a/libraries/x"]);
});
