/**
 * tend beside Puppet 7.23 on the user, group, cron and host scenarios
 * (scenarios.ts), each in its own sandbox: the recorded catalog applied
 * by `tend puppet apply --catalog` run after run must give Puppet's exit code, per-resource statuses and
 * events, and leave the same account lines, hosts file, crontabs and
 * homes. Recorded with record.ts; skipped without root or the tools.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { readOutcome } from "../harness.js";
import { accountsUnavailable, catalogFile, readExpected, readState, scenarioSandbox } from "./harness.js";
import { SCENARIOS } from "./scenarios.js";

const TEND = fileURLToPath(new URL("../../../bundle/tend.cjs", import.meta.url));
const unavailable = accountsUnavailable();

for (const scenario of SCENARIOS) {
  test(`puppet accounts: ${scenario.name}`, async (t) => {
    if (unavailable) return t.skip(unavailable);
    if (!existsSync(catalogFile(scenario.name))) return t.skip("not recorded (run record.ts)");
    const expected = readExpected(scenario.name);
    const sandbox = scenarioSandbox(scenario);
    const vardir = mkdtempSync(join(tmpdir(), "tend-pacc-var-"));
    try {
      const catalog = sandbox.reachable(catalogFile(scenario.name), dirname(catalogFile(scenario.name)));
      const tend = sandbox.reachable(TEND, dirname(TEND));
      const inVardir = sandbox.reachable(vardir, vardir);
      scenario.runs.forEach((run, i) => {
        const argv = [process.execPath, tend, "puppet", "apply", "--catalog", catalog, "--vardir", inVardir];
        const done = sandbox.run([...argv, "--detailed-exitcodes", ...(run.noop ? ["--noop"] : [])]);
        const report = join(vardir, "state", "last_run_report.yaml");
        const outcome = readOutcome(report, done.status ?? -1, join(vardir, "none"), []);
        const resources = Object.fromEntries(
          Object.entries(outcome.resources).map(([ref, r]) => [
            ref,
            { changed: r.changed, failed: r.failed, skipped: r.skipped, events: r.events },
          ]),
        );
        const want = expected.runs[i];
        assert.ok(want, `run ${i + 1} was recorded`);
        assert.deepEqual(resources, want.resources, `run ${i + 1}: resources (${done.stderr})`);
        assert.equal(outcome.exitCode, want.exitCode, `run ${i + 1}: exit code`);
        assert.deepEqual(readState(sandbox), want.state, `run ${i + 1}: state`);
      });
    } finally {
      sandbox.remove();
      rmSync(vardir, { recursive: true, force: true });
    }
  });
}
