/**
 * Chef's Ruby-format repository files read without Ruby: metadata.rb
 * (the same manifest as metadata.json), roles/*.rb and environments/*.rb
 * (the same role and environment as their JSON forms), and a
 * `file:line:col` diagnostic for anything beyond the literal subset.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { readManifest } from "../../../src/recipes/metadata.js";
import { readMetadataRb } from "../../../src/recipes/metadata-rb.js";
import { readRole } from "../../../src/recipes/repository.js";
import { parseRubyLiterals, rubyToJson } from "../../../src/recipes/ruby-literal.js";
import { load, loadProblems, makeRepo, metadata } from "./repo.js";

const RECIPE = "export default () => {};\n";

const METADATA_RB = `# A cookbook's manifest, as Chef's generator writes it
name 'app'
maintainer 'Ops Team'
maintainer_email "ops@example.com"
license 'Apache-2.0'
description 'Installs the app'
version '1.2.3'
chef_version '>= 16.0', '< 19'
supports 'ubuntu', '>= 20.04'
supports 'debian'
depends 'base'
depends 'db', '~> 2.1'
gem 'toml-rb'
recipe 'app::default', 'Installs and starts the app'
privacy true
source_url 'https://example.com/app' if respond_to?(:source_url)
issues_url 'https://example.com/app/issues'
ohai_version '>= 16' if respond_to?(:ohai_versions_nobody_has)
`;

test("metadata.rb reads into the JSON shape knife writes", (t) => {
  const root = makeRepo(t, { "app/metadata.rb": METADATA_RB });
  assert.deepEqual(readMetadataRb(join(root, "app/metadata.rb")).value, {
    name: "app",
    maintainer: "Ops Team",
    maintainer_email: "ops@example.com",
    license: "Apache-2.0",
    description: "Installs the app",
    version: "1.2.3",
    chef_versions: [[">= 16.0", "< 19"]],
    platforms: { ubuntu: ">= 20.04", debian: ">= 0.0.0" },
    dependencies: { base: ">= 0.0.0", db: "~> 2.1" },
    gems: [["toml-rb"]],
    recipes: { "app::default": "Installs and starts the app" },
    privacy: true,
    source_url: "https://example.com/app",
    issues_url: "https://example.com/app/issues",
  });
});

test("metadata.rb gives the same manifest as metadata.json; JSON wins when both exist", (t) => {
  const root = makeRepo(t, {
    "rb/metadata.rb": METADATA_RB,
    "json/metadata.json": metadata("app", { base: ">= 0.0.0", db: "~> 2.1" }, "1.2.3"),
    "both/metadata.rb": "name 'from_ruby'\n",
    "both/metadata.json": metadata("from_json"),
  });
  const rb = readManifest(join(root, "rb"));
  const json = readManifest(join(root, "json"));
  assert.deepEqual({ ...rb, directory: "", metadataFile: "" }, { ...json, directory: "", metadataFile: "" });
  assert.equal(rb.metadataFile, join(root, "rb/metadata.rb"));
  assert.equal(readManifest(join(root, "both")).name, "from_json");
});

test("cookbooks with metadata.rb load in dependency order", async (t) => {
  const root = makeRepo(t, {
    "cookbooks/a/metadata.rb": "name 'a'\nversion '1.0.0'\n",
    "cookbooks/a/libraries/l.ts": "export const x = 1;\n",
    "cookbooks/a/recipes/default.ts": RECIPE,
    "cookbooks/b/metadata.rb": "name 'b'\ndepends 'a', '>= 1.0'\n",
    "cookbooks/b/libraries/l.ts": "export const x = 1;\n",
    "cookbooks/b/recipes/default.ts": RECIPE,
  });
  const { run, steps } = await load(root, { runList: ["b"] });
  assert.deepEqual(run.runList.cookbooks, ["a", "b"]);
  assert.deepEqual(steps, ["a/libraries/l", "b/libraries/l"]);
});

test("Ruby code in metadata.rb is refused at its place, never evaluated", async (t) => {
  const cases: [string, string][] = [
    [
      "name 'a'\nlong_description IO.read(File.join(File.dirname(__FILE__), 'README.md'))\n",
      "2:20: error: '.' is Ruby code, not a literal",
    ],
    ["name 'a'\nversion \"1.#{2}\"\n", "2:12: error: string interpolation (#{...}) is Ruby code"],
    ["name 'a'\nversion = '1.0'\n", "2:9: error: '=' is Ruby code"],
    ["name 'a'\ndepends 'b' if platform?('ubuntu')\n", "2:16: error: this condition is Ruby code"],
    ["name 'a'\n%w(b c).each { |d| depends d }\n", "2:8: error: '.' is Ruby code"],
    ["name 'a'\nlong_description <<~EOH\n  text\nEOH\n", "2:18: error: '<' is Ruby code"],
    ["name 'a'\nfrobnicate 'x'\n", "2:1: error: unknown method 'frobnicate': expected one of name, version"],
    ["version '1.0.0'\n", "1:1: error: metadata.rb must give the cookbook's name"],
    ["name 'a'\ndepends 'a'\n", "2:9: error: cookbook 'a' depends on itself"],
    ["name 'a'\ndepends 'b', '>= 1.0', '< 2'\n", "2:1: error: 'depends' takes 1 to 2 arguments, given 3"],
    [
      "name 'a'\ndepends 'b', 'whatever'\n",
      "2:14: error: the constraint on 'b' must be a version constraint",
    ],
    ["name 'a'\nversion 'one'\n", "2:9: error: 'version' must be a version like"],
    ["name 'a'\nversion 1\n", "2:9: error: 'version' must be a string"],
    ["name 'a'\ndescription 'unterminated\n", "2:13: error: unterminated string"],
  ];
  for (const [text, expected] of cases) {
    const root = makeRepo(t, { "cookbooks/a/metadata.rb": text, "cookbooks/a/recipes/default.ts": RECIPE });
    const problems = await loadProblems(root, { runList: ["a"] });
    assert.equal(problems.length, 1, text);
    const [first] = problems as [string];
    assert.ok(
      first.startsWith(`cookbooks/a/metadata.rb:${expected}`),
      `${JSON.stringify(text)}\n  got:  ${first}\n  want: ${expected}`,
    );
  }
});

test("the literal subset: strings, symbols, numbers, arrays, word lists, hashes across lines", () => {
  const parsed = parseRubyLiterals(`thing 'a\\'b', "c\\td", :sym, 42, -1.5, true, nil, %w[x y], %i(p q)
hash({
  'k' => { nested: [1, 2,], "q": 'r' },  # comment
  :s => "v",
})
bare 'x' => 1,
  y: [
    'z',
  ]
call() ; other
=begin
ignored
=end
`);
  assert.ok(parsed.ok);
  const values = parsed.calls.map((c) => [c.name, c.args.map(rubyToJson)]);
  assert.deepEqual(values, [
    ["thing", ["a'b", "c\td", "sym", 42, -1.5, true, null, ["x", "y"], ["p", "q"]]],
    ["hash", [{ k: { nested: [1, 2], q: "r" }, s: "v" }]],
    ["bare", [{ x: 1, y: ["z"] }]],
    ["call", []],
    ["other", []],
  ]);
});

const ROLE_RB = `name 'web'
description 'The web tier'
env_run_lists 'prod' => ['recipe[base]', 'recipe[app::web]'], '_default' => []
run_list 'recipe[base]', 'role[monitoring]',
  'recipe[app::web]'
default_attributes 'app' => { 'port' => 8080, 'tags' => %w[a b] }
override_attributes(
  app: { workers: 4 },
)
`;

const ROLE_JSON = {
  name: "web",
  description: "The web tier",
  run_list: ["recipe[base]", "role[monitoring]", "recipe[app::web]"],
  env_run_lists: { prod: ["recipe[base]", "recipe[app::web]"] },
  default_attributes: { app: { port: 8080, tags: ["a", "b"] } },
  override_attributes: { app: { workers: 4 } },
};

test("a role in Ruby is the same role as its JSON form", (t) => {
  const root = makeRepo(t, { "rb/web.rb": ROLE_RB, "json/web.json": ROLE_JSON });
  const rb = readRole(join(root, "rb"), "web");
  const json = readRole(join(root, "json"), "web");
  const strip = (r: typeof rb) => ({ ...r, doc: undefined, file: undefined });
  assert.deepEqual(strip(rb), strip(json));
});

test("Ruby roles and environments expand and merge as JSON ones", async (t) => {
  const root = makeRepo(t, {
    "roles/web.rb": ROLE_RB,
    "roles/monitoring.rb": "name 'monitoring'\nrun_list ['recipe[collectd]']\n",
    "environments/prod.rb":
      "name 'prod'\ncookbook 'base', '>= 0.0.0'\ndefault_attributes 'app' => { 'env' => 'prod' }\n",
    "cookbooks/base/recipes/default.ts": RECIPE,
    "cookbooks/app/recipes/web.ts": RECIPE,
    "cookbooks/collectd/recipes/default.ts": RECIPE,
  });
  const plain = await load(root, { runList: ["role[web]"] });
  assert.deepEqual(plain.run.runList.recipes, ["base::default", "collectd::default", "app::web"]);
  const prod = await load(root, { runList: ["role[web]"], environment: "prod" });
  assert.deepEqual(prod.run.runList.recipes, ["base::default", "app::web"]);
  assert.deepEqual(prod.run.node.get("app"), { port: 8080, tags: ["a", "b"], workers: 4, env: "prod" });
});

test("bad Ruby roles are diagnosed at their place", async (t) => {
  const cases: [string, string][] = [
    [
      "name 'web'\nrun_list 'recipe[a]', 42\n",
      "roles/web.rb:2:23: error: 'run_list' entries must be strings",
    ],
    ["name 'other'\n", "roles/web.rb:1:6: error: the role in web.rb must be named 'web'"],
    ["name 'web'\ndefault_attributes 'a'\n", "roles/web.rb:2:20: error: 'default_attributes' takes a hash"],
    ["name 'web'\nrun_list node['x']\n", "roles/web.rb:2:10: error: 'node' is Ruby code"],
    ["name 'web'\nenv_run_lists 'prod' => []\n", "roles/web.rb:2:1: error: env_run_lists needs a '_default'"],
    [
      "name 'web'\nrun_list 'recipe[a]'\nenv_run_lists '_default' => ['recipe[b]']\n",
      "roles/web.rb:3:30: error: cookbook 'b' (for recipe 'b::default') is not on the cookbook path",
    ],
    ["name 'web'\nrun_list 'a' 'b'\n", "roles/web.rb:2:14: error: this value is Ruby code"],
  ];
  for (const [text, expected] of cases) {
    const root = makeRepo(t, { "roles/web.rb": text, "cookbooks/a/recipes/default.ts": RECIPE });
    const [first = ""] = await loadProblems(root, { runList: ["role[web]"] });
    assert.ok(first.startsWith(expected), `${JSON.stringify(text)}\n  got:  ${first}\n  want: ${expected}`);
  }
});
