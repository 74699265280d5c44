/**
 * Compile: declaring only appends to the collection (nothing changes on
 * the system), the collection is a catalog in the shared schema with each
 * declaration's file and line, bad declarations are diagnostics, and the
 * compile-time trap of the model (issue 17's exact example: a file /foo
 * with content bar, then a conditional `execute 'myapp /foo'`) is caught:
 * the warning with both locations, the behaviour without a guard, and the
 * behaviour with onlyIf.
 */
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { formatRecipeDiagnostic } from "../../../src/recipes/collection.js";
import { compileRecipes } from "../../../src/recipes/compile.js";
import { defineResource, type RecipeContext } from "../../../src/recipes/dsl.js";
import { compile, run, tempDir } from "./helpers.js";

const THIS_FILE = fileURLToPath(import.meta.url);

test("declaring changes nothing; the collection is a catalog with each declaration's file and line", async (t) => {
  const dir = tempDir(t);
  const collection = await compile((r) => {
    r.file(join(dir, "motd"), { content: "hi\n", mode: "0644" });
    r.execute("echo hi", {
      onlyIf: "true",
      notifies: r.notifies("create", `file[${join(dir, "motd")}]`, "immediately"),
    });
  });
  assert.equal(existsSync(join(dir, "motd")), false);
  const catalog = collection.toCatalog("node1");
  assert.equal(catalog.name, "node1");
  assert.deepEqual(
    catalog.resources.map((r) => [r.type, r.title, r.file, typeof r.line]),
    [
      ["File", join(dir, "motd"), THIS_FILE, "number"],
      ["Execute", "echo hi", THIS_FILE, "number"],
    ],
  );
  const [file, execute] = catalog.resources;
  assert.deepEqual(file?.parameters, { content: "hi\n", mode: "0644", action: ["create"] });
  assert.deepEqual(execute?.parameters, {
    action: ["run"],
    notifies: [{ action: "create", target: `file[${join(dir, "motd")}]`, timing: "immediate" }],
    onlyIf: ["true"],
  });
  assert.equal((execute?.line ?? 0) - (file?.line ?? 0), 1);
  assert.deepEqual(JSON.parse(JSON.stringify(catalog)), catalog);
});

test("bad declarations are diagnostics at the declaration", async () => {
  const collection = await compileRecipes([
    {
      name: "bad::default",
      run: (r) => {
        r.resource("file", "/x", { contnet: "x" });
        r.resource("service", "web", { action: "explode" });
        r.resource("nosuch", "thing");
        r.file("/y", { notifies: r.notifies("restart", "service[missing]") });
      },
    },
  ]);
  const lines = collection.diagnostics.map(formatRecipeDiagnostic);
  assert.equal(lines.length, 4);
  assert.match(lines[0] ?? "", /compile\.test\.js:\d+:\d+: file\[\/x\]: unknown property 'contnet'/);
  assert.match(lines[1] ?? "", /service\[web\]: service has no action 'explode'/);
  assert.match(lines[2] ?? "", /nosuch\[thing\]: unknown resource type 'nosuch'/);
  assert.match(
    lines[3] ?? "",
    /notifies service\[missing\] to restart, but service\[missing\] is not in the resource collection/,
  );
});

/** A `myapp` that records each run, for the example. */
function myapp(dir: string): string {
  const path = join(dir, "myapp");
  writeFileSync(path, `#!/bin/sh\necho "ran on $(cat "$1")" >> ${join(dir, "myapp.log")}\n`);
  chmodSync(path, 0o755);
  return path;
}

test("the compile-time trap: a compile-time read of a managed path warns with both locations", async (t) => {
  const dir = tempDir(t);
  const foo = join(dir, "foo");
  const app = myapp(dir);
  const recipe = (r: RecipeContext) => {
    r.file(foo, { content: "bar" });
    if (existsSync(foo)) r.execute(`${app} ${foo}`);
  };
  const collection = await compileRecipes([{ name: "trap::default", run: recipe }]);
  assert.equal(collection.warnings.length, 1);
  const warning = collection.warnings[0];
  const declared = collection.declarations[0]?.location;
  assert.equal(warning?.location?.file, THIS_FILE);
  assert.equal((warning?.location?.line ?? 0) - (declared?.line ?? 0), 1);
  assert.match(
    formatRecipeDiagnostic(warning ?? { message: "" }),
    new RegExp(
      `compile\\.test\\.js:\\d+:\\d+: compile-time read of ${foo} \\(existsSync\\) while file\\[${foo}\\], declared at ${THIS_FILE}:${declared?.line}, manages it: .*Use a guard \\(onlyIf/notIf\\) or lazy\\(\\)`,
    ),
  );

  // Without a guard: the first run compiles before /foo exists, so myapp does not run...
  const first = await run(collection);
  assert.deepEqual(
    first.status.allResources.map((s) => s.ref),
    [`file[${foo}]`],
  );
  assert.equal(existsSync(join(dir, "myapp.log")), false);
  // ...and only the second run (compiled after the first made /foo) runs it.
  await run(await compileRecipes([{ name: "trap::default", run: recipe }]));
  assert.equal(readFileSync(join(dir, "myapp.log"), "utf8"), "ran on bar\n");
});

test("the compile-time trap avoided: with onlyIf the guard runs at converge, on the first run", async (t) => {
  const dir = tempDir(t);
  const foo = join(dir, "foo");
  const app = myapp(dir);
  const collection = await compileRecipes([
    {
      name: "trap::default",
      run: (r) => {
        r.file(foo, { content: "bar" });
        r.execute(`${app} ${foo}`, { onlyIf: () => existsSync(foo) });
      },
    },
  ]);
  assert.deepEqual(collection.warnings, []);
  const { journal } = await run(collection);
  assert.deepEqual(journal, [`file[${foo}] create updated`, `execute[${app} ${foo}] run updated`]);
  assert.equal(readFileSync(join(dir, "myapp.log"), "utf8"), "ran on bar\n");
});

test("reads of unmanaged paths, and reads after compile, do not warn", async (t) => {
  const dir = tempDir(t);
  const collection = await compileRecipes([
    {
      name: "quiet::default",
      run: (r) => {
        r.file(join(dir, "managed"), { content: "x" });
        existsSync(join(dir, "other"));
        r.directory(join(dir, "tree"));
        existsSync(join(dir, "tree", "inside"));
      },
    },
  ]);
  assert.equal(collection.warnings.length, 1);
  assert.match(collection.warnings[0]?.message ?? "", /tree\/inside .*directory\[/);
  existsSync(join(dir, "managed"));
  assert.equal(collection.warnings.length, 1);
});

const site = defineResource({
  name: "site",
  properties: {
    root: { type: String, nameProperty: true },
    port: { type: Number, default: 80 },
    banner: { type: String, default: "welcome" },
  },
  loadCurrentValue: (name) => {
    if (!existsSync(join(name, "port"))) return undefined;
    return { port: Number(readFileSync(join(name, "port"), "utf8")) };
  },
  actions: {
    create: async (a) => {
      a.directory(a.props.root);
      a.file(join(a.props.root, "index.html"), { content: `${a.props.banner}\n` });
      // As in Chef, convergeIfChanged runs in the action's body, before the resources it declared converge.
      await a.convergeIfChanged(() => {
        mkdirSync(a.props.root, { recursive: true });
        writeFileSync(join(a.props.root, "port"), String(a.props.port));
      });
    },
    delete: (a) => {
      a.directory(a.props.root, { action: "delete", recursive: true });
    },
  },
});

test("custom resources: defaults, nested resources converged at once, convergeIfChanged", async (t) => {
  const dir = tempDir(t);
  const root = join(dir, "www");
  const recipe = (port: number) => (r: RecipeContext) => {
    r.declare(site, root, { port, notifies: r.notifies("write", "log[site changed]") });
    r.log("site changed", { action: "nothing" });
  };
  const first = await run(await compile(recipe(8080)));
  assert.deepEqual(first.journal, [
    `directory[${root}] create up-to-date`,
    `file[${join(root, "index.html")}] create updated`,
    `site[${root}] create updated`,
    "log[site changed] nothing up-to-date",
    "log[site changed] write updated (notified)",
  ]);
  const siteEvent = first.events.find((e) => e.kind === "action" && e.ref === `site[${root}]`);
  assert.deepEqual(siteEvent?.kind === "action" ? siteEvent.lines : [], [
    `create site[${root}]`,
    `  set root to ${JSON.stringify(root)} (default value)`,
    "  set port to 8080",
    '  set banner to "welcome" (default value)',
  ]);
  assert.equal(readFileSync(join(root, "port"), "utf8"), "8080");
  const same = await run(await compile(recipe(8080)));
  assert.equal(same.status.updatedResources.length, 0);
  const changed = await run(await compile(recipe(9090)));
  const changedEvent = changed.events.find((e) => e.kind === "action" && e.ref === `site[${root}]`);
  assert.deepEqual(changedEvent?.kind === "action" ? changedEvent.lines : [], [
    `update site[${root}]`,
    "  set port to 9090 (was 8080)",
  ]);
});

test("a custom resource's wrong property is a diagnostic", async () => {
  const collection = await compileRecipes([
    { name: "c::default", run: (r) => void r.resource("site", "/srv", { port: "80", colour: "red" }) },
  ]);
  assert.deepEqual(collection.diagnostics, [
    {
      location: collection.diagnostics[0]?.location,
      message: "site[/srv]: unknown resource type 'site'",
    },
  ]);
  const known = await compileRecipes([
    {
      name: "c::default",
      run: (r) => {
        r.declare(site, "/srv", {});
        r.resource("site", "/srv2", { port: "80", colour: "red" });
      },
    },
  ]);
  assert.deepEqual(
    known.diagnostics.map((d) => d.message),
    [
      "site[/srv2]: unknown property 'colour' (root, port, banner)",
      "site[/srv2]: property 'port' must be a number, not \"80\"",
    ],
  );
});
