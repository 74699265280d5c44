/**
 * The catalog loader: a catalog compiled by Puppet 7.23 (fixture recorded
 * with `puppet catalog compile testnode --render-as json`), and each kind
 * of bad input with its `file:line:col` diagnostic.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { formatCatalogDiagnostic, loadCatalogFile, parseCatalog } from "../../src/catalog/load.js";

const FIXTURE = fileURLToPath(new URL("../../../test/fixtures/catalog/site.catalog.json", import.meta.url));

function problems(text: string): string[] {
  const result = parseCatalog(text, "c.json");
  assert.equal(result.ok, false);
  return result.diagnostics.map(formatCatalogDiagnostic);
}

test("a catalog Puppet compiled loads whole", async () => {
  const result = await loadCatalogFile(FIXTURE);
  assert.ok(result.ok, JSON.stringify(result.diagnostics));
  const { catalog } = result;
  assert.equal(catalog.name, "testnode");
  assert.equal(catalog.environment, "production");
  assert.match(catalog.version, /^\d+$/);
  assert.equal(catalog.resources.length, 10);
  assert.equal(catalog.edges.length, 9);
  assert.deepEqual(catalog.classes, ["settings", "c"]);
  const exec = catalog.resources.find((r) => r.type === "Exec");
  assert.deepEqual(exec?.parameters.subscribe, ["Class[C]", "Mydef[one]"]);
  assert.equal(exec?.line, 10);
  assert.equal(catalog.resources.find((r) => r.type === "Mydef")?.kind, "defined_type");
});

test("an unreadable file is a diagnostic", async () => {
  const result = await loadCatalogFile("/nonexistent/catalog.json");
  assert.equal(result.ok, false);
  assert.match(
    formatCatalogDiagnostic(result.diagnostics[0]!),
    /^\/nonexistent\/catalog.json:1:1: cannot read the catalog: ENOENT/,
  );
});

test("JSON syntax errors: line, column and what was expected", () => {
  assert.deepEqual(problems('{\n  "resources": [\n    {"type": "File" "title": "x"}\n  ]\n}'), [
    "c.json:3:21: invalid JSON: expected ',' or '}' after a member, found '\"'",
  ]);
  assert.deepEqual(problems('{"resources": [1, 2,]}'), [
    "c.json:1:21: invalid JSON: expected a value (object, array, string, number, true, false, null), found ']'",
  ]);
  assert.deepEqual(problems('{"resources": ['), [
    "c.json:1:16: invalid JSON: expected a value (object, array, string, number, true, false, null), found end of input",
  ]);
  assert.deepEqual(problems('{"a": "x\ny"}'), [
    "c.json:1:9: invalid JSON: control character in string: write it escaped (\\n, \\t, \\u00XX)",
  ]);
  assert.deepEqual(problems("{} x"), [
    "c.json:1:4: invalid JSON: expected end of input after the value, found 'x'",
  ]);
});

test("structural errors name the resource and field, at its place in the file", () => {
  const text = [
    "{",
    '  "resources": [',
    '    {"type": "File", "title": "/a", "tags": "file"},',
    '    {"type": "file", "title": 7, "line": "x"},',
    '    {"title": "no type"},',
    '    {"type": "Exec", "title": "e", "parameters": []}',
    "  ]",
    "}",
  ].join("\n");
  assert.deepEqual(problems(text), [
    "c.json:3:45: File[/a]: 'tags' must be an array of strings",
    "c.json:4:42: file[7]: 'line' must be an integer or null",
    "c.json:5:5: resource 3: 'type' must be a type name like \"File\"",
    "c.json:6:50: Exec[e]: 'parameters' must be an object",
  ]);
  assert.deepEqual(problems("[1]"), [
    "c.json:1:1: a catalog must be a JSON object with 'resources' and 'edges'",
  ]);
  assert.deepEqual(problems('{"resources": {}}'), ["c.json:1:15: 'resources' must be an array of resources"]);
});

test("duplicates, edges and relationships naming missing resources", () => {
  const text = JSON.stringify(
    {
      resources: [
        { type: "File", title: "/a", file: "/m/site.pp", line: 1 },
        { type: "file", title: "/a" },
        {
          type: "Exec",
          title: "e",
          parameters: { require: ["File[/a]", "File[/missing]"], notify: "Service[x]" },
        },
        { type: "Notify", title: "n", parameters: { before: "not a ref", subscribe: [{ x: 1 }] } },
        { type: "Class", title: "foo", parameters: { require: "class[Foo]" } },
      ],
      edges: [{ source: "Class[Foo]", target: "Exec[gone]" }],
    },
    null,
    1,
  );
  assert.deepEqual(problems(text), [
    "c.json:9:3: duplicate resource File[/a]: already declared at /m/site.pp:1",
    "c.json:47:14: edge 1: target Exec[gone] is not a resource of the catalog",
    "c.json:17:16: Could not find dependency File[/missing] for Exec[e] (in 'require')",
    "c.json:21:15: Could not find dependent Service[x] for Exec[e] (in 'notify')",
    'c.json:28:15: Notify[n]: \'before\' must name resources as "Type[title]", found "not a ref"',
    'c.json:29:18: Notify[n]: \'subscribe\' must name resources as "Type[title]", found {"x":1}',
  ]);
});

test("the wrapped form (document_type Catalog) and defaults", () => {
  const result = parseCatalog(
    JSON.stringify({
      document_type: "Catalog",
      data: { name: "n", version: 12, resources: [{ type: "Notify", title: "x" }] },
    }),
    "c.json",
  );
  assert.ok(result.ok);
  assert.equal(result.catalog.version, "12");
  assert.deepEqual(result.catalog.resources[0], { type: "Notify", title: "x", parameters: {}, tags: [] });
  assert.deepEqual(result.catalog.edges, []);
});

test("loadCatalogFile reads from disk", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tend-catalog-"));
  try {
    const path = join(dir, "c.json");
    writeFileSync(path, '{"resources": [], "edges": []}');
    const result = await loadCatalogFile(path);
    assert.ok(result.ok);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
