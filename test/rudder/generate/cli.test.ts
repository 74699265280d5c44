// `tend rudder generate`: a configuration directory and a node in, the
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: CFEngine and Rudder variables in test data
// node's policy directory out; bad input is a diagnostic and exit 1.
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { runTend } from "../../cli/run-tend.js";

function write(dir: string, path: string, content: unknown): void {
  const full = join(dir, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, typeof content === "string" ? content : JSON.stringify(content, null, 2));
}

const META = `<TECHNIQUE name="Files">
  <MULTIINSTANCE>true</MULTIINSTANCE>
  <POLICYGENERATION>separated-with-parameters</POLICYGENERATION>
  <USEMETHODREPORTING>true</USEMETHODREPORTING>
  <BUNDLES><NAME>files_present</NAME></BUNDLES>
  <FILES><FILE name="files.cf"><INCLUDED>true</INCLUDED></FILE></FILES>
  <SECTIONS>
    <SECTION name="Technique parameters">
      <INPUT><NAME>PATH</NAME><DESCRIPTION>path</DESCRIPTION></INPUT>
    </SECTION>
    <SECTION name="File present" id="c0ffee00-0000-4000-8000-000000000001" component="true" multivalued="true">
      <REPORTKEYS><VALUE id="c0ffee00-0000-4000-8000-000000000001">\${path}</VALUE></REPORTKEYS>
    </SECTION>
  </SECTIONS>
</TECHNIQUE>`;

function config(dir: string): void {
  write(dir, "techniques/files/1.0/metadata.xml", META);
  write(
    dir,
    "techniques/files/1.0/files.cf",
    'bundle agent files_present(path) {\n  methods:\n    "f" usebundle => file_present("${path}");\n}\n',
  );
  for (const [id, path, priority] of [
    ["d1", "/tmp/a", 5],
    ["d2", "${node.properties[dir]}/b", 1],
  ] as const) {
    write(dir, `directives/${id}.json`, {
      id,
      displayName: id.toUpperCase(),
      techniqueName: "files",
      techniqueVersion: "1.0",
      parameters: { PATH: path },
      priority,
    });
  }
  write(dir, "groups/web.json", {
    id: "web",
    query: {
      where: [{ objectType: "node", attribute: "nodeHostname", comparator: "regex", value: "web.*" }],
    },
  });
  write(dir, "rules/r1.json", {
    id: "r1",
    displayName: "Rule one",
    directives: ["d1", "d2"],
    targets: [{ include: { or: ["group:web"] }, exclude: { or: [] } }],
  });
  write(dir, "nodes/n1.json", {
    id: "n1",
    hostname: "web1",
    properties: [{ name: "dir", value: "/srv" }],
    policyMode: "audit",
  });
}

test("tend rudder generate writes rudder-directives.cf, the technique and the expected reports", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "tend-rudder-cli-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  config(join(dir, "config"));
  const r = runTend(["rudder", "generate", "--config", "config", "--node", "n1", "-o", "out", "--json"], {
    cwd: dir,
  });
  assert.equal(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout);
  assert.deepEqual(
    result.policies.map((p: { directiveId: string }) => p.directiveId),
    ["d1", "d2"],
  );
  const cf = readFileSync(join(dir, "out/rudder-directives.cf"), "utf8");
  assert.match(cf, /"Rule one\/D1" usebundle => set_dry_run_mode\("true"\);/);
  assert.match(cf, /"Rule one\/D2" usebundle => files_present\("\/srv\/b"\);/);
  assert.match(cf, /"files\/1.0\/files.cf",/);
  assert.ok(existsSync(join(dir, "out/files/1.0/files.cf")));
  const expected = JSON.parse(readFileSync(join(dir, "out/expected-reports.json"), "utf8"));
  assert.equal(expected.nodeId, "n1");
  assert.equal(expected.nodeConfigId, result.nodeConfigId);
  assert.equal(expected.ms.npm, "audit");
  assert.deepEqual(expected.rs[0].ds[1], {
    did: "d2",
    cs: [{ vid: "File present", vs: [{ id: "c0ffee00-0000-4000-8000-000000000001", v: "${path}" }] }],
  });
});

test("tend rudder generate: bad input is a file:line:col diagnostic and exit 1, no stack trace", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "tend-rudder-cli-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  config(join(dir, "config"));
  write(join(dir, "config"), "rules/r2.json", '{\n  "id": "r2",\n  "targets": "special:all"\n}');
  const r = runTend(["rudder", "generate", "-c", "config", "-n", "n1", "-o", "out"], { cwd: dir });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /rules\/r2\.json:3:3: error: "targets" must be a list, found string "special:all"/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
  assert.equal(existsSync(join(dir, "out")), false);
  const missing = runTend(["rudder", "generate", "-c", "config", "-n", "nobody", "-o", "out"], { cwd: dir });
  assert.equal(missing.code, 1);
});

test("tend rudder generate takes absolute --config, --ncf and -o paths as they are", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "tend-rudder-cli-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const configDir = join(dir, "config");
  config(configDir);
  // A YAML technique, so the generic methods given by --ncf are read.
  write(
    configDir,
    "techniques/run_it/1.0/technique.yml",
    [
      "id: run_it",
      "name: Run it",
      'version: "1.0"',
      "items:",
      "  - id: 0b9a5a3e-2222-4c7e-9d41-000000000001",
      "    name: Run",
      "    method: command_execution",
      "    params:",
      '      command: "/bin/true"',
      "",
    ].join("\n"),
  );
  write(configDir, "directives/d3.json", {
    id: "d3",
    displayName: "D3",
    techniqueName: "run_it",
    techniqueVersion: "1.0",
    parameters: {},
  });
  write(configDir, "rules/r3.json", {
    id: "r3",
    displayName: "Rule three",
    directives: ["d3"],
    targets: [{ include: { or: ["group:web"] }, exclude: { or: [] } }],
  });
  const elsewhere = join(dir, "elsewhere");
  mkdirSync(elsewhere);
  const methods = fileURLToPath(new URL("../../../../test/fixtures/rudder/rudderc/methods", import.meta.url));
  const out = join(dir, "out");
  const r = runTend(
    ["rudder", "generate", "--config", configDir, "--node", "n1", "-o", out, "--ncf", methods, "--json"],
    { cwd: elsewhere },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).output, out);
  // The YAML technique was compiled with the methods of --ncf (separated per directive).
  assert.ok(existsSync(join(out, "run_it/1_0_d3/technique.cf")));
  assert.deepEqual(readdirSync(elsewhere), [], "nothing is written under the working directory");
});
