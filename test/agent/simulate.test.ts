/**
 * `tend agent --simulate=MODE` against cf-agent 3.21: for
 * `test/fixtures/simulate/changes.cf` (run with a prepared
 * `$(sys.workdir)/tmp`), the output must match `changes.NAME.expected`,
 * recorded from cf-agent with `TEND_RECORD=1`; and the real files must be
 * as they were, with no chroot left behind.
 *
 * Output is normalised as the acceptance suite does it: the work directory
 * becomes `WORKDIR`, the chroot's pid `PID`, times `TIMESTAMP` and sizes
 * `SIZE`.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const fixtures = join(repoRoot, "test", "fixtures", "simulate");
const tendBin = join(repoRoot, "bin", "tend.js");
const recording = process.env.TEND_RECORD === "1" && spawnSync("cf-agent", ["--version"]).status === 0;

function prepare(withDiff: boolean): string {
  const workdir = mkdtempSync(join(tmpdir(), "tend-simulate-"));
  for (const sub of ["bin", "inputs", "state", "tmp"]) mkdirSync(join(workdir, sub), { recursive: true });
  if (existsSync("/usr/bin/cf-promises"))
    symlinkSync("/usr/bin/cf-promises", join(workdir, "bin", "cf-promises"));
  // The diff mode runs the work directory's own `diff`, as cf-agent does.
  if (withDiff) symlinkSync("/usr/bin/diff", join(workdir, "bin", "diff"));
  const tmp = join(workdir, "tmp");
  for (const name of ["kept", "edited", "gone", "mode", "old-name"]) writeFileSync(join(tmp, name), "");
  writeFileSync(join(tmp, "edited"), "first line\n");
  for (const name of ["kept", "edited", "gone", "mode", "old-name"]) chmodSync(join(tmp, name), 0o600);
  mkdirSync(join(tmp, "tree"), { mode: 0o700 });
  writeFileSync(join(tmp, "tree", "leaf"), "x", { mode: 0o600 });
  return workdir;
}

/** Every path under `dir` with its type, mode and content: what must not change. */
function snapshot(dir: string): string {
  const lines: string[] = [];
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const path = join(dir, name);
    const stats = lstatSync(path);
    const content = stats.isFile() ? readFileSync(path, "utf8") : "";
    lines.push(`${name} ${stats.mode.toString(8)} ${JSON.stringify(content)}`);
  }
  return lines.sort().join("\n");
}

function normalise(text: string, workdir: string): string {
  return text
    .replaceAll(workdir, "WORKDIR")
    .replace(/[0-9]*\.changes/g, "PID.changes")
    .replace(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [-+]\d{4}/g, "TIMESTAMP")
    .replace(/Size: \d+/g, "Size: SIZE");
}

const CASES = [
  { mode: "manifest", name: "manifest", withDiff: true },
  { mode: "manifest-full", name: "manifest-full", withDiff: true },
  { mode: "diff", name: "diff", withDiff: true },
  // Without a `diff` in the work directory, each comparison is an error.
  { mode: "diff", name: "diff-no-tool", withDiff: false },
];

for (const { mode, name, withDiff } of CASES) {
  test(`--simulate=${mode} shows the changes as cf-agent does and changes no real file (${name})`, () => {
    const workdir = prepare(withDiff);
    try {
      const before = snapshot(join(workdir, "tmp"));
      const args = ["-Kf", "./changes.cf", `--simulate=${mode}`];
      // cf-agent always with its work directory overridden (the wrapper, where there is one).
      const cfAgent = existsSync("/tmp/cfa") ? "/tmp/cfa" : "cf-agent";
      const command = recording ? [cfAgent, ...args] : [process.execPath, tendBin, "agent", ...args];
      // Report and log lines on stdout, where cf-agent writes them.
      const run = spawnSync(command[0], command.slice(1), {
        cwd: fixtures,
        env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: workdir, CFA_WD: workdir, COLUMNS: "" },
        encoding: "utf8",
      });
      assert.equal(run.stderr, "");
      const output = normalise(run.stdout, workdir);
      const expectedPath = join(fixtures, `changes.${name}.expected`);
      if (recording) writeFileSync(expectedPath, output);
      else assert.equal(output, readFileSync(expectedPath, "utf8"));
      assert.equal(snapshot(join(workdir, "tmp")), before);
      assert.deepEqual(
        readdirSync(join(workdir, "state")).filter((n) => n.endsWith(".changes")),
        [],
      );
    } finally {
      rmSync(workdir, { recursive: true, force: true });
    }
  });
}

test("--simulate with an unknown mode is refused", () => {
  const run = spawnSync(process.execPath, [tendBin, "agent", "-Kf", "./changes.cf", "--simulate=yes"], {
    cwd: fixtures,
    encoding: "utf8",
  });
  assert.equal(run.status, 1);
  assert.match(run.stderr, /Invalid argument for --simulate, 'manifest' or 'diff' required, not 'yes'/);
});

test("--simulate calls unsafe functions only for promises tagged simulate_safe, as cf-agent", () => {
  const workdir = prepare(true);
  try {
    const cfAgent = existsSync("/tmp/cfa") ? "/tmp/cfa" : "cf-agent";
    const args = ["-Kf", "./unsafe.cf", "--simulate=manifest"];
    const command = recording ? [cfAgent, ...args] : [process.execPath, tendBin, "agent", ...args];
    const run = spawnSync(command[0], command.slice(1), {
      cwd: fixtures,
      env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: workdir, CFA_WD: workdir, COLUMNS: "" },
      encoding: "utf8",
    });
    assert.equal(run.stderr, "");
    const output = normalise(run.stdout, workdir);
    const expectedPath = join(fixtures, "unsafe.expected");
    // 3.21 tries the calls more often than tend (each of its evaluations of
    // the promise): the lines are compared, not how often they come.
    const distinct = (text: string) => [...new Set(text.split("\n"))];
    if (recording) writeFileSync(expectedPath, output);
    else assert.deepEqual(distinct(output), distinct(readFileSync(expectedPath, "utf8")));
    // cf-agent first has cf-promises check the policy, and that evaluates
    // the untagged execresult() (not in simulate mode); tend repeats that
    // evaluation only outside dry runs and calls nothing unsafe. So this
    // holds for tend only.
    if (recording) return;
    const tmp = join(workdir, "tmp");
    assert.equal(existsSync(join(tmp, "safe")), true);
    assert.equal(existsSync(join(tmp, "unsafe")), false);
    assert.equal(existsSync(join(tmp, "unsafe-class")), false);
  } finally {
    rmSync(workdir, { recursive: true, force: true });
  }
});
