/**
 * The node a compile is for: json facts, the External Node Classifier
 * (classes as a list or a hash with parameters, parameters, an
 * authoritative environment, a failing classifier), `$trusted` and
 * `$server_facts`, and how `prepareCompile` puts them together. Puppet
 * 7.23's answers for the same cases are in test/fixtures/puppet-env/.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { CompileSetupError, prepareCompile } from "../../../src/puppet/env/compile.js";
import {
  NodeError,
  SERVER_FACTS,
  classifyNode,
  localTrusted,
  nodeRequest,
  parseClassification,
  readFactsJson,
} from "../../../src/puppet/env/node.js";
import { resolveCompileSettings } from "../../../src/puppet/settings.js";
import { scratchDirectory } from "../../scratch.js";

function write(path: string, text = "", mode?: number): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  if (mode !== undefined) chmodSync(path, mode);
}

function scratchPuppet(): string {
  const root = scratchDirectory("tend-node-");
  write(join(root, "etc/puppet.conf"), `[main]\nvardir = ${root}/var\ncodedir = ${root}/code\n`);
  for (const env of ["production", "staging"])
    mkdirSync(join(root, "code/environments", env, "manifests"), { recursive: true });
  write(
    join(root, "var/server_data/facts/n1.example.com.json"),
    JSON.stringify({
      name: "n1.example.com",
      values: {
        clientcert: "n1.example.com",
        fqdn: "n1.example.com",
        role: "fact-role",
        os: { family: "Debian" },
        _timestamp: "x",
      },
      timestamp: "2026-01-01T00:00:00.000000000+00:00",
    }),
  );
  return root;
}

test("json facts: <server_datadir>/facts/<node>.json values; none when missing; Puppet's errors", () => {
  const root = scratchPuppet();
  const dir = join(root, "var/server_data");
  assert.deepEqual(readFactsJson(dir, "n1.example.com"), {
    clientcert: "n1.example.com",
    fqdn: "n1.example.com",
    role: "fact-role",
    os: { family: "Debian" },
  });
  assert.equal(readFactsJson(dir, "other.example.com"), undefined);
  assert.throws(
    () => readFactsJson(dir, "../etc"),
    (e: Error) => e instanceof NodeError && e.message === "invalid key",
  );
  write(join(dir, "facts/bad.json"), "{");
  assert.throws(() => readFactsJson(dir, "bad"), /^NodeError: Could not parse JSON data for facts bad: /);
});

test("$trusted of a local compile: the certname from clientcert, split into hostname and domain", () => {
  assert.deepEqual(localTrusted("n1.example.com"), {
    authenticated: "local",
    certname: "n1.example.com",
    extensions: {},
    hostname: "n1",
    domain: "example.com",
    external: {},
  });
  assert.deepEqual(localTrusted("single"), {
    authenticated: "local",
    certname: "single",
    extensions: {},
    hostname: "single",
    domain: null,
    external: {},
  });
  // No facts: no clientcert, and Puppet's trusted certname is nil.
  assert.equal(localTrusted(undefined).certname, null);
});

test("node parameters: the ENC's, then facts, then server facts; a clash warns and the first stays", () => {
  const warnings: string[] = [];
  const request = nodeRequest(
    "N1.example.com",
    { clientcert: "n1.example.com", role: "fact-role", environment: "fromfact" },
    { classes: [], parameters: { role: "enc-role", datacenter: "ams1" } },
    "staging",
    (w) => warnings.push(w),
  );
  // The name as given: Puppet's catalog keeps its case (the compiler matches nodes in lower case).
  assert.equal(request.name, "N1.example.com");
  assert.deepEqual(request.parameters, {
    role: "enc-role",
    datacenter: "ams1",
    clientcert: "n1.example.com",
    ...SERVER_FACTS,
  });
  assert.deepEqual(warnings, [
    "The node parameter 'role' for node 'N1.example.com' was already set to 'enc-role'. It could not be set to 'fact-role'",
  ]);
  assert.deepEqual(request.serverFacts, { ...SERVER_FACTS, environment: "staging" });
  assert.equal(request.trusted.certname, "n1.example.com");
  assert.equal(request.fromEnc, true);
  // puppet apply: no server facts but the environment.
  const apply = nodeRequest("n1", {}, undefined, "production", undefined, {});
  assert.deepEqual(apply.serverFacts, { environment: "production" });
  assert.deepEqual(apply.parameters, {});
  assert.equal(apply.fromEnc, false);
});

test("ENC classes as a list, as a hash with parameters (in its order), as one name", () => {
  assert.deepEqual(parseClassification("n", "---\nclasses:\n  - base\n  - app\n").classes, [
    { name: "base", parameters: {} },
    { name: "app", parameters: {} },
  ]);
  const hash = parseClassification(
    "n",
    "---\nclasses:\n  plain:\n  base:\n    motd: hello\n  empty: {}\n  app:\n    port: 8080\nparameters:\n  role: webserver\nenvironment: staging\n",
  );
  assert.deepEqual(hash.classes, [
    { name: "plain", parameters: {} },
    { name: "base", parameters: { motd: "hello" } },
    { name: "empty", parameters: {} },
    { name: "app", parameters: { port: 8080 } },
  ]);
  assert.deepEqual(hash.parameters, { role: "webserver" });
  assert.equal(hash.environment, "staging");
  assert.deepEqual(parseClassification("n", "classes: base\n").classes, [{ name: "base", parameters: {} }]);
  assert.throws(
    () => parseClassification("n", "classes: [a\n"),
    /^NodeError: Could not load external node results for n: /,
  );
});

test("the ENC is run with the node's name; a non-zero exit is Puppet's error; no output is no node", () => {
  const root = scratchDirectory("tend-enc-");
  const enc = join(root, "enc.sh");
  write(enc, '#!/bin/sh\necho "---"\necho "parameters:"\necho "  asked: $1"\n', 0o755);
  assert.deepEqual(classifyNode({ nodeTerminus: "exec", externalNodes: enc }, "n1")?.parameters, {
    asked: "n1",
  });
  assert.equal(classifyNode({ nodeTerminus: "plain", externalNodes: enc }, "n1"), undefined);
  const failing = join(root, "fail.sh");
  write(failing, "#!/bin/sh\necho 'not here'\necho oops >&2\nexit 3\n", 0o755);
  assert.throws(
    () => classifyNode({ nodeTerminus: "exec", externalNodes: `${failing} --flag` }, "n1"),
    (e: Error) =>
      e.message === `Failed to find n1 via exec: Execution of '${failing} --flag n1' returned 3: not here`,
  );
  const silent = join(root, "silent.sh");
  write(silent, "#!/bin/sh\necho '  '\n", 0o755);
  assert.equal(classifyNode({ nodeTerminus: "exec", externalNodes: silent }, "n1"), undefined);
  assert.throws(
    () => classifyNode({ nodeTerminus: "exec", externalNodes: "none" }, "n1"),
    /You must set the 'external_nodes' parameter to use the external node terminus/,
  );
  assert.throws(
    () => classifyNode({ nodeTerminus: "exec", externalNodes: "enc.sh" }, "n1"),
    /You must set the exec parameter to a fully qualified command/,
  );
});

test("prepareCompile: facts, the ENC's classes and parameters, its environment authoritative", async () => {
  const root = scratchPuppet();
  const enc = join(root, "enc.sh");
  write(
    enc,
    "#!/bin/sh\ncat <<EOF\n---\nenvironment: staging\nclasses:\n  app:\n  base:\n    motd: hi\nparameters:\n  role: webserver\nEOF\n",
    0o755,
  );
  const settings = resolveCompileSettings(
    {
      confdir: join(root, "etc"),
      facts_terminus: "json",
      node_terminus: "exec",
      external_nodes: enc,
      environment: "production",
    },
    root,
  );
  const { input } = await prepareCompile({
    node: "n1.example.com",
    settings,
    factsDir: settings.serverDatadir,
  });
  assert.equal(input.environment.name, "staging");
  assert.equal(input.environment.dir, join(root, "code/environments/staging"));
  assert.deepEqual(input.node.classes, [
    { name: "app", parameters: {} },
    { name: "base", parameters: { motd: "hi" } },
  ]);
  assert.equal(input.node.parameters.role, "webserver");
  assert.equal(input.node.facts.role, "fact-role");
  assert.deepEqual(input.node.serverFacts, { ...SERVER_FACTS, environment: "staging" });
  assert.equal(input.node.fromEnc, true);
});

test("prepareCompile: an ENC naming a missing environment, a failing ENC, an empty answer", async () => {
  const root = scratchPuppet();
  const settingsWith = (enc: string) =>
    resolveCompileSettings(
      { confdir: join(root, "etc"), facts_terminus: "json", node_terminus: "exec", external_nodes: enc },
      root,
    );
  const missing = join(root, "missing.sh");
  write(missing, "#!/bin/sh\necho 'environment: nosuch'\n", 0o755);
  await assert.rejects(
    prepareCompile({
      node: "n1.example.com",
      settings: settingsWith(missing),
      factsDir: join(root, "var/server_data"),
    }),
    (e: Error) =>
      e instanceof CompileSetupError &&
      e.stage === "node" &&
      e.message ===
        `Failed when searching for node n1.example.com: Could not find a directory environment named 'nosuch' anywhere in the path: ${root}/code/environments. Does the directory exist?`,
  );
  const failing = join(root, "fail.sh");
  write(failing, "#!/bin/sh\nexit 2\n", 0o755);
  await assert.rejects(
    prepareCompile({
      node: "n1.example.com",
      settings: settingsWith(failing),
      factsDir: join(root, "var/server_data"),
    }),
    (e: Error) =>
      e.message ===
      `Failed when searching for node n1.example.com: Failed to find n1.example.com via exec: Execution of '${failing} n1.example.com' returned 2: `,
  );
  const empty = join(root, "empty.sh");
  write(empty, "#!/bin/sh\n", 0o755);
  await assert.rejects(
    prepareCompile({
      node: "n1.example.com",
      settings: settingsWith(empty),
      factsDir: join(root, "var/server_data"),
    }),
    (e: Error) => e.message === "Could not find node 'n1.example.com'; cannot compile",
  );
});

test("prepareCompile without an ENC: the environment setting, no classes, facts as parameters", async () => {
  const root = scratchPuppet();
  const settings = resolveCompileSettings({ confdir: join(root, "etc"), facts_terminus: "json" }, root);
  const { input } = await prepareCompile({
    node: "n1.example.com",
    settings,
    factsDir: settings.serverDatadir,
  });
  assert.equal(input.environment.name, "production");
  assert.deepEqual(input.node.classes, []);
  assert.equal(input.node.fromEnc, false);
  assert.equal(input.node.parameters.fqdn, "n1.example.com");
  assert.equal(input.node.parameters.servername, "puppet");
  assert.equal(input.node.trusted.hostname, "n1");
  // No fact file: no facts, no certname in $trusted.
  const { input: bare } = await prepareCompile({
    node: "nofacts",
    settings,
    factsDir: settings.serverDatadir,
  });
  assert.deepEqual(bare.node.facts, {});
  assert.equal(bare.node.trusted.certname, null);
});
