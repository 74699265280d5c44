/**
 * Records what cf-agent 3.21 (Debian's, built with libvirt) does with each
 * guest_environments scenario of test/promises/guest-environments/
 * scenarios.ts into test/fixtures/guest-environments/cf-agent.json, which
 * test/promises/guest-environments/differential.test.ts compares tend with.
 *
 *   npx tsc -p . && node dist/scripts/record-guest-environments.js [/usr/bin/cf-agent]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runCfAgent } from "../test/promises/guest-environments/harness.js";
import { guestScenarios } from "../test/promises/guest-environments/scenarios.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const fixture = join(repoRoot, "test/fixtures/guest-environments/cf-agent.json");
const [cfAgent = "/usr/bin/cf-agent"] = process.argv.slice(2);
const results = guestScenarios.map((s) => runCfAgent(s, cfAgent));
mkdirSync(dirname(fixture), { recursive: true });
writeFileSync(fixture, `${JSON.stringify(results, null, 1)}\n`);
console.log(`${results.length} scenarios in ${fixture}`);
