/**
 * Records what Puppet 7.23 does with each scenario of test/fixtures/puppet-
 * sandboxed/ (see test/puppet/sandboxed/harness.ts), each in a fresh
 * DebSandbox: the catalog (catalog.json, volatile keys dropped) and, per
 * run, the Package and Service events and the state left (expected.json).
 *
 *   npx tsc -p . && node dist/scripts/record-puppet-sandboxed.js [scenario ...]
 *
 * Puppet runs offline with a scratch confdir and fixed facts inside the
 * sandbox's mount namespace; the machine's packages and services never change.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DebSandbox, INSIDE } from "../test/providers/packages/deb-sandbox.js";
import { compileArgs, stableCatalog } from "../test/puppet/harness.js";
import {
  type Expected,
  NODE,
  ROOT,
  type RunOutcome,
  type Scenario,
  listScenarios,
  prepare,
  readReport,
  snapshotState,
  writePuppetConf,
} from "../test/puppet/sandboxed/harness.js";

const only = process.argv.slice(2);

function record(scenario: Scenario): void {
  const sandbox = new DebSandbox(scenario.debs ?? []);
  try {
    prepare(scenario, sandbox);
    const scratch = sandbox.path("puppet");
    writePuppetConf(scratch, `${INSIDE}/puppet`);
    const manifests = join(scratch, "code/environments/production/manifests");
    mkdirSync(manifests, { recursive: true });
    const manifest = readFileSync(join(scenario.dir, "manifest.pp"), "utf8").split("@ROOT@").join(ROOT);
    writeFileSync(join(manifests, "site.pp"), manifest);
    const common = ["--confdir", `${INSIDE}/puppet/etc`, "--facts_terminus", "json"];
    const compile = sandbox.run(["puppet", ...compileArgs(`${INSIDE}/puppet/etc`)]);
    if (compile.status !== 0) throw new Error(`${scenario.name}: compile failed: ${compile.stderr}`);
    const catalog = stableCatalog(compile.stdout);
    writeFileSync(
      join(scenario.dir, "catalog.json"),
      `${JSON.stringify(catalog, null, 1).split(ROOT).join("@ROOT@")}\n`,
    );
    const runs: RunOutcome[] = [];
    const report = join(scratch, "var/state/last_run_report.yaml");
    for (const run of scenario.runs) {
      const args = ["puppet", "apply", ...common, "--certname", NODE, "--color", "false"];
      if (run.noop) args.push("--noop");
      const applied = sandbox.run([...args, "-e", ""], { LANG: "C.UTF-8" });
      if (applied.status !== 0 && applied.status !== 2 && applied.status !== 4 && applied.status !== 6)
        throw new Error(`${scenario.name}: puppet apply exited ${applied.status}: ${applied.stderr}`);
      runs.push({ resources: readReport(report), state: snapshotState(scenario, sandbox) });
    }
    const version = sandbox.run(["puppet", "--version"]).stdout.trim();
    const expected: Expected = { puppetVersion: version, runs };
    writeFileSync(join(scenario.dir, "expected.json"), `${JSON.stringify(expected, null, 1)}\n`);
    console.log(`${scenario.name}: recorded ${runs.length} run(s)`);
  } finally {
    sandbox.remove();
  }
}

for (const scenario of listScenarios()) {
  if (only.length > 0 && !only.includes(scenario.name)) continue;
  record(scenario);
}
