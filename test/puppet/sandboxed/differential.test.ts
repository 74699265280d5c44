/**
 * Puppet's package and service applied by tend, compared with what Puppet
 * 7.23 did in the same sandbox (scripts/record-puppet-sandboxed.ts): per
 * run, each resource's events (property, name, status, values, message),
 * its changed/failed flags, and the packages and services left.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { DebSandbox, debSandboxUnavailable } from "../../providers/packages/deb-sandbox.js";
import { type Expected, type ResourceOutcome, listScenarios, prepare, snapshotState } from "./harness.js";

const DRIVER = fileURLToPath(new URL("./driver.js", import.meta.url));
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
      scenario.runs.forEach((run, i) => {
        const args = ["node", DRIVER, catalog, ...(run.noop ? ["--noop"] : [])];
        const applied = sandbox.run(args);
        assert.equal(applied.status, 0, `run ${i + 1}: driver failed: ${applied.stderr}`);
        const resources = JSON.parse(applied.stdout) as Record<string, ResourceOutcome>;
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
