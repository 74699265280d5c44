/**
 * `tend converge` as users run it: the example cookbooks (examples/cookbooks)
 * converged under a temporary root given with -j, chef-client's output and
 * exit codes, why-run, --compile-only, --json, a second run that changes
 * nothing, and a failing run. Also the typed DSL: a misspelt property, an
 * action a resource lacks and a notification to an action its target lacks
 * fail type checking (tsc --noEmit on a bad recipe).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { repoRoot, runTend } from "../../cli/run-tend.js";
import { tempDir } from "./helpers.js";

const EXAMPLES = join(repoRoot, "examples", "cookbooks");

function exampleArgs(dir: string, ...more: string[]): string[] {
  const node = join(dir, "node.json");
  writeFileSync(node, JSON.stringify({ example: { root: join(dir, "root") } }));
  return [
    "converge",
    "--cookbook-path",
    EXAMPLES,
    "-o",
    "website",
    "-j",
    node,
    "--node-path",
    join(dir, "nodes"),
    "-N",
    "test-node",
    ...more,
  ];
}

test("the example cookbooks converge, then a second run changes nothing", (t) => {
  const dir = tempDir(t);
  const first = runTend(exampleArgs(dir), { cwd: dir, env: { NO_COLOR: "1" } });
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /^Starting tend converge/);
  assert.match(
    first.stdout,
    /Recipe: base::default\n {2}\* directory\[.*\/root\] action create\n {4}- create new directory /,
  );
  assert.match(
    first.stdout,
    /\* website_site\[.*\/root\/www\] action create\n {4}\* directory\[.*\/www\/public\] action create\n/,
  );
  assert.match(first.stdout, /\* execute\[reload web server\] action run\n {4}- execute date/);
  assert.match(first.stdout, /tend converge finished, 9\/9 resources updated in \d\d seconds\n$/);
  assert.equal(readFileSync(join(dir, "root", "www", "port"), "utf8"), "8080");
  assert.match(readFileSync(join(dir, "root", "etc", "motd"), "utf8"), /^Managed by tend/);
  assert.ok(existsSync(join(dir, "nodes", "test-node.json")));
  const second = runTend(exampleArgs(dir), { cwd: dir, env: { NO_COLOR: "1" } });
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /tend converge finished, 0\/9 resources updated/);
});

test("why-run says what would change and changes nothing", (t) => {
  const dir = tempDir(t);
  const result = runTend(exampleArgs(dir, "--why-run"), { cwd: dir, env: { NO_COLOR: "1" } });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, / {4}- Would create new directory /);
  assert.match(result.stdout, /Would have notified Execute\[reload web server\] to run \(delayed\)/);
  assert.match(result.stdout, /resources would have been updated/);
  assert.equal(existsSync(join(dir, "root")), false);
  assert.equal(existsSync(join(dir, "nodes")), false);
});

test("--compile-only prints the collection as a catalog; --json the run status", (t) => {
  const dir = tempDir(t);
  const compiled = runTend(exampleArgs(dir, "--compile-only"), { cwd: dir });
  assert.equal(compiled.code, 0, compiled.stderr);
  const catalog = JSON.parse(compiled.stdout) as {
    name: string;
    resources: { type: string; file: string; line: number }[];
  };
  assert.equal(catalog.name, "test-node");
  assert.deepEqual(
    catalog.resources.map((r) => r.type),
    ["Directory", "Directory", "Template", "Website_site", "File", "Log", "Execute", "Execute", "File"],
  );
  const site = catalog.resources[3];
  assert.equal(site?.file, join(EXAMPLES, "website", "recipes", "default.ts"));
  assert.equal(site?.line, 11);
  assert.equal(existsSync(join(dir, "root")), false);
  const json = runTend(exampleArgs(dir, "--json"), { cwd: dir });
  assert.equal(json.code, 0, json.stderr);
  const status = JSON.parse(json.stdout) as { success: boolean; updatedResources: string[] };
  assert.equal(status.success, true);
  assert.equal(status.updatedResources.length, 9);
});

test("a failed resource fails the run with exit code 1 and says where it was declared", (t) => {
  const dir = tempDir(t);
  const cookbook = join(dir, "cookbooks", "broken");
  mkdirSync(join(cookbook, "recipes"), { recursive: true });
  writeFileSync(join(cookbook, "metadata.json"), JSON.stringify({ name: "broken", version: "0.1.0" }));
  writeFileSync(
    join(cookbook, "recipes", "default.ts"),
    [
      'import type { RecipeContext } from "tend/recipes";',
      "export default (r: RecipeContext) => {",
      '  r.execute("exit 4");',
      `  r.file("${join(dir, "never")}", { content: "x" });`,
      "};",
      "",
    ].join("\n"),
  );
  const result = runTend(
    [
      "converge",
      "--cookbook-path",
      join(dir, "cookbooks"),
      "-o",
      "broken",
      "-N",
      "n",
      "--node-path",
      join(dir, "nodes"),
    ],
    { cwd: dir, env: { NO_COLOR: "1" } },
  );
  assert.equal(result.code, 1);
  assert.match(result.stdout, /Error executing action `run` on resource 'execute\[exit 4\]'/);
  assert.match(result.stdout, /tend converge failed\. 0 resources updated/);
  assert.match(
    result.stderr,
    new RegExp(`FATAL: execute\\[exit 4\\] had an error: .*declared at ${cookbook}/recipes/default.ts:3`),
  );
  assert.equal(existsSync(join(dir, "never")), false);
  const usage = runTend(["converge"], { cwd: dir });
  assert.equal(usage.code, 1);
  assert.match(usage.stderr, /--cookbook-path is required/);
});

test("type checking catches a misspelt property, a missing action and a wrong notification", (t) => {
  const dir = tempDir(t);
  // The package as a user installs it: node_modules/tend is this repository.
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(repoRoot, join(dir, "node_modules", "tend"));
  cpSync(join(EXAMPLES, "website", "resources", "site.ts"), join(dir, "site.ts"));
  writeFileSync(
    join(dir, "bad.ts"),
    [
      'import type { RecipeContext } from "tend/recipes";',
      'import site from "./site";',
      "export default (r: RecipeContext) => {",
      '  r.file("/a", { contnet: "x" });',
      '  r.service("web", { action: "creat" });',
      '  r.file("/b", { notifies: r.notifies("restat", "service[web]") });',
      '  const s = r.declare(site, "/srv", { port: 80 });',
      '  r.file("/c", { notifies: r.notifies("restart", s) });',
      '  r.declare(site, "/srv2", { port: "80" });',
      "};",
      "",
    ].join("\n"),
  );
  const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc");
  const result = spawnSync(
    process.execPath,
    [
      tsc,
      "--noEmit",
      "--strict",
      "--module",
      "nodenext",
      "--moduleResolution",
      "nodenext",
      "--skipLibCheck",
      "--types",
      "node",
      "--typeRoots",
      join(repoRoot, "node_modules", "@types"),
      "bad.ts",
    ],
    { cwd: dir, encoding: "utf8", env: { ...process.env, NODE_PATH: join(repoRoot, "node_modules") } },
  );
  const errors = result.stdout.split("\n").filter((line) => line.startsWith("bad.ts("));
  assert.deepEqual(
    errors.map((line) => line.replace(/: error (TS\d+): .*/, " $1")),
    [
      "bad.ts(4,18) TS2561",
      "bad.ts(5,22) TS2322",
      "bad.ts(6,39) TS2345",
      "bad.ts(8,39) TS2345",
      "bad.ts(9,30) TS2322",
    ],
    result.stdout,
  );
  assert.match(
    result.stdout,
    /'contnet' does not exist in type 'Props<"file">'. Did you mean to write 'content'\?/,
  );
  assert.match(
    result.stdout,
    /Argument of type '"restat"' is not assignable to parameter of type '"nothing" \| "start" \| "stop" \| "restart"/,
  );
  assert.match(
    result.stdout,
    /Argument of type '"restart"' is not assignable to parameter of type '"create" \| "delete"'/,
  );
});
