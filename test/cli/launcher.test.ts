/**
 * The `tend` command (bin/tend) keeps NODE_EXTRA_CA_CERTS from Node's start
 * and puts it back before the agent runs anything: what a policy runs must
 * see the environment tend was given, unchanged.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { symlinkSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { scratchDirectory } from "../scratch.js";

const launcher = fileURLToPath(new URL("../../../bin/tend", import.meta.url));

const POLICY = `bundle agent main
{
  vars:
      "extra" string => execresult("printenv NODE_EXTRA_CA_CERTS || echo unset", "useshell");
      "deferred" string => execresult("printenv TEND_DEFERRED_NODE_EXTRA_CA_CERTS || echo unset", "useshell");
  reports:
      "extra=$(extra) deferred=$(deferred)";
}
`;

function runLauncher(command: string, extraCaCerts: string | undefined) {
  const dir = scratchDirectory("tend-launcher-");
  writeFileSync(join(dir, "policy.cf"), POLICY);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // The node running the tests is the one the command should find.
    PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`,
    CFENGINE_TEST_OVERRIDE_WORKDIR: join(dir, "work"),
  };
  delete env.NODE_EXTRA_CA_CERTS;
  delete env.TEND_DEFERRED_NODE_EXTRA_CA_CERTS;
  if (extraCaCerts !== undefined) env.NODE_EXTRA_CA_CERTS = extraCaCerts;
  return spawnSync(command, ["agent", "-Kf", join(dir, "policy.cf")], {
    env,
    encoding: "utf8",
    timeout: 30_000,
  });
}

test("a program the agent runs sees NODE_EXTRA_CA_CERTS as given, and Node never read it", () => {
  // A file that does not exist: had Node 20 read it at start, it would warn on stderr.
  const run = runLauncher(launcher, "/nonexistent/tend-test-ca.pem");
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, "R: extra=/nonexistent/tend-test-ca.pem deferred=unset\n");
  assert.doesNotMatch(run.stderr, /extra certs/i);
});

test("an unset NODE_EXTRA_CA_CERTS stays unset", () => {
  const run = runLauncher(launcher, undefined);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, "R: extra=unset deferred=unset\n");
});

test("the command works through a symbolic link, as npm installs it", () => {
  const link = join(scratchDirectory("tend-launcher-link-"), "tend");
  symlinkSync(launcher, link);
  const run = runLauncher(link, "");
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, "R: extra= deferred=unset\n");
});
