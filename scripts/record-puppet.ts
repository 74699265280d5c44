/**
 * Records what Puppet 7.23 does with each scenario of test/fixtures/puppet/
 * (see test/puppet/harness.ts): the catalog `puppet catalog compile`
 * makes (catalog.json, the scratch root written back as @ROOT@, volatile
 * keys dropped) and, for each of the scenario's runs of `puppet apply
 * --detailed-exitcodes` on the site manifest, the exit code, the report's
 * resource statuses, events and logs, and the files left (expected.json).
 *
 *   npx tsc -p . && node dist/scripts/record-puppet.js [scenario ...]
 *
 * (`npm run record:puppet`). Puppet runs offline in a scratch confdir with
 * fixed facts; everything it touches is under a temporary directory.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  compileArgs,
  type Expected,
  NODE,
  type RunOutcome,
  type Scenario,
  listScenarios,
  modulesOf,
  prepareRoot,
  stableCatalog,
  readOutcome,
  writeScratchConf,
} from "../test/puppet/harness.js";

const only = process.argv.slice(2);
const puppet = process.env.PUPPET ?? "puppet";

function puppetVersion(): string {
  const run = spawnSync(puppet, ["--version"], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`cannot run ${puppet}: ${run.stderr || run.error}`);
  return run.stdout.trim();
}

function record(scenario: Scenario, version: string): void {
  const scratch = mkdtempSync(join(tmpdir(), `tend-puppet-${scenario.name}-`));
  try {
    const confdir = writeScratchConf(scratch);
    const root = join(scratch, "root");
    const env = join(scratch, "code/environments/production");
    mkdirSync(join(env, "manifests"), { recursive: true });
    const manifest = readFileSync(join(scenario.dir, "manifest.pp"), "utf8").split("@ROOT@").join(root);
    writeFileSync(join(env, "manifests/site.pp"), manifest);
    const modules = modulesOf(scenario);
    if (modules) cpSync(modules, join(env, "modules"), { recursive: true });
    prepareRoot(scenario, root);
    const replacements = [
      [root, "@ROOT@"],
      [join(scratch, "code"), "@CODEDIR@"],
      [scratch, "@SCRATCH@"],
    ] as const;
    const common = ["--confdir", confdir, "--facts_terminus", "json"];
    const compile = spawnSync(puppet, compileArgs(confdir), { encoding: "utf8" });
    if (compile.status !== 0) throw new Error(`${scenario.name}: compile failed: ${compile.stderr}`);
    const catalog = stableCatalog(compile.stdout);
    writeFileSync(
      join(scenario.dir, "catalog.json"),
      `${JSON.stringify(replacePathsIn(catalog, replacements), null, 1)}\n`,
    );
    const runs: RunOutcome[] = [];
    for (const run of scenario.runs) {
      rmSync(join(scratch, "var/state/last_run_report.yaml"), { force: true });
      const args = ["apply", ...common, "--certname", NODE, "--detailed-exitcodes", "--color", "false"];
      if (run.noop) args.push("--noop");
      if (run.tags !== undefined) args.push("--tags", run.tags);
      const applied = spawnSync(puppet, [...args, "-e", ""], {
        encoding: "utf8",
        env: { ...process.env, LANG: "C.UTF-8" },
      });
      const report = join(scratch, "var/state/last_run_report.yaml");
      runs.push(readOutcome(report, applied.status ?? -1, root, replacements));
    }
    const expected: Expected = { puppetVersion: version, runs };
    writeFileSync(join(scenario.dir, "expected.json"), `${JSON.stringify(expected, null, 1)}\n`);
    console.log(`${scenario.name}: ${runs.map((r) => r.exitCode).join(", ")}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function replacePathsIn<T>(value: T, replacements: readonly (readonly [string, string])[]): T {
  let text = JSON.stringify(value);
  for (const [from, to] of replacements) text = text.split(from).join(to);
  return JSON.parse(text) as T;
}

process.umask(0o022);
const version = puppetVersion();
for (const scenario of listScenarios()) {
  if (only.length > 0 && !only.includes(scenario.name)) continue;
  record(scenario, version);
}
