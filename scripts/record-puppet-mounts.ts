/**
 * Records what Puppet 7.23 does with each scenario of test/fixtures/
 * puppet-mounts/ (see test/puppet/mounts/sandbox.ts) in a private mount
 * namespace: the catalog (catalog.json, volatile keys dropped) and, per
 * run, the exit code, resource statuses and events, log lines, the arena's
 * mounts, /etc/fstab and the filebucket (expected.json).
 *
 *   npx tsc -p . && node dist/scripts/record-puppet-mounts.js
 *
 * Needs root, unshare, Puppet 7.23 and puppet-module-puppetlabs-mount-core.
 * The machine's mounts and /etc/fstab never change.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compileArgs, readOutcome, stableCatalog } from "../test/puppet/harness.js";
import {
  CONFDIR,
  INSIDE,
  listMountScenarios,
  type MountScenario,
  NODE,
  puppetConfFiles,
  runInMountSandbox,
  type SandboxRunResult,
} from "../test/puppet/mounts/sandbox.js";

function record(scenario: MountScenario): void {
  const files = {
    ...puppetConfFiles(),
    "puppet/code/environments/production/manifests/site.pp": readFileSync(
      join(scenario.dir, "manifest.pp"),
      "utf8",
    ),
  };
  const compile = ["puppet", ...compileArgs(CONFDIR)];
  const applies = scenario.runs.map((run) => {
    const args = ["puppet", "apply", "--confdir", CONFDIR, "--facts_terminus", "json", "--certname", NODE];
    args.push("--detailed-exitcodes", "--color", "false");
    if (run.noop) args.push("--noop");
    if (run.verbose) args.push("--verbose");
    return [...args, "-e", ""];
  });
  const session = runInMountSandbox(scenario, files, [compile, ...applies], { LANG: "C.UTF-8" });
  try {
    const [compiled, ...runs] = session.runs as [SandboxRunResult, ...SandboxRunResult[]];
    if (compiled.exitCode !== 0) throw new Error(`compile failed: ${compiled.output}`);
    const catalog = stableCatalog(compiled.output);
    writeFileSync(join(scenario.dir, "catalog.json"), `${JSON.stringify(catalog, null, 1)}\n`);
    const outcomes = runs.map((run) => {
      const { tree: _tree, ...outcome } = readOutcome(run.reportFile, run.exitCode, join(INSIDE, "none"), []);
      return { ...outcome, mounts: run.mounts, fstab: run.fstab, bucket: run.bucket };
    });
    const expected = { puppetVersion: "7.23.0", runs: outcomes };
    writeFileSync(join(scenario.dir, "expected.json"), `${JSON.stringify(expected, null, 1)}\n`);
    process.stdout.write(`${scenario.name}: recorded ${runs.length} runs\n`);
    for (const [i, run] of runs.entries()) process.stdout.write(`--- run ${i + 1}\n${run.output}`);
  } finally {
    session.remove();
  }
}

for (const scenario of listMountScenarios()) record(scenario);
