/**
 * Handlers from the run's config file (chef-client's client.rb
 * `report_handlers` / `exception_handlers`, as a TypeScript `--config`):
 * report handlers on success, exception handlers on failure, before the
 * recipes' own; a bad config is a load diagnostic at the file.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runRecipes } from "../../../src/recipes/run.js";
import { FACTS, makeRepo } from "../load/repo.js";

const CONFIG = `import { writeFileSync, appendFileSync } from "node:fs";
import { defineConfig } from "tend/recipes";
const out = process.env.TEND_TEST_HANDLER_OUT as string;
export default defineConfig({
  reportHandlers: [(s) => appendFileSync(out, "report " + s.success + " " + s.updatedResources.map((r) => r.ref).join(",") + "\\n")],
  exceptionHandlers: [(s) => appendFileSync(out, "exception " + s.exception?.message + "\\n")],
});
`;

const RECIPE = (fail: boolean) => `import { appendFileSync } from "node:fs";
import type { RecipeContext } from "tend/recipes";
export default (r: RecipeContext) => {
  const out = process.env.TEND_TEST_HANDLER_OUT as string;
  r.onReport(() => appendFileSync(out, "recipe report\\n"));
  r.onException(() => appendFileSync(out, "recipe exception\\n"));
  r.log("hello", {});
  ${fail ? `r.execute("boom", { command: "exit 3" });` : ""}
};
`;

async function converge(root: string, config = "config.ts") {
  return runRecipes({
    cookbookPaths: [join(root, "cookbooks")],
    runList: ["app"],
    automatic: FACTS,
    cacheDirectory: false,
    nodePath: join(root, "nodes"),
    configFile: join(root, config),
  });
}

test("config handlers run on success and on failure, before the recipes' own", async (t) => {
  const ok = makeRepo(t, { "config.ts": CONFIG, "cookbooks/app/recipes/default.ts": RECIPE(false) });
  const out = join(ok, "out");
  process.env.TEND_TEST_HANDLER_OUT = out;
  t.after(() => delete process.env.TEND_TEST_HANDLER_OUT);
  const good = await converge(ok);
  assert.equal(good.step, "converged");
  assert.equal(readFileSync(out, "utf8"), "report true log[hello]\nrecipe report\n");

  const bad = makeRepo(t, { "config.ts": CONFIG, "cookbooks/app/recipes/default.ts": RECIPE(true) });
  process.env.TEND_TEST_HANDLER_OUT = join(bad, "out");
  const failed = await converge(bad);
  assert.equal(failed.step, "converged");
  const text = readFileSync(join(bad, "out"), "utf8");
  assert.match(text, /^exception [\s\S]*exit 3/);
  assert.ok(text.endsWith("\nrecipe exception\n"), text);
  assert.ok(!text.includes("report"), text);
});

test("a config that is not one is a load diagnostic at the file", async (t) => {
  const cases: [string, RegExp][] = [
    ["export default 42;\n", /config.ts:1:1: a config file must `export default defineConfig/],
    ["export default { reportHandler: [] };\n", /unknown config setting 'reportHandler'/],
    ["export default { reportHandlers: ['x'] };\n", /must be arrays of functions/],
    ["export default {\n  reportHandlers: [\n", /config.ts:\d+:\d+: /],
  ];
  for (const [text, expected] of cases) {
    const root = makeRepo(t, { "config.ts": text, "cookbooks/app/recipes/default.ts": RECIPE(false) });
    const result = await converge(root);
    assert.equal(result.step, "load", text);
    if (result.step !== "load") continue;
    const line = result.diagnostics.map((d) => `${d.file}:${d.line}:${d.column}: ${d.message}`).join("\n");
    assert.match(line.replaceAll(`${root}/`, ""), expected);
  }
});
