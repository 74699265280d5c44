/**
 * Records what Puppet 7.23 does with each scenario of scenarios.ts, in a
 * sandbox (harness.ts): the catalog (catalog.json) and, for each run of
 * `puppet apply --detailed-exitcodes`, the exit code, the report's
 * resource statuses and events, and the state left (expected.json), under
 * test/fixtures/puppet-accounts/<scenario>/.
 *
 *   npx tsc -p . && node dist/test/puppet/accounts/record.js [scenario ...]
 *
 * Puppet runs offline in a scratch confdir with fixed facts, inside the
 * sandbox's mount namespace: the machine's accounts, crontabs and hosts
 * never change.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileArgs, NODE, readOutcome, stableCatalog, writeScratchConf } from "../harness.js";
import { type AccountsRun, fixturesDir, readState, scenarioSandbox } from "./harness.js";
import { SCENARIOS } from "./scenarios.js";

const only = process.argv.slice(2);
const version = spawnSync("puppet", ["--version"], { encoding: "utf8" }).stdout.trim();

for (const scenario of SCENARIOS) {
  if (only.length > 0 && !only.includes(scenario.name)) continue;
  const scratch = mkdtempSync(join(tmpdir(), `tend-pacc-${scenario.name}-`));
  const sandbox = scenarioSandbox(scenario);
  try {
    const confdir = writeScratchConf(scratch);
    const manifests = join(scratch, "code", "environments", "production", "manifests");
    mkdirSync(manifests, { recursive: true });
    writeFileSync(join(manifests, "site.pp"), `${scenario.manifest}\n`);
    const common = ["--confdir", confdir, "--facts_terminus", "json"];
    const compiled = sandbox.run(["puppet", ...compileArgs(confdir)]);
    if (compiled.status !== 0) throw new Error(`${scenario.name}: compile failed: ${compiled.stderr}`);
    const catalog = stableCatalog(compiled.stdout);
    const runs: AccountsRun[] = [];
    for (const run of scenario.runs) {
      const argv = ["puppet", "apply", ...common, "--certname", NODE, "--detailed-exitcodes", "-e", ""];
      const applied = sandbox.run(run.noop ? [...argv, "--noop"] : argv);
      const report = join(scratch, "var", "state", "last_run_report.yaml");
      const outcome = readOutcome(report, applied.status ?? -1, join(scratch, "none"), []);
      const resources = Object.fromEntries(
        Object.entries(outcome.resources).map(([ref, r]) => [
          ref,
          { changed: r.changed, failed: r.failed, skipped: r.skipped, events: r.events },
        ]),
      );
      runs.push({ exitCode: outcome.exitCode, resources, state: readState(sandbox) });
      process.stdout.write(`${scenario.name}: exit ${outcome.exitCode}\n`);
    }
    const dir = join(fixturesDir, scenario.name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "catalog.json"), `${JSON.stringify(catalog, null, 2)}\n`);
    writeFileSync(
      join(dir, "expected.json"),
      `${JSON.stringify({ puppetVersion: version, runs }, null, 2)}\n`,
    );
  } finally {
    sandbox.remove();
    rmSync(scratch, { recursive: true, force: true });
  }
}
