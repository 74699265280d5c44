// The Rudder configuration directory: metadata.xml as cfclerk reads it,
// the API-shaped JSON files, group queries and rule targets, diagnostics.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { DiagnosticBag, formatDiagnostic } from "../../../src/rudder/config/diagnostics.js";
import { targetHasNode } from "../../../src/rudder/config/groups.js";
import { loadConfiguration } from "../../../src/rudder/config/load.js";
import { parseMetadataXml } from "../../../src/rudder/config/metadata.js";
import type { Node } from "../../../src/rudder/config/model.js";
import { allVariables } from "../../../src/rudder/config/technique.js";

const FIXTURES = join(import.meta.dirname, "../../../../test/fixtures/rudder/write-techniques");

function tempDir(t: { after: (f: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), "tend-rudder-config-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function write(dir: string, path: string, content: unknown): void {
  const full = join(dir, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, typeof content === "string" ? content : JSON.stringify(content, null, 2));
}

const META = (extra = "", sections = "") => `<TECHNIQUE name="Demo">
  <MULTIINSTANCE>true</MULTIINSTANCE>
  ${extra}
  <BUNDLES><NAME>demo</NAME></BUNDLES>
  <SECTIONS>
    <SECTION name="Files" multivalued="true" component="true" componentKey="PATH">
      <INPUT><NAME>PATH</NAME><DESCRIPTION>path</DESCRIPTION></INPUT>
      <SELECT1><NAME>MODE</NAME><DESCRIPTION>mode</DESCRIPTION>
        <ITEM><VALUE>a</VALUE><LABEL>A</LABEL></ITEM><CONSTRAINT><DEFAULT>a</DEFAULT></CONSTRAINT></SELECT1>
    </SECTION>
    ${sections}
  </SECTIONS>
</TECHNIQUE>`;

test("metadata.xml of Create_file: multi-instance, separated-with-parameters, bundles, run hooks, sections", async () => {
  const { readFileSync } = await import("node:fs");
  const file = join(FIXTURES, "techniques/Create_file/1.0/metadata.xml");
  const bag = new DiagnosticBag();
  const t = parseMetadataXml(
    readFileSync(file, "utf8"),
    file,
    { name: "Create_file", version: "1.0" },
    dirname(file),
    bag,
  );
  assert.deepEqual(bag.items, []);
  assert.ok(t);
  assert.equal(t.multiInstance, true);
  assert.equal(t.generationMode, "separated-with-parameters");
  assert.equal(t.useMethodReporting, true);
  assert.deepEqual(t.bundles, ["Create_file", "Create_file_rudder_reporting"]);
  assert.deepEqual(
    t.templates.map((r) => [r.outPath, r.included]),
    [["Create_file/1.0/rudder_reporting.cf", true]],
  );
  assert.deepEqual(
    t.files.map((r) => [r.outPath, r.included, r.fromRepository]),
    [["Create_file/1.0/Create_file.cf", true, true]],
  );
  assert.deepEqual(
    t.runHooks.map((h) => [h.kind, h.bundle, h.report.name, h.parameters.length]),
    [
      ["pre", "runhook_package", "vim_installed", 1],
      ["post", "runhook_servive", "some value status", 2],
    ],
  );
  const vars = allVariables(t.rootSection);
  assert.deepEqual(
    vars.map((v) => [v.name, v.marker, v.defaultValue]),
    [
      ["expectedReportKey Directory create", "REPORTKEYS", undefined],
      ["expectedReportKey File create", "REPORTKEYS", undefined],
      ["1AAACD71-C2D5-482C-BCFF-5EEE6F8DA9C2", "INPUT", undefined],
      ["3021FC4F-DA33-4D84-8991-C42EBAB2335F", "INPUT", " "],
    ],
  );
});

// TechniqueGenerationModeTest: the three names (case-insensitive); others fall back to merged.
for (const [value, expected] of [
  ["merged", "merged"],
  ["separated", "separated"],
  ["separated-with-parameters", "separated-with-parameters"],
  ["Separated", "separated"],
  ["", "merged"],
  ["bogus", "merged"],
] as const) {
  test(`POLICYGENERATION '${value}' is ${expected}`, () => {
    const bag = new DiagnosticBag();
    const xml = META(value === "" ? "" : `<POLICYGENERATION>${value}</POLICYGENERATION>`);
    const t = parseMetadataXml(xml, "m.xml", { name: "demo", version: "1.0" }, "/x", bag);
    assert.equal(t?.generationMode, expected);
    assert.equal(bag.items.length, value === "bogus" ? 1 : 0);
  });
}

test("metadata.xml problems are file:line:col diagnostics", () => {
  const bag = new DiagnosticBag();
  parseMetadataXml(
    '<TECHNIQUE name="x">\n  <SECTIONS>\n</TECHNIQUE>',
    "bad.xml",
    { name: "x", version: "1" },
    "/x",
    bag,
  );
  assert.match(
    formatDiagnostic(bag.items[0] as never),
    /^bad\.xml:2:13: error: not well-formed XML: Opening and ending tag mismatch/,
  );
  const bag2 = new DiagnosticBag();
  parseMetadataXml(
    META(
      "",
      '<SECTION name="S" multivalued="true" component="true"><INPUT><NAME>X</NAME><DESCRIPTION>x</DESCRIPTION></INPUT></SECTION>',
    ),
    "m.xml",
    { name: "d", version: "1" },
    "/x",
    bag2,
  );
  assert.match(
    formatDiagnostic(bag2.items[0] as never),
    /^m\.xml:\d+:\d+: error: section 'S' is multivalued and a component: it needs a componentKey/,
  );
});

function baseConfig(dir: string): void {
  write(dir, "techniques/demo/1.0/metadata.xml", META());
  write(dir, "directives/d1.json", {
    id: "d1",
    displayName: "D1",
    techniqueName: "demo",
    techniqueVersion: "1.0",
    parameters: { PATH: ["/a", "/b"] },
  });
  write(dir, "nodes/n1.json", {
    id: "n1",
    hostname: "web1.example.com",
    os: { type: "Linux", name: "Debian", version: "12.5", fullName: "Debian GNU/Linux 12" },
    ram: 4294967296,
    properties: [
      { name: "env", value: "prod" },
      { name: "dc", value: { city: "Paris", racks: [1, 2] } },
    ],
  });
  write(dir, "nodes/n2.json", {
    id: "n2",
    hostname: "db1.example.com",
    os: { name: "Centos", version: "7" },
    properties: { env: "dev" },
  });
  write(dir, "nodes/root.json", { id: "root", hostname: "server", isPolicyServer: true });
}

test("a configuration directory loads: directives with Rudder's section tree or a flat object", (t) => {
  const dir = tempDir(t);
  baseConfig(dir);
  write(dir, "directives/d2.json", {
    id: "d2",
    displayName: "D2",
    techniqueName: "demo",
    techniqueVersion: "1.0",
    priority: 2,
    policyMode: "audit",
    parameters: {
      section: {
        name: "sections",
        sections: [
          { section: { name: "Files", vars: [{ var: { name: "PATH", value: "/x" } }] } },
          { section: { name: "Files", vars: [{ var: { name: "PATH", value: "/y" } }] } },
        ],
      },
    },
  });
  const { config, diagnostics } = loadConfiguration(dir);
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(config.directives.get("d1")?.values.get("PATH"), ["/a", "/b"]);
  assert.equal(config.directives.get("d1")?.priority, 5);
  assert.deepEqual(config.directives.get("d2")?.values.get("PATH"), ["/x", "/y"]);
  assert.equal(config.directives.get("d2")?.policyMode, "audit");
  assert.equal(config.nodes.get("n1")?.facts.osName, "Debian");
});

test("bad files give file:line:col diagnostics naming what was expected", (t) => {
  const dir = tempDir(t);
  baseConfig(dir);
  write(
    dir,
    "directives/d3.json",
    '{\n  "id": "d3",\n  "techniqueName": "demo",\n  "techniqueVersion": "1.0",\n  "priority": 11\n}',
  );
  write(dir, "directives/d4.json", '{ "id": "d4", ');
  write(dir, "directives/d5.json", { id: "d5", techniqueName: "nope", techniqueVersion: "1.0" });
  write(dir, "rules/r1.json", {
    id: "r1",
    directives: ["d1", "ghost"],
    targets: ["group:missing", "special:bogus"],
  });
  const { diagnostics } = loadConfiguration(dir);
  const lines = diagnostics.map(formatDiagnostic);
  assert.ok(
    lines.some((l) =>
      /d3\.json:5:3: error: "priority" must be an integer from 0 \(highest\) to 10, found number 11/.test(l),
    ),
    lines.join("\n"),
  );
  assert.ok(
    lines.some((l) => /d4\.json:\d+:\d+: error: not valid JSON/.test(l)),
    lines.join("\n"),
  );
  assert.ok(
    lines.some((l) => /d5\.json:1:1: error: directive 'd5' uses technique 'nope' version '1.0'/.test(l)),
  );
  assert.ok(lines.some((l) => /r1\.json:.*directive 'ghost', which does not exist/.test(l)));
  assert.ok(lines.some((l) => /r1\.json:.*target group 'missing' does not exist/.test(l)));
  assert.ok(lines.some((l) => /r1\.json:\d+:\d+: error: unknown target 'special:bogus'/.test(l)));
});

const QUERIES: { name: string; query: unknown; expected: string[] }[] = [
  {
    name: "eq on osName (case-insensitive)",
    query: {
      composition: "and",
      where: [{ objectType: "node", attribute: "osName", comparator: "eq", value: "debian" }],
    },
    expected: ["n1"],
  },
  {
    name: "notEq",
    query: { where: [{ objectType: "node", attribute: "osName", comparator: "notEq", value: "Debian" }] },
    expected: ["n2"],
  },
  {
    name: "regex on the hostname",
    query: {
      where: [
        { objectType: "node", attribute: "nodeHostname", comparator: "regex", value: "web[0-9]+\\..*" },
      ],
    },
    expected: ["n1"],
  },
  {
    name: "notRegex",
    query: {
      where: [{ objectType: "node", attribute: "nodeHostname", comparator: "notRegex", value: "web.*" }],
    },
    expected: ["n2"],
  },
  {
    name: "exists / notExists",
    query: {
      composition: "and",
      where: [{ objectType: "node", attribute: "ram", comparator: "exists", value: "" }],
    },
    expected: ["n1"],
  },
  {
    name: "gteq on a version",
    query: { where: [{ objectType: "node", attribute: "osVersion", comparator: "gteq", value: "12" }] },
    expected: ["n1"],
  },
  {
    name: "lt on memory with a unit",
    query: { where: [{ objectType: "node", attribute: "ram", comparator: "lt", value: "8 GB" }] },
    expected: ["n1"],
  },
  {
    name: "property eq key=value",
    query: {
      where: [
        {
          objectType: "serializedNodeProperty",
          attribute: "name.value",
          comparator: "eq",
          value: "env=prod",
        },
      ],
    },
    expected: ["n1"],
  },
  {
    name: "property regex",
    query: {
      where: [
        {
          objectType: "serializedNodeProperty",
          attribute: "name.value",
          comparator: "regex",
          value: "env=d.*",
        },
      ],
    },
    expected: ["n2"],
  },
  {
    name: "property hasKey",
    query: {
      where: [
        { objectType: "serializedNodeProperty", attribute: "name.value", comparator: "hasKey", value: "dc" },
      ],
    },
    expected: ["n1"],
  },
  {
    name: "property jsonSelect",
    query: {
      where: [
        {
          objectType: "serializedNodeProperty",
          attribute: "name.value",
          comparator: "jsonSelect",
          value: "dc:$.city",
        },
      ],
    },
    expected: ["n1"],
  },
  {
    name: "or composition",
    query: {
      composition: "or",
      where: [
        { objectType: "node", attribute: "nodeId", comparator: "eq", value: "n1" },
        { objectType: "node", attribute: "nodeId", comparator: "eq", value: "n2" },
      ],
    },
    expected: ["n1", "n2"],
  },
  {
    name: "invert",
    query: {
      transform: "invert",
      where: [{ objectType: "node", attribute: "nodeId", comparator: "eq", value: "n1" }],
    },
    expected: ["n2"],
  },
  {
    name: "nodeAndPolicyServer selects the server too",
    query: {
      select: "nodeAndPolicyServer",
      composition: "or",
      where: [{ objectType: "node", attribute: "nodeId", comparator: "regex", value: ".*" }],
    },
    expected: ["n1", "n2", "root"],
  },
];

for (const q of QUERIES) {
  test(`dynamic group: ${q.name}`, (t) => {
    const dir = tempDir(t);
    baseConfig(dir);
    write(dir, "groups/g.json", { id: "g", displayName: "G", dynamic: true, query: q.query });
    const { config, diagnostics } = loadConfiguration(dir);
    assert.deepEqual(diagnostics, []);
    const members = [...config.nodes.values()]
      .filter((n) => targetHasNode(config, { kind: "group", id: "g" }, n, (m) => assert.fail(m)))
      .map((n) => n.id)
      .sort();
    assert.deepEqual(members, q.expected);
  });
}

test("rule targets: special, static groups, subgroups, include/exclude", (t) => {
  const dir = tempDir(t);
  baseConfig(dir);
  write(dir, "groups/static.json", { id: "static", nodeIds: ["n1", "n2"] });
  write(dir, "groups/debian.json", {
    id: "debian",
    query: { where: [{ objectType: "node", attribute: "osName", comparator: "eq", value: "Debian" }] },
  });
  write(dir, "groups/sub.json", {
    id: "sub",
    query: { where: [{ objectType: "group", attribute: "nodeGroupId", comparator: "eq", value: "debian" }] },
  });
  const { config, diagnostics } = loadConfiguration(dir);
  assert.deepEqual(diagnostics, []);
  const ids = (target: unknown) =>
    [...config.nodes.values()]
      .filter((n: Node) => targetHasNode(config, target as never, n, () => {}))
      .map((n) => n.id)
      .sort();
  assert.deepEqual(ids({ kind: "special", value: "all" }), ["n1", "n2", "root"]);
  assert.deepEqual(ids({ kind: "special", value: "all_exceptPolicyServers" }), ["n1", "n2"]);
  assert.deepEqual(ids({ kind: "special", value: "all_policyServers" }), ["root"]);
  assert.deepEqual(ids({ kind: "group", id: "sub" }), ["n1"]);
  assert.deepEqual(
    ids({
      kind: "exclusion",
      include: { kind: "or", targets: [{ kind: "group", id: "static" }] },
      exclude: { kind: "or", targets: [{ kind: "group", id: "debian" }] },
    }),
    ["n2"],
  );
  assert.deepEqual(
    ids({
      kind: "and",
      targets: [
        { kind: "group", id: "static" },
        { kind: "group", id: "debian" },
      ],
    }),
    ["n1"],
  );
});
