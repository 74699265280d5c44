/**
 * Records what Puppet 7.23 does with the applier's scenarios
 * (test/fixtures/catalog/puppet/<name>/manifest.pp: notify and exec only,
 * harmless commands, nothing written outside a scratch directory): the
 * compiled catalog (catalog.json) and, per run of the scenario, the exit
 * code, resource statuses, events and logs (expected.json), in the
 * format of test/puppet/harness.ts. test/catalog/puppet-differential.test.ts
 * applies each catalog with fake notify and exec types and compares.
 *
 *   npx tsc -p . && node dist/scripts/record-applier.js [scenario ...]
 */
import { spawnSync } from "node:child_process";
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
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  NODE,
  type RunOutcome,
  readOutcome,
  replacePaths,
  writeScratchConf,
  compileArgs,
  stableCatalog,
} from "../test/puppet/harness.js";

const DIR = fileURLToPath(new URL("../../test/fixtures/catalog/puppet/", import.meta.url));
const puppet = process.env.PUPPET ?? "puppet";

function record(name: string, version: string): void {
  const dir = join(DIR, name);
  const specFile = join(dir, "scenario.json");
  const runs: { noop?: boolean }[] = existsSync(specFile)
    ? JSON.parse(readFileSync(specFile, "utf8")).runs
    : [{}];
  const scratch = mkdtempSync(join(tmpdir(), `tend-applier-${name}-`));
  try {
    const confdir = writeScratchConf(scratch);
    const manifests = join(scratch, "code/environments/production/manifests");
    mkdirSync(manifests, { recursive: true });
    writeFileSync(join(manifests, "site.pp"), readFileSync(join(dir, "manifest.pp"), "utf8"));
    const replacements = [
      [join(scratch, "code"), "@CODEDIR@"],
      [scratch, "@SCRATCH@"],
    ] as const;
    const common = ["--confdir", confdir, "--facts_terminus", "json"];
    const compile = spawnSync(puppet, compileArgs(confdir), { encoding: "utf8" });
    if (compile.status !== 0) throw new Error(`${name}: compile failed: ${compile.stderr}`);
    const catalog = stableCatalog(compile.stdout);
    writeFileSync(
      join(dir, "catalog.json"),
      `${JSON.stringify(replacePaths(catalog, replacements), null, 1)}\n`,
    );
    const outcomes: RunOutcome[] = [];
    const empty = join(scratch, "empty");
    mkdirSync(empty);
    for (const run of runs) {
      const report = join(scratch, "var/state/last_run_report.yaml");
      rmSync(report, { force: true });
      const args = ["apply", ...common, "--certname", NODE, "--detailed-exitcodes", "--color", "false"];
      if (run.noop) args.push("--noop");
      const applied = spawnSync(puppet, [...args, "-e", ""], {
        encoding: "utf8",
        env: { ...process.env, LANG: "C.UTF-8" },
      });
      outcomes.push(readOutcome(report, applied.status ?? -1, empty, replacements));
    }
    writeFileSync(
      join(dir, "expected.json"),
      `${JSON.stringify({ puppetVersion: version, runs: outcomes }, null, 1)}\n`,
    );
    console.log(`${name}: ${outcomes.map((o) => o.exitCode).join(", ")}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const only = process.argv.slice(2);
const version = spawnSync(puppet, ["--version"], { encoding: "utf8" }).stdout.trim();
for (const name of readdirSync(DIR).sort()) {
  if (!existsSync(join(DIR, name, "manifest.pp"))) continue;
  if (only.length === 0 || only.includes(name)) record(name, version);
}
