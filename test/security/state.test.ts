/**
 * The agent's state decides what root's next run does, so nobody else
 * may write it: state files 600 in a 700 directory whatever the umask,
 * a state file another user could have written is not believed, a work
 * directory others may write is taken back, and temporary files are
 * never opened through something planted in their place.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { scratchDirectory } from "../scratch.js";
import { attackSkipReason, NOBODY, runTendAgent, writePolicy } from "./attack.js";

/** A policy that sets a persistent class and keeps a lock (no -K: locks are written). */
const PERSISTING = `bundle agent main {
classes: "kept_class" expression => "any", persistence => "60";
reports: "run"; pwned:: "PWNED";
}
`;

function mode(path: string): string {
  return (statSync(path).mode & 0o777).toString(8);
}

/** A case: its directory, the policy above, a work directory and its state directory (700, made). */
function stateCase(): { dir: string; policy: string; workdir: string; state: string } {
  const dir = scratchDirectory("tend-state-");
  const policy = writePolicy(join(dir, "p.cf"), PERSISTING);
  const workdir = join(dir, "wd");
  const state = join(workdir, "state");
  mkdirSync(state, { recursive: true, mode: 0o700 });
  return { dir, policy, workdir, state };
}

/** Writes a persistent-classes file defining `pwned` for an hour; returns its path. */
function forgeClasses(state: string): string {
  const forged = join(state, "persistent-classes.json");
  writeFileSync(forged, JSON.stringify({ pwned: { expires: Date.now() + 3_600_000, tags: [] } }), {
    mode: 0o600,
  });
  return forged;
}

/** tend agent (locks in force) under the given umask. */
function runWithUmask(policy: string, workdir: string, umask: string) {
  const run = spawnSync(
    "/bin/sh",
    ["-c", `umask ${umask}; exec "$0" bin/tend.js agent -f "$1"`, process.execPath, policy],
    {
      env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: workdir },
      encoding: "utf8",
    },
  );
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

test("state files are 600 in a 700 directory, even under umask 000", () => {
  const dir = scratchDirectory("tend-state-");
  const policy = writePolicy(join(dir, "p.cf"), PERSISTING);
  const workdir = join(dir, "wd");
  const run = runWithUmask(policy, workdir, "000");
  assert.equal(run.status, 0, run.output);
  const state = join(workdir, "state");
  assert.equal(mode(state), "700");
  for (const name of ["locks.json", "persistent-classes.json"])
    assert.equal(mode(join(state, name)), "600", name);
});

test("a persistent-classes file another user wrote is not believed", { skip: attackSkipReason() }, () => {
  const { policy, workdir, state } = stateCase();
  chownSync(forgeClasses(state), NOBODY, NOBODY);
  const run = runTendAgent(policy, workdir);
  assert.equal(run.status, 0, run.output);
  assert.doesNotMatch(run.output, /PWNED/);
  assert.match(
    run.output,
    /UNTRUSTED: State file '.*persistent-classes\.json' is owned by uid 65534; ignored/,
  );
});

test("a state file of root's that others may write is not believed either", () => {
  const { policy, workdir, state } = stateCase();
  chmodSync(forgeClasses(state), 0o666);
  const run = runTendAgent(policy, workdir);
  assert.doesNotMatch(run.output, /PWNED/);
  assert.match(
    run.output,
    /UNTRUSTED: State file '.*persistent-classes\.json' is writable by others \(mode 666\); ignored/,
  );
});

test("a persistent class of the agent's own survives to the next run", () => {
  const dir = scratchDirectory("tend-state-");
  const workdir = join(dir, "wd");
  writePolicy(
    join(dir, "set.cf"),
    'bundle agent main { classes: "mine" expression => "any", persistence => "60"; }\n',
  );
  assert.equal(runTendAgent(join(dir, "set.cf"), workdir).status, 0);
  const check = writePolicy(
    join(dir, "check.cf"),
    'bundle agent main {\nreports:\n  mine::\n    "still here";\n}\n',
  );
  assert.match(runTendAgent(check, workdir).output, /R: still here/);
});

test("a work directory others may write is taken back, its state distrusted for the run", () => {
  const { policy, workdir, state } = stateCase();
  chmodSync(workdir, 0o777);
  chmodSync(state, 0o777);
  forgeClasses(state);
  const run = runTendAgent(policy, workdir);
  assert.equal(run.status, 0, run.output);
  assert.match(
    run.output,
    /UNTRUSTED: State directory .*state \(mode 777\) was not private, world and\/or group writeable!/,
  );
  assert.doesNotMatch(run.output, /PWNED/);
  assert.equal(mode(workdir), "755");
  assert.equal(mode(state), "700");
});

test("links planted at the temporary names of state files are never written through", () => {
  const { dir, policy, workdir, state } = stateCase();
  const victim = join(dir, "victim");
  writeFileSync(victim, "root's secret\n", { mode: 0o600 });
  // The next pids the system will hand out, each with the first few temporary names.
  const last = Number(readFileSync("/proc/sys/kernel/ns_last_pid", "utf8"));
  for (let pid = last + 1; pid <= last + 300; pid++) {
    for (let n = 1; n <= 3; n++) symlinkSync(victim, join(state, `.tend-${pid}-${n}`));
    for (const name of ["locks.json", "persistent-classes.json"])
      symlinkSync(victim, join(state, `${name}.${pid}.tmp`));
  }
  const run = runTendAgent(policy, workdir, {});
  assert.equal(run.status, 0, run.output);
  assert.equal(readFileSync(victim, "utf8"), "root's secret\n");
  assert.equal(mode(victim), "600");
  assert.ok(existsSync(join(state, "persistent-classes.json")), run.output);
});

test("a temporary state file a killed run left is removed by the next run", () => {
  const { policy, workdir, state } = stateCase();
  // pid 2^22 + 1 is above any pid_max: a writer that cannot be alive.
  const stray = join(state, `.tend-${2 ** 22 + 1}-1`);
  writeFileSync(stray, "{}", { mode: 0o600 });
  utimesSync(stray, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
  assert.equal(runTendAgent(policy, workdir).status, 0);
  assert.deepEqual(
    readdirSync(state).filter((n) => n.includes(".tend-")),
    [],
  );
});
