/**
 * The compiler on small manifests: what Puppet 7.23 gives for them
 * (checked with `puppet catalog compile`; the conformance test under
 * test/puppet/compile holds the recorded spec snippets).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Autoloader } from "../../../src/puppet/env/environment.js";
import {
  type CompileResult,
  compileCatalog,
  PuppetCompileError,
} from "../../../src/puppet/eval/compile-api.js";

const noAutoload: Autoloader = {
  definitionFiles: () => [],
  functionFiles: () => [],
  typeAliasFiles: () => [],
  rubyFunctionFile: () => undefined,
  rubyTypeFile: () => undefined,
  moduleFile: () => undefined,
};

function compile(code: string, node = "testnode"): CompileResult {
  return compileCatalog({
    environment: { name: "production", manifests: [], code, modulePath: [], modules: new Map() },
    autoloader: noAutoload,
    node: {
      name: node,
      facts: { os: { family: "Debian" }, hostname: node },
      trusted: { certname: node },
      serverFacts: { environment: "production" },
      parameters: {},
      classes: [],
      fromEnc: false,
    },
  });
}

function refs(r: CompileResult): string[] {
  return r.catalog.resources.map((x) => `${x.type}[${x.title}]`);
}

test("classes, defines and resources in Puppet's order with tags, edges and relationships", () => {
  const r =
    compile(`class foo($x = 1) { file { '/tmp/a': ensure => present, mode => '0644' } -> notify { "hi \${x}": } }
node default { include foo  @@notify { 'exp': } User { shell => '/bin/sh' } user { 'bob': require => File['/tmp/a'], before => [Notify['hi 1']] } }
define mydef($p) { notify { "d $title": message => $p } }
mydef { 'one': p => 'x' }
`);
  assert.deepEqual(refs(r), [
    "Stage[main]",
    "Class[Settings]",
    "Class[main]",
    "Mydef[one]",
    "Node[default]",
    "Class[Foo]",
    "File[/tmp/a]",
    "Notify[hi 1]",
    "User[bob]",
    "Notify[d one]",
  ]);
  const c = r.catalog;
  assert.deepEqual(c.tags, ["settings", "default", "foo", "node", "class"]);
  assert.deepEqual(c.classes, ["settings", "default", "foo"]);
  const file = c.resources[6] as Record<string, unknown>;
  assert.deepEqual(file.tags, ["file", "class", "foo", "node", "default"]);
  assert.deepEqual(file.parameters, { ensure: "present", mode: "0644", before: ["Notify[hi 1]"] });
  const user = c.resources[8] as Record<string, unknown>;
  assert.deepEqual(user.parameters, { require: "File[/tmp/a]", before: ["Notify[hi 1]"], shell: "/bin/sh" });
  assert.deepEqual(c.edges, [
    { source: "Stage[main]", target: "Class[Settings]" },
    { source: "Stage[main]", target: "Class[main]" },
    { source: "Class[main]", target: "Mydef[one]" },
    { source: "Class[main]", target: "Node[default]" },
    { source: "Stage[main]", target: "Class[Foo]" },
    { source: "Class[Foo]", target: "File[/tmp/a]" },
    { source: "Class[Foo]", target: "Notify[hi 1]" },
    { source: "Node[default]", target: "User[bob]" },
    { source: "Mydef[one]", target: "Notify[d one]" },
  ]);
});

test("notice() logs from its scope; expressions evaluate as Puppet's", () => {
  const r = compile(`$a = [1, 2] + [3]
$h = {'a' => 1} + {'b' => 2}
if 'Hello' == 'hello' and 'x' in ['X'] { notice("\${a} \${h}") }
case 'abc' { /b(.)/: { notice($1) } default: { notice('no') } }
notice(7 / 2, -7 / 2, -7 % 3, 'ab'[1], [1,2,3][1,2])`);
  assert.deepEqual(
    r.messages.map((m) => [m.source, m.message]),
    [
      ["Scope(Class[main])", "[1, 2, 3] {a => 1, b => 2}"],
      ["Scope(Class[main])", "c"],
      ["Scope(Class[main])", "3 -4 2 b [2, 3]"],
    ],
  );
});

test("node selection: exact beats regex, a regex beats default, none is an error", () => {
  assert.ok(refs(compile("node /test/ {} node 'testnode' {} node default {}")).includes("Node[testnode]"));
  assert.ok(refs(compile("node /test/ {} node default {}")).includes("Node[__node_regexp__test]"));
  assert.throws(
    () => compile("node 'other' {}"),
    (e: unknown) => {
      assert.ok(e instanceof PuppetCompileError);
      assert.match(e.message, /Could not find node statement with name 'default' or 'testnode'/);
      return true;
    },
  );
});

test("errors carry Puppet's message and the position", () => {
  assert.throws(
    () => compile("$x = 1\n$x = 2"),
    (e: unknown) => {
      assert.ok(e instanceof PuppetCompileError);
      assert.equal(e.message, "Evaluation Error: Cannot reassign variable '$x'");
      assert.equal(e.line, 2);
      assert.equal(e.column, 4);
      return true;
    },
  );
  assert.throws(
    () => compile("notify { 'a': }\nnotify { 'a': }"),
    /Duplicate declaration: Notify\[a\] is already declared/,
  );
  assert.throws(() => compile("nope()"), /Unknown function: 'nope'/);
});

test("collectors and defines are completed before relationships; realize and overrides apply", () => {
  const r = compile(`define d() { @notify { "v-\${title}": message => 'virtual' } }
d { 'x': }
Notify <| title == 'v-x' |> { message => 'collected' }
notify { 'after': require => Notify['v-x'] }
Notify['v-x'] -> Notify['after']
@notify { 'r': }
realize(Notify['r'])
File { mode => '0600' }
file { '/f': }`);
  const byRef = new Map(r.catalog.resources.map((x) => [`${x.type}[${x.title}]`, x]));
  assert.deepEqual((byRef.get("Notify[v-x]") as { parameters: unknown }).parameters, {
    message: "collected",
    before: ["Notify[after]"],
  });
  assert.ok(byRef.has("Notify[r]"));
  assert.deepEqual((byRef.get("File[/f]") as { parameters: unknown }).parameters, { mode: "0600" });
});

test("a redefinition, a missing relationship target and an unrealized resource are errors", () => {
  assert.throws(() => compile("class a {} class a {}"), /Class 'a' is already defined/);
  assert.throws(
    () => compile("notify { 'a': } -> Notify['b']"),
    /Could not find resource 'Notify\[b\]' for relationship from 'Notify\[a\]'/,
  );
  assert.throws(
    () => compile("realize(Notify['nope'])"),
    /Failed to realize virtual resources Notify\[nope\]/,
  );
});

// Checked against `puppet catalog compile --node_terminus exec` with this ENC answer.
test("ENC classes are declared after the node definition, with their parameters", () => {
  const result = compileCatalog({
    environment: {
      name: "production",
      manifests: [],
      code: `class enc($p) { notify { "enc \${p}": } } node default { notify { 'node': } }`,
      modulePath: [],
      modules: new Map(),
    },
    autoloader: noAutoload,
    node: {
      name: "testnode",
      facts: {},
      trusted: {},
      serverFacts: {},
      parameters: { role: "web" },
      classes: [{ name: "enc", parameters: { p: "x" } }],
      fromEnc: true,
    },
  });
  assert.deepEqual(refs(result).slice(3), ["Node[default]", "Notify[node]", "Class[Enc]", "Notify[enc x]"]);
  assert.deepEqual(result.catalog.classes, ["enc", "settings", "default", "enc"]);
  assert.deepEqual(result.catalog.tags, ["enc", "settings", "default", "node", "class"]);
});

test("tags: letters and digits of any script, `_`, `:`, `.` and `-` after the first", () => {
  const r = compile(`notify { 'n': tag => ['été', 'x-1.2', 'Ünïcode::part', '٣_a'] }`);
  const tags = r.catalog.resources.find((x) => x.title === "n")?.tags as string[];
  for (const t of ["été", "x-1.2", "ünïcode::part", "ünïcode", "part", "٣_a"]) assert.ok(tags.includes(t), t);
  for (const bad of ["-x", "a b", "é!", ".é"])
    assert.throws(
      () => compile(`notify { 'n': tag => '${bad}' }`),
      (e: Error) => e.message.includes(`Invalid tag '${bad}'`),
    );
});
