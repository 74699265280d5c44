/**
 * tend beside Puppet 7.23 on the user, group, cron and host scenarios
 * (scenarios.ts), each in its own sandbox: the recorded catalog applied
 * run after run must give Puppet's exit code, per-resource statuses and
 * events, and leave the same account lines, hosts file, crontabs and
 * homes. Recorded with record.ts; skipped without root or the tools.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { accountsUnavailable, catalogFile, readExpected, readState, scenarioSandbox } from "./harness.js";
import { SCENARIOS } from "./scenarios.js";

const REPLAY = join(dirname(fileURLToPath(import.meta.url)), "replay.js");
const unavailable = accountsUnavailable();

for (const scenario of SCENARIOS) {
  test(`puppet accounts: ${scenario.name}`, async (t) => {
    if (unavailable) return t.skip(unavailable);
    if (!existsSync(catalogFile(scenario.name))) return t.skip("not recorded (run record.ts)");
    const expected = readExpected(scenario.name);
    const sandbox = scenarioSandbox(scenario);
    try {
      const catalog = sandbox.reachable(catalogFile(scenario.name), dirname(catalogFile(scenario.name)));
      const replay = sandbox.reachable(REPLAY, dirname(REPLAY));
      scenario.runs.forEach((run, i) => {
        const argv = [process.execPath, replay, catalog, ...(run.noop ? ["--noop"] : [])];
        const done = sandbox.run(argv);
        assert.equal(done.status, 0, `run ${i + 1}: ${done.stderr}`);
        const outcome = JSON.parse(done.stdout) as { exitCode: number; resources: unknown };
        const want = expected.runs[i];
        assert.ok(want, `run ${i + 1} was recorded`);
        assert.deepEqual(outcome.resources, want.resources, `run ${i + 1}: resources`);
        assert.equal(outcome.exitCode, want.exitCode, `run ${i + 1}: exit code`);
        assert.deepEqual(readState(sandbox), want.state, `run ${i + 1}: state`);
      });
    } finally {
      sandbox.remove();
    }
  });
}
