/**
 * The node across runs, as chef-client keeps it in local mode: saved to
 * nodes/<name>.json at the end of a run (normal attributes, the combined
 * default and override levels, automatic, the run list given by -j or
 * saved, never -o's), read back at the next start: normal attributes and
 * the run list persist, default and override are recomputed.
 */
import assert from "node:assert/strict";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { AttributeValue, RecipeContext } from "../../../src/recipes/dsl.js";
import type { AttributeTree } from "../../../src/recipes/model.js";
import { runRecipes } from "../../../src/recipes/run.js";
import { FACTS, load, loadProblems, makeRepo } from "./repo.js";

test("normal attributes persist; default and override are recomputed each run", async (t) => {
  const root = makeRepo(t, {
    "cookbooks/a/attributes/default.ts": "export default (node: any) => {\n  node.default.d = 'file';\n};\n",
    "cookbooks/a/recipes/default.ts":
      "export default ({ node }: any) => {\n  node.normal.counter = ((node.get('counter') as number) ?? 0) + 1;\n  node.override.once = true;\n};\n",
    "node.json": { run_list: ["recipe[a]"], given: "by -j" },
  });
  const run1 = (await load(root, { jsonAttributes: join(root, "node.json") })).run;
  const recipe = async (run: typeof run1): Promise<void> => {
    const m = await run.recipeBook.include("a");
    assert.ok(m);
    (m.exports.default as (r: object) => void)({ node: run.node });
  };
  await recipe(run1);
  await run1.saveNode();
  const file = join(root, "nodes", `${FACTS.fqdn}.json`);
  const saved = JSON.parse(readFileSync(file, "utf8"));
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(
    { ...saved, automatic: undefined },
    {
      name: "node1.example.com",
      chef_environment: "_default",
      json_class: "Chef::Node",
      chef_type: "node",
      automatic: undefined,
      normal: { given: "by -j", counter: 1 },
      default: { d: "file" },
      override: { once: true },
      run_list: ["recipe[a]"],
    },
  );
  assert.equal(saved.automatic.hostname, "node1");
  assert.deepEqual(saved.automatic.recipes, ["a::default"]);

  // Next run: no -j, an -o run list; the saved node gives normal attributes.
  const run2 = (await load(root, { runList: ["a"] })).run;
  assert.equal(run2.node.get("counter"), 1);
  assert.equal(run2.node.get("once"), undefined);
  await recipe(run2);
  assert.equal(run2.node.get("counter"), 2);
  await run2.saveNode();
  const again = JSON.parse(readFileSync(file, "utf8"));
  assert.equal(again.normal.counter, 2);
  // -o does not replace the node's own run list.
  assert.deepEqual(again.run_list, ["recipe[a]"]);
});

test("a bad -j file or saved node is a diagnostic", async (t) => {
  const root = makeRepo(t, {
    "bad.json": '{\n  "run_list": ["recipe[a]"],\n  "chef_environment": 3\n}\n',
    "list.json": "[1]",
    "syntax.json": '{ "a": 1 ',
    "nodes/n.json": '{ "normal": [1] }',
  });
  assert.deepEqual(await loadProblems(root, { jsonAttributes: join(root, "bad.json") }), [
    "bad.json:3:23: error: 'chef_environment' must be an environment name",
  ]);
  assert.deepEqual(await loadProblems(root, { jsonAttributes: join(root, "list.json") }), [
    "list.json:1:1: error: a node JSON file must hold an object",
  ]);
  assert.deepEqual(await loadProblems(root, { jsonAttributes: join(root, "syntax.json") }), [
    "syntax.json:1:10: error: invalid JSON: expected ',' or '}' after a member, found end of input",
  ]);
  assert.deepEqual(await loadProblems(root, { nodeName: "n" }), [
    "nodes/n.json:1:13: error: 'normal' must be an object of attributes",
  ]);
});

test("recipes write node levels in a real run; normal is kept for the next run", async (t) => {
  const root = makeRepo(t, {
    "cookbooks/a/metadata.json": { name: "a", version: "1.0.0" },
    "cookbooks/a/attributes/default.ts":
      "export default (node: any) => {\n  node.default.app.port = 80;\n};\n",
    "cookbooks/a/recipes/default.ts": [
      'import type { RecipeContext } from "tend/recipes";',
      "export default (r: RecipeContext) => {",
      '  r.node.normal.runs = ((r.node.get("runs") as number | undefined) ?? 0) + 1;',
      "  r.node.override.app.port = 8080;",
      '  r.file(String(r.node.get("out")), {',
      '    content: r.lazy(() => [r.node.get("app", "port"), r.node.get("runs")].join(" ") + "\\n"),',
      "  });",
      "};",
      "",
    ].join("\n"),
  });
  const out = join(root, "out.txt");
  const run = async () =>
    runRecipes({
      cookbookPaths: [join(root, "cookbooks")],
      automatic: { ...FACTS, out },
      runList: ["a"],
    });
  const first = await run();
  assert.equal(first.step, "converged", JSON.stringify(first));
  assert.equal(readFileSync(out, "utf8"), "8080 1\n");
  const saved = JSON.parse(readFileSync(join(root, "nodes", `${FACTS.fqdn}.json`), "utf8"));
  assert.equal(saved.normal.runs, 1);
  assert.deepEqual(saved.override, { app: { port: 8080 } });
  const second = await run();
  assert.equal(second.step, "converged");
  assert.equal(readFileSync(out, "utf8"), "8080 2\n");
});

test("the recipe context's node is typed: levels writable, merged reads", () => {
  // Compiled by tsc with the tests: a wrong use would fail the build.
  const recipe = (r: RecipeContext): void => {
    r.node.default.nginx.port = 80;
    r.node.force_override.nginx.workers = 4;
    const port: AttributeValue | undefined = r.node.get("nginx", "port");
    const merged: AttributeTree = r.node.attributes;
    void port;
    void merged;
  };
  assert.equal(typeof recipe, "function");
});
