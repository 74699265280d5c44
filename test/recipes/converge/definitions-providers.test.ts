/**
 * Chef's definitions and LWRP providers as tend loads them: a providers/
 * file gives the actions of the resources/ file it names (`null` actions
 * there), and a definitions/ file is a macro expanded while the recipe
 * compiles (its resources join the recipe's collection; it is no resource
 * itself). Run through runRecipes, the code path of `tend converge`.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runRecipes } from "../../../src/recipes/run.js";
import { FACTS, makeRepo } from "../load/repo.js";

const SITE = `import { defineResource } from "tend/recipes";
export default defineResource({
  properties: { path: { type: String, nameProperty: true }, content: { type: String, default: "hi\\n" } },
  actions: { create: null, remove: null, touch: (a) => { a.file(a.props.path + ".touched", { content: "" }); } },
});
`;

const SITE_PROVIDER = `import { defineProvider } from "tend/recipes";
import site from "../resources/site";
export default defineProvider(site, {
  create: (a) => { a.file(a.props.path, { content: a.props.content }); },
  remove: (a) => { a.file(a.props.path, { action: "delete" }); },
});
`;

const VHOST = `import { defineDefinition } from "tend/recipes";
export default defineDefinition({
  name: "vhost",
  defaults: { port: 80 },
  body: (r, params) => {
    const root = String(r.node.get("root"));
    r.file(root + "/" + params.name + ".conf", { content: "port " + params.port + "\\n" });
  },
});
`;

const RECIPE = `import type { RecipeContext } from "tend/recipes";
import site from "../resources/site";
import vhost from "../definitions/vhost";
export default (r: RecipeContext) => {
  const root = String(r.node.get("root"));
  r.resource("web_site", root + "/a", { content: "by name\\n" });
  r.declare(site, root + "/b", { action: ["create", "touch"] } as never);
  r.resource("vhost", "one", { port: 8080 });
  r.expand(vhost, "two");
  r.log("after one", { subscribes: r.subscribes("write", "file[" + root + "/one.conf]") });
};
`;

async function converge(t: import("node:test").TestContext, files: Record<string, string>) {
  const root = makeRepo(t, files);
  return {
    root,
    result: await runRecipes({
      cookbookPaths: [join(root, "cookbooks")],
      runList: ["web"],
      automatic: FACTS,
      cacheDirectory: false,
      nodePath: join(root, "nodes"),
      jsonAttributes: join(root, "node.json"),
    }),
  };
}

test("a provider gives its resource's actions; a definition expands into the recipe", async (t) => {
  const repo = (root: string) => ({
    "node.json": JSON.stringify({ root }),
    "cookbooks/web/resources/site.ts": SITE,
    "cookbooks/web/providers/site.ts": SITE_PROVIDER,
    "cookbooks/web/definitions/vhost.ts": VHOST,
    "cookbooks/web/recipes/default.ts": RECIPE,
  });
  const first = makeRepo(t, {});
  const { result } = await converge(t, repo(first));
  assert.equal(result.step, "converged", JSON.stringify(result));
  assert.equal(readFileSync(join(first, "a"), "utf8"), "by name\n");
  assert.equal(readFileSync(join(first, "b"), "utf8"), "hi\n");
  assert.ok(existsSync(join(first, "b.touched")));
  assert.equal(readFileSync(join(first, "one.conf"), "utf8"), "port 8080\n");
  assert.equal(readFileSync(join(first, "two.conf"), "utf8"), "port 80\n");
  if (result.step !== "converged") return;
  // The definition is no resource: its files are, and a subscription to one works.
  const refs = result.status.allResources.map((r) => r.ref);
  assert.ok(refs.includes(`file[${first}/one.conf]`), refs.join(" "));
  assert.ok(!refs.some((r) => r.startsWith("vhost[")), refs.join(" "));
});

test("provider and definition mistakes are load diagnostics at the file", async (t) => {
  const cases: [Record<string, string>, RegExp][] = [
    [
      { "cookbooks/web/resources/site.ts": SITE },
      /resources\/site.ts:1:1: .*action 'create' of 'web_site' is null/,
    ],
    [
      {
        "cookbooks/web/resources/site.ts": SITE,
        "cookbooks/web/providers/site.ts": SITE_PROVIDER.replace("remove:", "destroy:"),
      },
      /providers\/site.ts:1:1: .*'web_site' has no action 'destroy'/,
    ],
    [
      { "cookbooks/web/providers/other.ts": `export default { nothing: true };\n` },
      /providers\/other.ts:1:1: .*must `export default defineProvider/,
    ],
  ];
  for (const [files, expected] of cases) {
    const { result } = await converge(t, {
      "node.json": "{}",
      "cookbooks/web/recipes/default.ts": "export default () => {};\n",
      ...files,
    });
    assert.equal(result.step, "load");
    if (result.step !== "load") continue;
    const lines = result.diagnostics.map((d) => `${d.file}:${d.line}:${d.column}: ${d.message}`);
    assert.match(lines.join("\n"), expected);
  }
});
