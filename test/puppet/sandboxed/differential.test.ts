/**
 * Puppet's package and service applied by tend, compared with what Puppet
 * 7.23 did in the same sandbox (scripts/record-puppet-sandboxed.ts): tend
 * runs `tend puppet apply --catalog` inside a fresh sandbox on the recorded
 * catalog; per run, each Package and Service's events (property, name,
 * status, values, message) and changed/failed flags in the report tend
 * writes, and the packages and services left, must be Puppet's.
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { DebSandbox, INSIDE, debSandboxUnavailable } from "../../providers/packages/deb-sandbox.js";
import {
  type Expected,
  NODE,
  ROOT,
  type ResourceOutcome,
  listScenarios,
  prepare,
  readReport,
  snapshotState,
  writePuppetConf,
} from "./harness.js";

const TEND = fileURLToPath(new URL("../../../../bin/tend.js", import.meta.url));
const unavailable = debSandboxUnavailable();

for (const scenario of listScenarios()) {
  test(`puppet sandboxed: ${scenario.name}`, (t) => {
    if (unavailable) {
      t.skip(unavailable);
      return;
    }
    const expected = JSON.parse(readFileSync(join(scenario.dir, "expected.json"), "utf8")) as Expected;
    const catalog = join(scenario.dir, "catalog.json");
    const sandbox = new DebSandbox(scenario.debs ?? []);
    try {
      prepare(scenario, sandbox);
      writePuppetConf(sandbox.path("puppet"), `${INSIDE}/puppet`);
      const text = readFileSync(catalog, "utf8").split("@ROOT@").join(ROOT);
      writeFileSync(sandbox.path("catalog.json"), text);
      const report = sandbox.path("puppet/var/state/last_run_report.yaml");
      scenario.runs.forEach((run, i) => {
        rmSync(report, { force: true });
        const args = [process.execPath, TEND, "puppet", "apply", "--catalog", sandbox.inside("catalog.json")];
        args.push("--confdir", `${INSIDE}/puppet/etc`, "--certname", NODE);
        if (run.noop) args.push("--noop");
        const applied = sandbox.run(args);
        assert.ok(
          applied.status !== null && applied.status < 8,
          `run ${i + 1}: tend failed: ${applied.stderr}`,
        );
        const resources = readReport(report);
        const want = expected.runs[i];
        assert.ok(want, `run ${i + 1} was not recorded`);
        assert.deepEqual(normalise(resources), normalise(want.resources), `run ${i + 1}: resources`);
        assert.deepEqual(snapshotState(scenario, sandbox), want.state, `run ${i + 1}: state`);
      });
    } finally {
      sandbox.remove();
    }
  });
}

/** Failure messages carry the tools' own output: only their start is compared. */
function normalise(resources: Record<string, ResourceOutcome>): Record<string, ResourceOutcome> {
  const out: Record<string, ResourceOutcome> = {};
  for (const [ref, outcome] of Object.entries(resources)) {
    const events = outcome.events.map((e) =>
      e.status === "failure" ? { ...e, message: e.message.replace(/(returned \d+).*$/s, "$1") } : e,
    );
    out[ref] = { ...outcome, events };
  }
  return out;
}
