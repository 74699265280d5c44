/**
 * storage promises, differentially: each scenario (scenarios.ts) runs
 * twice through cf-agent 3.21 and twice through tend's CLI, each agent in
 * a sandbox of its own (sandbox.ts: a private mount namespace, a tmpfs
 * arena, a copy of /etc, loop devices for ext4 volumes). Both must leave
 * the same mounts, fstab and mount points, print the same log lines and
 * reports and exit alike, except where a scenario pins a deliberate
 * difference. The machine's own mount table and fstab must not change.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  type RunView,
  TEND_CLI,
  hostMounts,
  loopUnavailable,
  runInSandbox,
  sandboxUnavailable,
} from "./sandbox.js";
import { type StorageScenario, scenarioPolicy, storageScenarios } from "./scenarios.js";

const hasCfAgent = spawnSync("cf-agent", ["-V"]).status === 0;
const noSandbox = sandboxUnavailable();
const skipAll = noSandbox ?? (hasCfAgent ? undefined : "cf-agent 3.21 is not installed");
const noLoop = skipAll ? undefined : loopUnavailable();

const mountsBefore = hostMounts();
const fstabBefore = readFileSync("/etc/fstab", "utf8");

function runBoth(scenario: StorageScenario): { cfAgent: RunView[]; tend: RunView[] } {
  const spec = {
    setup: scenario.setup,
    teardown: scenario.teardown,
    fstab: scenario.fstab,
    policy: scenarioPolicy(scenario),
    runs: 2,
  };
  const flags = ["-K", "-v", ...(scenario.flags ?? [])];
  return { cfAgent: runInSandbox("cf-agent", spec, flags), tend: runInSandbox("tend", spec, flags) };
}

for (const scenario of storageScenarios) {
  const skip = skipAll ?? (scenario.loop ? noLoop : undefined);
  test(`storage: ${scenario.name}`, { skip: skip ?? false }, () => {
    const { cfAgent, tend } = runBoth(scenario);
    cfAgent.forEach((reference, i) => {
      const pinned = scenario.differs?.cfAgent?.[i];
      for (const [key, value] of Object.entries(pinned ?? {}))
        assert.deepEqual(
          reference[key as keyof RunView],
          value,
          `cf-agent 3.21's ${key} in run ${i + 1} (pinned)`,
        );
      const expected = { ...reference, ...(scenario.differs?.tend[i] ?? {}) };
      assert.deepEqual(
        tend[i],
        expected,
        `run ${i + 1}${scenario.differs ? ` (${scenario.differs.why})` : ""}`,
      );
    });
  });
}

/** core/examples of 3.21 with storage promises (test/fixtures/storage), run once under each agent. */
const EXAMPLES = ["mount_fs.cf", "storage.cf"];
const FIXTURES = new URL("../../../../test/fixtures/storage/", import.meta.url);

/** Free space on the host's own disks may move between the two runs: its numbers are masked. */
function maskSpace(view: RunView): RunView {
  return { ...view, log: view.log.map((line) => (/free/.test(line) ? line.replace(/\d+/g, "N") : line)) };
}

for (const example of EXAMPLES) {
  test(`storage: core example ${example}`, { skip: skipAll ?? false }, () => {
    const spec = { policy: readFileSync(new URL(example, FIXTURES), "utf8"), runs: 1 };
    const [reference] = runInSandbox("cf-agent", spec, ["-K", "-v"]).map(maskSpace);
    const [tend] = runInSandbox("tend", spec, ["-K", "-v"]).map(maskSpace);
    assert.ok(reference && reference.log.length > 0, "cf-agent logged the storage promises");
    assert.deepEqual(tend, reference);
  });
}

const BAD_VALUES = `bundle agent main {
storage:
  "/mnt/tend-never" mount => m, volume => v;
}
body mount m {
  mount_type => "ext4";
  mount_source => "relative";
  edit_fstab => "maybe";
}
body volume v {
  freespace => "10x";
  sensible_count => "-1";
  sensible_size => "abc";
}
`;

test("storage: tend check refuses bad attribute values as cf-promises does", {
  skip: hasCfAgent ? false : "cf-promises 3.21 is not installed",
}, () => {
  const dir = mkdtempSync(join(tmpdir(), "tend-storage-check-"));
  try {
    const policy = join(dir, "bad.cf");
    writeFileSync(policy, BAD_VALUES);
    const reference = spawnSync("cf-promises", ["-f", policy], { encoding: "utf8" });
    const tend = spawnSync(process.execPath, [TEND_CLI, "check", "-f", policy], { encoding: "utf8" });
    assert.notEqual(reference.status, 0);
    assert.equal(tend.status, reference.status);
    const where = [...tend.stderr.matchAll(/bad\.cf:(\d+):\d+: error/g)].map((m) => Number(m[1]));
    assert.deepEqual(where, [6, 7, 8, 11, 12, 13], tend.stderr);
    writeFileSync(
      policy,
      BAD_VALUES.replace(/body mount m \{[^}]*\}/, 'body mount m { mount_type => "nfs"; }').replace(
        /body volume v \{[^}]*\}/,
        'body volume v { freespace => "10%"; }',
      ),
    );
    assert.equal(spawnSync("cf-promises", ["-f", policy]).status, 0);
    assert.equal(spawnSync(process.execPath, [TEND_CLI, "check", "-f", policy]).status, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("storage: the machine's own mounts and fstab are unchanged", { skip: skipAll ?? false }, () => {
  assert.equal(hostMounts(), mountsBefore);
  assert.equal(readFileSync("/etc/fstab", "utf8"), fstabBefore);
});
