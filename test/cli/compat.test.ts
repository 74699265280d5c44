import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { repoRoot, runTend } from "./run-tend.js";

/** Tests that compare with cf-promises skip, saying why, where it is not installed. */
const cfPromisesMissing = spawnSync("cf-promises", ["-V"], { stdio: "ignore" }).status !== 0;
const skip = cfPromisesMissing ? "cf-promises is not installed" : false;
const workdir = mkdtempSync(join(tmpdir(), "tend-compat-"));
after(() => rmSync(workdir, { recursive: true, force: true }));

function runCfPromises(args: readonly string[], cwd: string) {
  const env = { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: workdir };
  return spawnSync("cf-promises", ["-w", workdir, ...args], { cwd, env, encoding: "utf8" });
}

test("-s json describes the syntax in four sorted maps", () => {
  const run = runTend(["check", "-s", "json"]);
  assert.equal(run.code, 0);
  const description = JSON.parse(run.stdout);
  assert.deepEqual(Object.keys(description), ["bodyTypes", "bundleTypes", "functions", "promiseTypes"]);
  assert.ok(description.promiseTypes.files.attributes.create);
});

test("-s json prints exactly what cf-promises prints", { skip }, () => {
  const ours = runTend(["check", "-s", "json"]).stdout;
  assert.equal(ours, runCfPromises(["-s", "json"], repoRoot).stdout);
});

test("the shipped example passes both tend and cf-promises", { skip }, () => {
  const args = ["-f", "./examples/site.cf"];
  assert.equal(runCfPromises(args, repoRoot).status, 0);
  assert.equal(runTend(["check", "-w", workdir, ...args], { cwd: repoRoot }).code, 0);
});

test("the shipped example passes tend check", () => {
  assert.equal(runTend(["check", "-w", workdir, "-f", "./examples/site.cf"], { cwd: repoRoot }).code, 0);
});

test("the shipped example checks without warnings", () => {
  const run = runTend(["check", "-w", workdir, "-f", "./examples/site.cf"], { cwd: repoRoot });
  assert.equal(run.stderr, "");
});

test("tend and cf-promises agree on the CLI fixtures", { skip }, () => {
  const fixtures = join(repoRoot, "test", "fixtures", "cli");
  for (const name of ["valid.cf", "syntax-error.cf"]) {
    const cf = runCfPromises(["-f", `./${name}`], fixtures).status;
    assert.equal(runTend(["check", "-w", workdir, "-f", `./${name}`]).code, cf, name);
  }
});
