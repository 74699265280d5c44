/**
 * Users' TypeScript run directly: imports between their files (written
 * `.js` as TypeScript's NodeNext convention, or `.ts`, or without
 * extension), modules tend lends (`tend/recipes`), `import.meta`, and every
 * failure as a diagnostic at the user's file:line:col: a syntax error, a
 * throw in an attribute file or a library (mapped through the source map),
 * an import naming no file, an export of the wrong shape.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { load, loadProblems, makeRepo, writeFiles } from "./repo.js";

test("files import each other, once per run; tend's modules are the run's instances", async (t) => {
  const dsl = { defineResource: (spec: object) => ({ ...spec, defined: true }) };
  const root = makeRepo(t, {
    "cookbooks/a/libraries/counter.ts":
      "export let count = 0;\nexport function bump(): number { return ++count; }\n",
    "cookbooks/a/libraries/use.ts":
      'import { bump } from "./counter.js";\nimport { bump as again } from "./counter";\nexport const values = [bump(), again()];\nexport const here = import.meta.url;\n',
    "cookbooks/a/resources/site.ts":
      'import { defineResource } from "tend/recipes";\nimport * as fs from "node:fs";\nexport default defineResource({ name: "site", fs: typeof fs.readFileSync });\n',
    "cookbooks/a/attributes/default.ts":
      'import { values } from "../libraries/use.ts";\nexport default (node: any) => { node.default.values = values; };\n',
    "cookbooks/a/recipes/default.ts": "export default () => {};\n",
  });
  const { run } = await load(root, { runList: ["a"], hostModules: { "tend/recipes": dsl } });
  assert.deepEqual(run.node.get("values"), [1, 2]);
  assert.deepEqual(run.resources[0]?.exports.default, { name: "site", fs: "function", defined: true });
  assert.equal(run.libraries[1]?.exports.here, `file://${root}/cookbooks/a/libraries/use.ts`);
});

test("a syntax error is a diagnostic at its place", async (t) => {
  const root = makeRepo(t, {
    "cookbooks/a/attributes/default.ts": "export default (node: any) => {\n  node.default.x = ;\n};\n",
  });
  assert.deepEqual(await loadProblems(root, { runList: ["a"] }), [
    'cookbooks/a/attributes/default.ts:2:20: error: Unexpected ";"',
  ]);
});

test("a throw in user code points at the user's line, through the source map", async (t) => {
  const root = makeRepo(t, {
    "cookbooks/a/libraries/check.ts":
      "interface Port {\n  readonly value: number;\n}\n\nexport function check(p: Port): void {\n  if (p.value > 65535) throw new RangeError('port ' + p.value + ' out of range');\n}\n",
    "cookbooks/a/attributes/default.ts":
      'import { check } from "../libraries/check.js";\n\ntype N = any;\nexport default (node: N) => {\n  check({ value: 70000 });\n};\n',
  });
  assert.deepEqual(await loadProblems(root, { runList: ["a"] }), [
    "cookbooks/a/libraries/check.ts:6:30: error: RangeError: port 70000 out of range",
  ]);
});

test("a bad attribute value is placed at the assignment", async (t) => {
  const root = makeRepo(t, {
    "cookbooks/a/attributes/default.ts":
      "export default (node: any) => {\n  node.default.when = new Date(0);\n};\n",
  });
  assert.deepEqual(await loadProblems(root, { runList: ["a"] }), [
    "cookbooks/a/attributes/default.ts:2:16: error: TypeError: attribute 'default.when': a Date is not JSON data (use plain objects and arrays)",
  ]);
});

test("an import naming no file, an unknown tend module, a wrong export", async (t) => {
  const missing = makeRepo(t, {
    "cookbooks/a/libraries/x.ts": 'import { y } from "./nothere.js";\nexport const z = y;\n',
  });
  assert.deepEqual(await loadProblems(missing, { runList: ["a"] }), [
    "cookbooks/a/libraries/x.ts:1:20: error: cannot find './nothere.js': no such file (tried .ts, .mts, .js, .mjs, .json and index files)",
  ]);
  const tend = makeRepo(t, {
    "cookbooks/a/libraries/x.ts": 'import { y } from "tend/other";\nexport const z = y;\n',
  });
  assert.deepEqual(await loadProblems(tend, { runList: ["a"] }), [
    "cookbooks/a/libraries/x.ts:1:19: error: Error: 'tend/other' is not a module tend provides to cookbooks (provided: none)",
  ]);
  const shape = makeRepo(t, { "cookbooks/a/attributes/default.ts": "export const x = 1;\n" });
  assert.deepEqual(await loadProblems(shape, { runList: ["a"] }), [
    "cookbooks/a/attributes/default.ts:1:1: error: an attribute file must `export default (node) => { ... }`",
  ]);
});

test("mapLocation and locate give the user's line for a recipe's own frames", async (t) => {
  const root = makeRepo(t, {
    "cookbooks/a/recipes/default.ts":
      "type Ctx = { fail: () => never };\n\nexport default (r: Ctx): void => {\n  const where = new Error('here');\n  throw where;\n};\n",
  });
  const { run } = await load(root, { runList: ["a"] });
  const module = await run.recipeBook.include("a");
  const recipe = module?.exports.default as () => void;
  let caught: unknown;
  try {
    recipe();
  } catch (error) {
    caught = error;
  }
  const file = `${root}/cookbooks/a/recipes/default.ts`;
  assert.deepEqual(run.locate(caught), { file, line: 4, column: 17 });
  const frame = /default\.ts:(\d+):(\d+)/.exec((caught as Error).stack ?? "");
  const mapped = run.mapLocation({ file, line: Number(frame?.[1]), column: Number(frame?.[2]) });
  assert.deepEqual(mapped, { file, line: 4, column: 17 });
  assert.deepEqual(run.mapLocation({ file: "/elsewhere.ts", line: 3 }), {
    file: "/elsewhere.ts",
    line: 3,
    column: 1,
  });
});

test("transpiled files are kept across runs; a changed or damaged entry is transpiled again", async (t) => {
  const root = makeRepo(t, {
    "cookbooks/a/attributes/default.ts": "export default (node: any) => {\n  node.default.v = 1;\n};\n",
  });
  const cache = join(root, "local-mode-cache", "tend");
  assert.equal((await load(root, { runList: [] })).run.node.get("v"), undefined);
  writeFiles(root, { "cookbooks/a/recipes/default.ts": "export default () => {};\n" });
  assert.equal((await load(root, { runList: ["a"] })).run.node.get("v"), 1);
  assert.equal(readdirSync(cache).length, 1);
  assert.equal((await load(root, { runList: ["a"] })).run.node.get("v"), 1);
  assert.equal(readdirSync(cache).length, 1);
  writeFiles(root, {
    "cookbooks/a/attributes/default.ts": "export default (node: any) => {\n  node.default.v = 2;\n};\n",
  });
  assert.equal((await load(root, { runList: ["a"] })).run.node.get("v"), 2);
  assert.equal(readdirSync(cache).length, 2);
  for (const entry of readdirSync(cache)) writeFileSync(join(cache, entry), "{ damaged");
  assert.equal((await load(root, { runList: ["a"] })).run.node.get("v"), 2);
  const none = makeRepo(t, {
    "cookbooks/a/attributes/default.ts": "export default () => {};\n",
    "cookbooks/a/recipes/default.ts": "export default () => {};\n",
  });
  await load(none, { runList: ["a"], cacheDirectory: false });
  assert.equal(existsSync(join(none, "local-mode-cache")), false);
});
