/**
 * What the compiler gives functions beyond values: warnings once per compile
 * (stdlib's deprecated names) and a view of the catalog being compiled
 * (ensure_packages, ensure_resource, defined_with_params, getparam...).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Autoloader } from "../../../src/puppet/env/environment.js";
import {
  type CompileResult,
  compileCatalog,
  PuppetCompileError,
} from "../../../src/puppet/eval/compile-api.js";
import { stdlibFunctions } from "../../../src/puppet/eval/functions/stdlib/index.js";
import { renderRubyJson } from "../../../src/puppet/env/render.js";

const noAutoload: Autoloader = {
  definitionFiles: () => [],
  functionFiles: () => [],
  typeAliasFiles: () => [],
  rubyFunctionFile: () => undefined,
  rubyTypeFile: () => undefined,
  moduleFile: () => undefined,
};

function compile(code: string, settings?: Readonly<Record<string, string | boolean>>): CompileResult {
  return compileCatalog({
    ...(settings ? { settings } : {}),
    environment: {
      name: "production",
      manifests: [],
      code,
      modulePath: ["/nowhere"],
      modules: new Map([["m", { name: "m", dir: "/nowhere/m" }]]),
    },
    autoloader: noAutoload,
    functions: stdlibFunctions,
    node: {
      name: "n1",
      facts: {},
      trusted: { certname: "n1" },
      serverFacts: { environment: "production" },
      parameters: {},
      classes: [],
      fromEnc: false,
    },
  });
}

test("ensure_packages and ensure_resource declare once; a deprecated shim warns once per compile", () => {
  const r = compile(`
ensure_packages(['vim'])
ensure_packages(['vim', 'git'], { ensure => installed })
ensure_resource('user', 'bob', { ensure => present })
ensure_resource('user', 'bob', { ensure => present })
$d = defined_with_params(User['bob'], { ensure => present })
$p = getparam(User['bob'], 'ensure')
$h = stdlib::has_function('ensure_packages')
$no = stdlib::has_function('no_such_function')
$mp = get_module_path('m')
notify { "d=\${d} p=\${p} h=\${h} no=\${no} mp=\${mp}": }
`);
  const refs = r.catalog.resources.map((x) => `${x.type}[${x.title}]`);
  assert.deepEqual(
    refs.filter((x) => !/^(Stage|Class)\[/.test(x)),
    ["Package[vim]", "Package[git]", "User[bob]", "Notify[d=true p=present h=true no=false mp=/nowhere/m]"],
  );
  const deprecations = r.messages.filter(
    (m) => m.level === "warning" && m.message.includes("please use stdlib::ensure_packages"),
  );
  assert.equal(deprecations.length, 1, JSON.stringify(r.messages));
});

test("the once-per-key warnings start afresh in each compile", () => {
  for (let i = 0; i < 2; i++) {
    const r = compile("ensure_packages(['vim'])");
    assert.equal(
      r.messages.filter((m) => m.message.includes("please use stdlib::ensure_packages")).length,
      1,
    );
  }
});

test("a whole Float parameter renders as Puppet's 1.0, an Integer as 1", () => {
  const r = compile("notify { 'f': message => [1.0, 1, 2.5, 1e20, -0.0, { a => 3.0 }] }");
  const text = renderRubyJson(r.catalog);
  assert.match(text, /"message":\[1\.0,1,2\.5,1\.0e\+20,-0\.0,\{"a":3\.0\}\]/);
  const plain = JSON.parse(JSON.stringify(r.catalog)) as {
    resources: { title: string; parameters?: unknown }[];
  };
  assert.deepEqual(plain.resources.find((x) => x.title === "f")?.parameters, {
    message: [1, 1, 2.5, 1e20, 0, { a: 3 }],
  });
});

test("the catalog's JSON written in pieces is the text of its data, byte for byte", () => {
  // Over a thousand resources (three batches), a Float in one batch only, a
  // NUL in a string, a virtual resource, a define's containment edges and
  // text outside ASCII.
  const files = Array.from({ length: 1100 }, (_, i) => `file { '/tmp/f${i}': mode => '0644' }`).join("\n");
  const r = compile(`${files}
define d($m) { notify { "in \${title}": message => $m } }
d { 'one': m => 1.5 }
@notify { 'virtual': }
notify { 'nul': message => "a\\u0000b" }
notify { 'été ☃ 𝄞': message => 'ü' }
`);
  const pieces: Buffer[] = [];
  r.writeCatalogJson((bytes) => pieces.push(Buffer.from(bytes)));
  assert.ok(pieces.length > 3);
  const text = Buffer.concat(pieces).toString("utf8");
  assert.equal(text, renderRubyJson(r.catalog));
  assert.match(text, /"message":1\.5/);
  assert.match(text, /"a\\u0000b"/);
});

test("strict and strict_variables come from the compile's settings", () => {
  const code = 'notify { "${settings::strict} ${settings::strict_variables} ${nope}": }';
  const titles = (r: CompileResult) =>
    r.catalog.resources.filter((x) => x.type === "Notify").map((x) => x.title);
  const unknown = (r: CompileResult) =>
    r.messages.filter((m) => m.message === "Unknown variable: 'nope'.").length;
  const byDefault = compile(code);
  assert.deepEqual(titles(byDefault), ["warning false "]);
  assert.equal(unknown(byDefault), 1);
  const off = compile(code, { strict: "off" });
  assert.deepEqual(titles(off), ["off false "]);
  assert.equal(unknown(off), 0);
  const strictOnes: Record<string, string | boolean>[] = [{ strict_variables: true }, { strict: "error" }];
  for (const settings of strictOnes) {
    assert.throws(
      () => compile(code, settings),
      (e: Error) =>
        e instanceof PuppetCompileError &&
        e.message.startsWith("Evaluation Error: Unknown variable: 'nope'."),
    );
  }
  const shown = compile("notify { $settings::confdir: }", { confdir: "/etc/puppetlabs/puppet" });
  assert.deepEqual(titles(shown), ["/etc/puppetlabs/puppet"]);
});
