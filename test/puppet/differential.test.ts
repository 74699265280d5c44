/**
 * `tend puppet apply --catalog` against Puppet 7.23's recordings: each
 * scenario of test/fixtures/puppet/ (see harness.ts) is applied run after
 * run in a fresh root, and the exit codes, per-resource statuses and
 * events, log lines and files left must be Puppet's. A scenario whose
 * catalog uses a type tend does not have yet is a todo naming it.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { main } from "../../src/cli/app.js";
import type { CliIo } from "../../src/cli/io.js";
import { puppetTypes } from "../../src/puppet/types/index.js";
import { scratchDirectory } from "../scratch.js";
import {
  type Expected,
  NODE,
  type RunOutcome,
  type Scenario,
  leafTypes,
  listScenarios,
  modulesOf,
  replacePaths,
  prepareRoot,
  readOutcome,
  writeScratchConf,
} from "./harness.js";

interface CatalogJson {
  resources: { type: string; title: string }[];
  edges: { source: string; target: string }[];
}

/** Why the scenario cannot run in tend yet, or undefined. */
async function missing(catalog: CatalogJson): Promise<string | undefined> {
  const absent = [...leafTypes(catalog)].filter((t) => !puppetTypes.has(t)).sort();
  if (absent.length > 0) return `tend has no Puppet type ${absent.join(", ")} yet`;
  return undefined;
}

function captureIo(cwd: string): { io: CliIo; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    env: { ...process.env, NO_COLOR: "1" },
    cwd,
  };
  return { io, out, err };
}

interface TendRun extends RunOutcome {
  /** What tend printed, shown when a comparison fails. */
  readonly console: string;
}

async function applyScenario(scenario: Scenario, catalogText: string): Promise<TendRun[]> {
  const scratch = scratchDirectory(`tend-puppet-${scenario.name}-`);
  const confdir = writeScratchConf(scratch);
  const root = join(scratch, "root");
  const codedir = join(scratch, "code");
  const modules = modulesOf(scenario);
  prepareRoot(scenario, root);
  const catalogFile = join(scratch, "catalog.json");
  const substituted = catalogText.split("@ROOT@").join(root).split("@CODEDIR@").join(codedir);
  writeFileSync(catalogFile, substituted);
  const replacements = [
    [root, "@ROOT@"],
    [codedir, "@CODEDIR@"],
    [scratch, "@SCRATCH@"],
  ] as const;
  const report = join(scratch, "var/state/last_run_report.yaml");
  const outcomes: TendRun[] = [];
  for (const run of scenario.runs) {
    rmSync(report, { force: true });
    const args = ["puppet", "apply", "--catalog", catalogFile, "--confdir", confdir, "--certname", NODE];
    args.push("--detailed-exitcodes", "--color", "never");
    if (modules) args.push("--modulepath", modules);
    if (run.noop) args.push("--noop");
    if (run.tags !== undefined) args.push("--tags", run.tags);
    const { io, out, err } = captureIo(scratch);
    const code = await main(args, io);
    const console = replacePaths([...out, ...err].join(""), replacements);
    outcomes.push({ ...readOutcome(report, code, root, replacements), console });
  }
  return outcomes;
}

const previousUmask = process.umask(0o022);
process.on("exit", () => process.umask(previousUmask));

for (const scenario of listScenarios()) {
  const catalogFile = join(scenario.dir, "catalog.json");
  const expectedFile = join(scenario.dir, "expected.json");
  test(`puppet scenario ${scenario.name}`, async (t) => {
    if (!existsSync(catalogFile) || !existsSync(expectedFile)) {
      t.todo("not recorded yet (npm run record:puppet)");
      return;
    }
    const catalogText = readFileSync(catalogFile, "utf8");
    const reason = await missing(JSON.parse(catalogText) as CatalogJson);
    if (reason) {
      t.todo(reason);
      return;
    }
    const expected = JSON.parse(readFileSync(expectedFile, "utf8")) as Expected;
    const actual = await applyScenario(scenario, catalogText);
    for (const [index, want] of expected.runs.entries()) {
      const got = actual[index];
      const label = `${scenario.name} run ${index + 1} (tend printed:\n${got.console})`;
      assert.equal(got.exitCode, want.exitCode, `${label}: exit code`);
      assert.deepEqual(got.resources, want.resources, `${label}: resource statuses and events`);
      assert.deepEqual(comparableTree(got), comparableTree(want), `${label}: files`);
      if (scenario.compareLogs !== false) assert.deepEqual(got.logs, want.logs, `${label}: log lines`);
    }
  });
}

/** The tree, without owners when tests do not run as root (Puppet's recordings do). */
function comparableTree(outcome: RunOutcome): unknown {
  if (process.getuid?.() === 0) return outcome.tree;
  return outcome.tree.map(({ uid: _uid, gid: _gid, ...rest }) => rest);
}
