/**
 * Chef's attribute precedence (issue 17, must-show 2), as a table: every
 * pair of rows of Chef's precedence table (docs.chef.io "Attribute
 * Precedence": the level down, the source across) is set on one attribute
 * of its own, the lower row's value then the higher's; the merged node must
 * show the higher. Rows are in Chef's order, lowest first; the `-j` file is
 * one of normal's sources in Chef's first table and sits below the
 * attribute file there (the file writes after it). Then deep merge: hashes
 * key by key at every level, arrays joined within the default levels and
 * within the override levels, replaced between levels.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import type { LoadedRun, LoadOptions } from "../../../src/recipes/model.js";
import { runRecipes } from "../../../src/recipes/run.js";
import { FACTS, makeRepo, metadata } from "./repo.js";

type Source = "attribute file" | "recipe" | "environment" | "role" | "-j file" | "ohai";
type Row = readonly [level: string, source: Source];

/** Chef's table, lowest precedence first (15 rows and the -j source of normal). */
const TABLE: readonly Row[] = [
  ["default", "attribute file"],
  ["default", "recipe"],
  ["default", "environment"],
  ["default", "role"],
  ["force_default", "attribute file"],
  ["force_default", "recipe"],
  ["normal", "-j file"],
  ["normal", "attribute file"],
  ["normal", "recipe"],
  ["override", "attribute file"],
  ["override", "recipe"],
  ["override", "role"],
  ["override", "environment"],
  ["force_override", "attribute file"],
  ["force_override", "recipe"],
  ["automatic", "ohai"],
];

const label = (row: Row): string => `${row[0]} (${row[1]})`;

/** What each source sets: key -> value, by source and level. */
function settings(): Map<string, Map<string, Record<string, string>>> {
  const out = new Map<string, Map<string, Record<string, string>>>();
  const set = (row: Row, key: string): void => {
    const bySource = out.get(row[1]) ?? new Map<string, Record<string, string>>();
    out.set(row[1], bySource);
    const values = bySource.get(row[0]) ?? {};
    bySource.set(row[0], values);
    values[key] = label(row);
  };
  TABLE.forEach((low, i) => {
    TABLE.slice(i + 1).forEach((high, j) => {
      const key = `p${i}_${i + 1 + j}`;
      set(low, key);
      set(high, key);
    });
  });
  return out;
}

function assignments(levels: Map<string, Record<string, string>> | undefined): string {
  const lines: string[] = [];
  for (const [level, values] of levels ?? [])
    for (const [key, value] of Object.entries(values))
      lines.push(`  node.${level}.${key} = ${JSON.stringify(value)};`);
  return lines.join("\n");
}

/**
 * Loads, compiles and converges the repository as `tend converge` does
 * (runRecipes, the code path of the command): recipes get the run's node
 * through their context. The run as loaded comes back for its node.
 */
async function converged(root: string, options: Partial<LoadOptions>): Promise<LoadedRun> {
  let loaded: LoadedRun | undefined;
  const result = await runRecipes({
    cookbookPaths: [join(root, "cookbooks")],
    automatic: FACTS,
    ...options,
    onCompiled: (_collection, run) => {
      loaded = run;
    },
  });
  assert.equal(result.step, "converged", JSON.stringify(result));
  assert.ok(loaded);
  return loaded;
}

test("every pair of rows of Chef's precedence table: the higher row wins", async (t) => {
  const set = settings();
  const root = makeRepo(t, {
    "cookbooks/app/metadata.json": metadata("app"),
    "cookbooks/app/attributes/default.ts": `export default (node: any) => {\n${assignments(set.get("attribute file"))}\n};\n`,
    "cookbooks/app/recipes/default.ts": `import type { RecipeContext } from "tend/recipes";\nexport default (r: RecipeContext) => {\n  const node = r.node;\n${assignments(set.get("recipe"))}\n};\n`,
    "roles/web.json": {
      name: "web",
      run_list: ["recipe[app]"],
      default_attributes: set.get("role")?.get("default"),
      override_attributes: set.get("role")?.get("override"),
    },
    "environments/prod.json": {
      name: "prod",
      default_attributes: set.get("environment")?.get("default"),
      override_attributes: set.get("environment")?.get("override"),
    },
    "node.json": { run_list: ["role[web]"], chef_environment: "prod", ...set.get("-j file")?.get("normal") },
  });
  const run = await converged(root, {
    jsonAttributes: join(root, "node.json"),
    automatic: { ...FACTS, ...set.get("ohai")?.get("automatic") },
  });
  const wrong: string[] = [];
  let pairs = 0;
  TABLE.forEach((low, i) => {
    TABLE.slice(i + 1).forEach((high, j) => {
      pairs++;
      const got = run.node.get(`p${i}_${i + 1 + j}`);
      if (got !== label(high)) wrong.push(`${label(low)} < ${label(high)}: got ${String(got)}`);
    });
  });
  assert.equal(pairs, (16 * 15) / 2);
  assert.deepEqual(wrong, []);
});

test("each row alone shows its value (no source is lost)", async (t) => {
  const root = makeRepo(t, {
    "cookbooks/app/metadata.json": metadata("app"),
    "cookbooks/app/attributes/default.ts":
      "export default (node: any) => {\n  node.default.f.d = 1; node.force_default.f.fd = 1; node.normal.f.n = 1;\n  node.override.f.o = 1; node.force_override.f.fo = 1;\n};\n",
    "cookbooks/app/recipes/default.ts":
      "import type { RecipeContext } from 'tend/recipes';\nexport default ({ node }: RecipeContext) => {\n  node.default.r.d = 1; node.force_default.r.fd = 1; node.normal.r.n = 1;\n  node.override.r.o = 1; node.force_override.r.fo = 1;\n};\n",
    "roles/web.json": {
      run_list: ["app"],
      default_attributes: { role: { d: 1 } },
      override_attributes: { role: { o: 1 } },
    },
    "environments/prod.json": {
      default_attributes: { env: { d: 1 } },
      override_attributes: { env: { o: 1 } },
    },
    "node.json": { run_list: ["role[web]"], chef_environment: "prod", j: { n: 1 } },
  });
  const run = await converged(root, { jsonAttributes: join(root, "node.json") });
  const all = { d: 1, fd: 1, n: 1, o: 1, fo: 1 };
  assert.deepEqual(run.node.get("f"), all);
  assert.deepEqual(run.node.get("r"), all);
  assert.deepEqual(run.node.get("role"), { d: 1, o: 1 });
  assert.deepEqual(run.node.get("env"), { d: 1, o: 1 });
  assert.deepEqual(run.node.get("j"), { n: 1 });
  assert.equal(run.node.get("hostname"), "node1");
  assert.deepEqual(run.node.get("roles"), ["web"]);
  assert.deepEqual(run.node.get("recipes"), ["app::default"]);
});
