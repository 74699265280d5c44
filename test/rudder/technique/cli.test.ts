/**
 * `tend rudder technique check|compile`, run as users run it: files written
 * where asked, JSON on request, diagnostics as file:line:col on stderr and
 * exit 1 on bad input or without a method library.
 */
import assert from "node:assert/strict";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { runTend } from "../../cli/run-tend.js";

const FIXTURES = fileURLToPath(new URL("../../../../test/fixtures/rudder/rudderc/", import.meta.url));
const METHODS = join(FIXTURES, "methods");
const NTP = join(FIXTURES, "cases", "ntp");

function tempDir(t: import("node:test").TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), "tend-rudder-cli-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("compile writes technique.cf, metadata.xml and the resources into -o", (t) => {
  const out = join(tempDir(t), "out");
  const run = runTend([
    "rudder",
    "technique",
    "compile",
    join(NTP, "technique.yml"),
    "-o",
    out,
    "--ncf",
    METHODS,
  ]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(
    readFileSync(join(out, "technique.cf"), "utf8"),
    readFileSync(join(NTP, "technique.cf"), "utf8"),
  );
  assert.equal(
    readFileSync(join(out, "metadata.xml"), "utf8"),
    readFileSync(join(NTP, "metadata.xml"), "utf8"),
  );
  assert.ok(existsSync(join(out, "resources", "directory", "file2.conf")));
  assert.match(run.stderr, /technique\.yml:33:17: warning: deprecated method 'package_install'/);
});

test("--json gives the id, version, metadata and the files written", (t) => {
  const out = join(tempDir(t), "out");
  const run = runTend(["rudder", "technique", "compile", join(NTP, "technique.yml"), "-o", out, "--json"], {
    env: { TEND_NCF: METHODS },
  });
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout);
  assert.equal(result.id, "ntp_technique");
  assert.equal(result.version, "0.1");
  assert.equal(result.metadata.policyGeneration, "separated-with-parameters");
  assert.equal(result.metadata.inputs[0].name, "3439BBB0-D8F1-4C43-95A9-0C56BFB8C27E");
  assert.ok(result.written.includes(join(out, "technique.cf")));
});

test("check reports every problem as file:line:col and exits 1", (t) => {
  const file = join(tempDir(t), "bad.yml");
  writeFileSync(
    file,
    'id: bad\nname: Bad\nversion: "1.0"\nitems:\n  - id: m\n    method: package_presnt\n    params: {name: x}\n',
  );
  const run = runTend(["rudder", "technique", "check", file, "--ncf", METHODS]);
  assert.equal(run.code, 1);
  assert.equal(
    run.stderr,
    `${file}:6:13: error: unknown method 'package_presnt', expected a method of the library (did you mean 'package_present'?)\n`,
  );
  assert.equal(run.stdout, "");
});

test("without a method library, a clear error", (t) => {
  const run = runTend([
    "rudder",
    "technique",
    "check",
    join(NTP, "technique.yml"),
    "--ncf",
    join(tempDir(t), "none"),
  ]);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /could not open method library/);
});

test("usage errors name what was expected", () => {
  const run = runTend(["rudder", "technique", "build", "x.yml"]);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /expected 'check' or 'compile'/);
  assert.match(runTend(["rudder", "nothing"]).stderr, /unknown subcommand 'nothing'/);
});

test("--standalone puts a prelude that loads ncf and runs the technique before technique.cf", (t) => {
  const dir = tempDir(t);
  const tree = join(dir, "ncf");
  mkdirSync(join(tree, "30_generic_methods"), { recursive: true });
  copyFileSync(join(METHODS, "package_present.cf"), join(tree, "30_generic_methods", "package_present.cf"));
  const run = runTend([
    "rudder",
    "technique",
    "compile",
    join(NTP, "technique.yml"),
    "-o",
    join(dir, "out"),
    "--ncf",
    join(tree, "30_generic_methods"),
    "--standalone",
    "--param",
    "server=ntp.example.org",
    "--audit",
  ]);
  assert.equal(run.code, 1, "package_install is not in this one-method library");
  copyFileSync(join(METHODS, "package_install.cf"), join(tree, "30_generic_methods", "package_install.cf"));
  const ok = runTend([
    "rudder",
    "technique",
    "compile",
    join(NTP, "technique.yml"),
    "-o",
    join(dir, "out"),
    "--ncf",
    join(tree, "30_generic_methods"),
    "--standalone",
    "--param",
    "server=ntp.example.org",
    "--audit",
  ]);
  assert.equal(ok.code, 0, ok.stderr);
  const cf = readFileSync(join(dir, "out", "technique.cf"), "utf8");
  assert.ok(cf.endsWith(readFileSync(join(NTP, "technique.cf"), "utf8")));
  assert.match(cf, new RegExp(`"ncf_tree"\\s+string => "${tree}";`));
  assert.match(cf, /usebundle => set_dry_run_mode\("true"\);/);
  assert.match(cf, /usebundle => ntp_technique\("ntp\.example\.org"\);/);
  const bad = runTend([
    "rudder",
    "technique",
    "compile",
    join(NTP, "technique.yml"),
    "-o",
    join(dir, "out"),
    "--ncf",
    METHODS,
    "--standalone",
    "--param",
    "nope=1",
  ]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /the technique has no parameter 'nope'/);
});
