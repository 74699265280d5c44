/**
 * Records what cf-agent 3.21 does with each packages
 * scenario of test/promises/packages/scenarios.ts (two runs each): the
 * tree left, the info/notice/warning/error lines and the reports. The
 * result goes to test/fixtures/packages/cf-agent.json, which
 * test/promises/packages/differential.test.ts compares tend with.
 *
 *   npx tsc -p . && node dist/scripts/record-packages.js [/path/to/cf-agent-wrapper] [scenario ...]
 *
 * The wrapper (default /tmp/cfa) runs cf-agent with the options given, in a
 * private work directory taken from $CFA_WD. Naming scenarios re-records
 * only those.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type ScenarioResult, runCfAgent, runScenario } from "../test/promises/packages/harness.js";
import { packagesScenarios } from "../test/promises/packages/scenarios.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const fixture = join(repoRoot, "test/fixtures/packages/cf-agent.json");
const [command = "/tmp/cfa", ...only] = process.argv.slice(2);

const previous: ScenarioResult[] = existsSync(fixture) ? JSON.parse(readFileSync(fixture, "utf8")) : [];
const byName = new Map(previous.map((r) => [r.name, r]));
for (const scenario of packagesScenarios) {
  if (only.length > 0 && !only.includes(scenario.name)) continue;
  byName.set(
    scenario.name,
    runScenario(scenario, (policy, root, dir) => runCfAgent(command, policy, root, dir)),
  );
}
const results = packagesScenarios.flatMap((s) => byName.get(s.name) ?? []);
writeFileSync(fixture, `${JSON.stringify(results, null, 1)}\n`);
console.log(`${results.length} scenarios in ${fixture}`);
