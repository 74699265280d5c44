/**
 * Puppet's `mount` with real mounts, against Puppet 7.23: each scenario of
 * test/fixtures/puppet-mounts/ is applied with `tend puppet apply --catalog`
 * (the catalog Puppet compiled) run after run in a fresh mount sandbox
 * (sandbox.ts: a private mount namespace, tmpfs mounts, the sandbox's own
 * /etc/fstab), and the exit codes, resource statuses and events, log lines,
 * the mounts left and /etc/fstab must be what Puppet's runs left in the same
 * kind of sandbox (recorded by scripts/record-puppet-mounts.ts).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { type RunOutcome, readOutcome } from "../harness.js";
import {
  CONFDIR,
  INSIDE,
  listMountScenarios,
  mountSandboxUnavailable,
  NODE,
  puppetConfFiles,
  runInMountSandbox,
  type SandboxRunResult,
} from "./sandbox.js";

const TEND = fileURLToPath(new URL("../../../../bin/tend.js", import.meta.url));

interface MountRunOutcome extends Omit<RunOutcome, "tree"> {
  readonly mounts: readonly string[];
  readonly fstab: string;
  readonly bucket?: SandboxRunResult["bucket"];
}

interface Expected {
  readonly puppetVersion: string;
  readonly runs: readonly MountRunOutcome[];
}

const unavailable = mountSandboxUnavailable();

/**
 * Run-level info lines tend does not give (deliberately: the configuration
 * version differs per compile, the state file is tend's own), left out of
 * both sides at --verbose.
 */
const RUN_INFO = /^(Applying configuration version |Creating state file )/;
const withoutRunInfo = (logs: RunOutcome["logs"]) => logs.filter((l) => !RUN_INFO.test(l.message));

for (const scenario of listMountScenarios()) {
  test(`puppet mounts: ${scenario.name}`, (t) => {
    if (unavailable) {
      t.skip(unavailable);
      return;
    }
    const expected = JSON.parse(readFileSync(join(scenario.dir, "expected.json"), "utf8")) as Expected;
    const files = {
      ...puppetConfFiles(),
      "catalog.json": readFileSync(join(scenario.dir, "catalog.json"), "utf8"),
    };
    const commands = scenario.runs.map((run) => {
      const args = [process.execPath, TEND, "puppet", "apply", "--catalog", `${INSIDE}/catalog.json`];
      args.push("--confdir", CONFDIR, "--certname", NODE, "--detailed-exitcodes", "--color", "never");
      if (run.noop) args.push("--noop");
      if (run.verbose) args.push("--verbose");
      return args;
    });
    const session = runInMountSandbox(scenario, files, commands);
    t.after(() => session.remove());
    for (const [index, want] of expected.runs.entries()) {
      const run = session.runs[index];
      assert.ok(run, `run ${index + 1} did not happen`);
      const { tree: _tree, ...outcome } = readOutcome(
        run.reportFile,
        run.exitCode,
        join(session.dir, "none"),
        [],
      );
      const got: MountRunOutcome = { ...outcome, mounts: run.mounts, fstab: run.fstab, bucket: run.bucket };
      const label = `${scenario.name} run ${index + 1} (tend printed:\n${run.output})`;
      assert.equal(got.exitCode, want.exitCode, `${label}: exit code`);
      assert.equal(got.status, want.status, `${label}: status`);
      assert.deepEqual(got.resources, want.resources, `${label}: resource statuses and events`);
      assert.deepEqual(withoutRunInfo(got.logs), withoutRunInfo(want.logs), `${label}: log lines`);
      assert.deepEqual(got.mounts, want.mounts, `${label}: mounts`);
      assert.equal(got.fstab, want.fstab, `${label}: /etc/fstab`);
      assert.deepEqual(got.bucket, want.bucket, `${label}: the filebucket`);
    }
  });
}
