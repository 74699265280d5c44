/**
 * Run lists (issue 17, must-show 1, second half): the item forms
 * chef-client accepts, expansion of roles recursively with each recipe
 * once, `env_run_lists`, a role met twice applied once, a role cycle and a
 * missing role as errors at their place, and `includeRecipe` of a recipe
 * already included doing nothing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { formatRunListItem, parseRunListItem } from "../../../src/recipes/run-list.js";
import { load, loadProblems, makeRepo, metadata } from "./repo.js";

const RECIPE = "export default () => {};\n";

test("run-list items in each form chef-client accepts", () => {
  const cases: [string, string | undefined][] = [
    ["recipe[nginx]", "recipe[nginx::default]"],
    ["recipe[nginx::site]", "recipe[nginx::site]"],
    ["nginx", "recipe[nginx::default]"],
    ["nginx::site", "recipe[nginx::site]"],
    [" recipe[ nginx::site ] ", "recipe[nginx::site]"],
    ["recipe[nginx::site@1.2.0]", "recipe[nginx::site]"],
    ["role[web]", "role[web]"],
    ["role[]", undefined],
    ["recipe[a b]", undefined],
    ["thing[x]", undefined],
    ["", undefined],
  ];
  for (const [text, expected] of cases) {
    const item = parseRunListItem(text);
    assert.equal(item && formatRunListItem(item), expected, text);
  }
});

function repo(): Record<string, string | object> {
  const files: Record<string, string | object> = {
    "roles/web.json": { run_list: ["role[base]", "recipe[nginx]", "recipe[app::web]", "role[monitoring]"] },
    "roles/base.json": { run_list: ["recipe[users]", "recipe[nginx::default]", "role[monitoring]"] },
    "roles/monitoring.json": {
      run_list: ["recipe[collectd]"],
      env_run_lists: { prod: ["recipe[collectd]", "recipe[alerts]"] },
    },
    "environments/prod.json": { name: "prod" },
  };
  for (const r of [
    "users::default",
    "nginx::default",
    "app::web",
    "app::default",
    "collectd::default",
    "alerts::default",
  ]) {
    const [cb, name] = r.split("::");
    files[`cookbooks/${cb}/recipes/${name}.ts`] = RECIPE;
  }
  return files;
}

test("roles expand recursively, in order; each recipe and each role once", async (t) => {
  const root = makeRepo(t, repo());
  const { run } = await load(root, { runList: ["recipe[app]", "role[web]", "users", "app::web"] });
  assert.deepEqual(run.runList.recipes, [
    "app::default",
    "users::default",
    "nginx::default",
    "collectd::default",
    "app::web",
  ]);
  assert.deepEqual(run.runList.roles, ["web", "base", "monitoring"]);
  assert.deepEqual(run.node.recipes, run.runList.recipes);
});

test("a role's env_run_lists entry replaces its run list in that environment", async (t) => {
  const root = makeRepo(t, repo());
  const { run } = await load(root, { runList: ["role[monitoring]"], environment: "prod" });
  assert.deepEqual(run.runList.recipes, ["collectd::default", "alerts::default"]);
  assert.equal(run.node.chefEnvironment, "prod");
});

test("a role cycle and a missing role are errors where the role is named", async (t) => {
  const root = makeRepo(t, {
    "roles/a.json": { run_list: ["role[b]"] },
    "roles/b.json": { run_list: ["recipe[x]", "role[a]"] },
    "roles/c.json": { run_list: ["role[ghost]"] },
    "roles/d.json": { run_list: ["recipe[bad name]"] },
  });
  assert.deepEqual(await loadProblems(root, { runList: ["role[a]"] }), [
    "roles/b.json:4:5: error: role 'a' includes itself: a -> b -> a",
  ]);
  assert.deepEqual(await loadProblems(root, { runList: ["role[c]"] }), [
    "roles/c.json:3:5: error: role 'ghost' not found (no roles/ghost.json)",
  ]);
  assert.deepEqual(await loadProblems(root, { runList: ["role[d]"] }), [
    "roles/d.json:3:5: error: 'recipe[bad name]' is not a run-list item (recipe[cb::name], role[name], cb or cb::name)",
  ]);
  assert.deepEqual(await loadProblems(root, { runList: ["role[nothere]"] }), [
    "(--override-runlist):1:1: error: role 'nothere' not found (no roles/nothere.json)",
  ]);
});

test("bad role and environment files: file:line:col", async (t) => {
  const root = makeRepo(t, {
    "roles/r.json": '{\n  "run_list": "recipe[x]"\n}\n',
    "roles/s.json": '{\n  "default_attributes": []\n}\n',
    "environments/e.json": '{\n  "cookbook_versions": { "x": "latest" }\n}\n',
  });
  assert.deepEqual(await loadProblems(root, { runList: ["role[r]"] }), [
    "roles/r.json:2:15: error: 'run_list' must be an array of run-list items",
  ]);
  assert.deepEqual(await loadProblems(root, { runList: ["role[s]"] }), [
    "roles/s.json:2:25: error: 'default_attributes' must be an object of attributes",
  ]);
  assert.deepEqual(await loadProblems(root, { runList: [], environment: "e" }), [
    `environments/e.json:2:31: error: the constraint on 'x' must be a version constraint like "= 1.0.0"`,
  ]);
  assert.deepEqual(await loadProblems(root, { runList: [], environment: "none" }), [
    "environments/none.json:1:1: error: environment 'none' not found: no such file",
  ]);
});

test("an environment's cookbook_versions must be met", async (t) => {
  const root = makeRepo(t, {
    "cookbooks/app/metadata.json": metadata("app", {}, "1.2.0"),
    "cookbooks/app/recipes/default.ts": RECIPE,
    "environments/prod.json": { cookbook_versions: { app: "= 2.0.0" } },
    "environments/test.json": { cookbook_versions: { app: "~> 1.1" } },
  });
  assert.deepEqual(await loadProblems(root, { runList: ["app"], environment: "prod" }), [
    "environments/prod.json:3:12: error: the environment needs 'app' = 2.0.0; cookbooks/app is version 1.2.0",
  ]);
  await load(root, { runList: ["app"], environment: "test" });
});

test("includeRecipe: once per run, only cookbooks of the run, unknown recipes are errors", async (t) => {
  const root = makeRepo(t, {
    "cookbooks/a/metadata.json": metadata("a", { b: ">= 0.0.0" }),
    "cookbooks/a/recipes/default.ts": RECIPE,
    "cookbooks/b/recipes/default.ts": RECIPE,
    "cookbooks/b/recipes/extra.ts": RECIPE,
    "cookbooks/c/recipes/default.ts": RECIPE,
  });
  const { run, steps } = await load(root, { runList: ["a"] });
  const book = run.recipeBook;
  assert.ok(await book.include("a"));
  assert.equal(await book.include("recipe[a::default]"), undefined);
  assert.ok(await book.include("b::extra"));
  assert.equal(await book.include("b::extra"), undefined);
  assert.deepEqual(book.included, ["a::default", "b::extra"]);
  assert.deepEqual(steps, ["a/recipes/default", "b/recipes/extra"]);
  const at = { file: "/x/recipes/default.ts", line: 3, column: 9 };
  await assert.rejects(book.include("c", at), {
    message:
      "/x/recipes/default.ts:3:9: error: cookbook 'c' is not in this run: add it to the run list or to the including cookbook's dependencies in metadata.json",
  });
  await assert.rejects(book.include("b::nope", at), {
    message: "/x/recipes/default.ts:3:9: error: cookbook 'b' has no recipe 'nope' (no recipes/nope.ts)",
  });
});

test("the run list comes from -o, else the -j file, else the saved node", async (t) => {
  const root = makeRepo(t, {
    "cookbooks/a/recipes/default.ts": RECIPE,
    "cookbooks/b/recipes/default.ts": RECIPE,
    "cookbooks/c/recipes/default.ts": RECIPE,
    "nodes/n1.json": { name: "n1", run_list: ["recipe[a]"] },
    "node.json": { run_list: ["recipe[b]"] },
  });
  const json = join(root, "node.json");
  assert.deepEqual((await load(root, { nodeName: "n1" })).run.runList.recipes, ["a::default"]);
  assert.deepEqual((await load(root, { nodeName: "n1", jsonAttributes: json })).run.runList.recipes, [
    "b::default",
  ]);
  const override = await load(root, { nodeName: "n1", jsonAttributes: json, runList: ["c,a"] });
  assert.deepEqual(override.run.runList.recipes, ["c::default", "a::default"]);
});
