/**
 * Records what cf-agent 3.21 does with each services scenario of
 * test/promises/services/scenarios.ts (two runs each): the fake service's
 * state left, the info/notice/warning/error lines and the reports. The
 * result goes to test/fixtures/services/cf-agent.json, which
 * test/promises/services/differential.test.ts compares tend with.
 *
 *   npx tsc -p . && node dist/scripts/record-services.js [/usr/bin/cf-agent] [scenario ...]
 *
 * cf-agent runs as root in a private mount namespace with its own work
 * directory; naming scenarios re-records only those.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type ScenarioResult, runScenario } from "../test/promises/services/harness.js";
import { servicesScenarios } from "../test/promises/services/scenarios.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const fixture = join(repoRoot, "test/fixtures/services/cf-agent.json");
const [cfAgent = "/usr/bin/cf-agent", ...only] = process.argv.slice(2);

const previous: ScenarioResult[] = existsSync(fixture) ? JSON.parse(readFileSync(fixture, "utf8")) : [];
const byName = new Map(previous.map((r) => [r.name, r]));
for (const scenario of servicesScenarios) {
  if (only.length > 0 && !only.includes(scenario.name)) continue;
  byName.set(scenario.name, runScenario(scenario, { cfAgent }));
}
const results = servicesScenarios.flatMap((s) => byName.get(s.name) ?? []);
mkdirSync(dirname(fixture), { recursive: true });
writeFileSync(fixture, `${JSON.stringify(results, null, 1)}\n`);
console.log(`${results.length} scenarios in ${fixture}`);
