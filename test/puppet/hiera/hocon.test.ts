/**
 * Hiera 5's hocon_data backend: an environment's HOCON data read as
 * Puppet 7.23 reads it (the notices below are what `puppet catalog
 * compile` logged for this environment and data), and a file that does
 * not parse failing with the Ruby hocon library's message.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { compileNodeCatalog } from "../../../src/puppet/env/compile.js";
import { resolveCompileSettings } from "../../../src/puppet/settings.js";

function environment(t: { after(f: () => void): void }, data: string): string {
  const root = mkdtempSync(join(tmpdir(), "tend-hocon-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const env = join(root, "code/environments/production");
  for (const d of [
    "etc",
    "var/server_data/facts",
    "code/environments/production/data",
    "code/environments/production/manifests",
  ])
    mkdirSync(join(root, d), { recursive: true });
  writeFileSync(join(root, "etc/puppet.conf"), `[main]\nvardir = ${root}/var\ncodedir = ${root}/code\n`);
  writeFileSync(
    join(root, "var/server_data/facts/testnode.json"),
    JSON.stringify({ name: "testnode", values: {} }),
  );
  writeFileSync(
    join(env, "hiera.yaml"),
    "version: 5\nhierarchy:\n  - name: hocon\n    data_hash: hocon_data\n    path: common.conf\n",
  );
  writeFileSync(join(env, "data/common.conf"), data);
  writeFileSync(
    join(env, "manifests/site.pp"),
    "notice(lookup('app'))\nnotice(lookup('greeting'))\nnotice(lookup('ratio'))\nnotice(lookup('app.port'))\n",
  );
  return root;
}

async function compile(root: string) {
  const settings = resolveCompileSettings(
    { confdir: join(root, "etc"), environment: "production", facts_terminus: "json" },
    root,
  );
  return compileNodeCatalog({ node: "testnode", settings, factsDir: settings.serverDatadir });
}

const DATA = `# HOCON data
app {
  port = 8080
  hosts = [a, b]
}
app.name = "demo"
greeting = hello \${app.name}
ratio = 0.5
`;

test("hocon_data: lookups in HOCON data give what Puppet 7.23 gives", async (t) => {
  const { result } = await compile(environment(t, DATA));
  assert.deepEqual(
    result.messages.filter((m) => m.level === "notice").map((m) => m.message),
    ["{name => demo, port => 8080, hosts => [a, b]}", "hello demo", "0.5", "8080"],
  );
});

test("hocon_data: a file that does not parse fails with the hocon library's message", async (t) => {
  const root = environment(t, "a = [1,\n");
  await assert.rejects(compile(root), (e: Error) => {
    assert.match(
      e.message,
      /Unable to parse \(.*common\.conf\): String: 2: List should have had new element after a comma, instead had token: end of file \(if you want the comma or end of file to be part of a string value, then double-quote it\)/,
    );
    return true;
  });
});
