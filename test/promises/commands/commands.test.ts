/**
 * `commands` promises against cf-agent 3.21: each policy in
 * `test/fixtures/commands/NN-name.cf` runs through `tend agent -K` and its
 * log lines and report lines must match `NN-name.expected`, what cf-agent
 * printed for the same policy (its work directory written `$WORKDIR`).
 * Commands in these policies only touch their temporary work directory.
 *
 * - `TEND_RECORD=1` (with cf-agent installed) records the expectations.
 * - Some fixtures run three times: also with `TEND_SPAWNER=perl` (the perl
 *   runner, as without Python) and `TEND_SPAWNER=node` (programs started
 *   from Node, as without either).
 * - A policy may start with `# args: -I -n` (more command-line arguments),
 *   `# needs: root perl` (skipped, saying why, without them) and
 *   `# setup: <sh command>` (run first, from the fixtures directory, with
 *   `$WORKDIR` set to the run's work directory).
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));
const fixtures = join(repoRoot, "test", "fixtures", "commands");
const tendBin = join(repoRoot, "bin", "tend.js");
const recording = process.env.TEND_RECORD === "1";

/** What a policy needs that this machine may lack (`# needs: root perl`), as a reason to skip. */
function missingNeeds(file: string): string | undefined {
  const header = /^# needs:(.*)$/m.exec(readFileSync(file, "utf8"));
  const needs = header ? header[1].trim().split(/\s+/) : [];
  if (needs.includes("root") && process.getuid?.() !== 0) return "needs root (exec_owner, chroot)";
  if (needs.includes("perl") && !existsSync("/usr/bin/perl"))
    return "needs /usr/bin/perl (tend's chroot helper)";
  return undefined;
}

/** Prepares the work directory as the policy's `# setup:` line says. */
function setUp(file: string, workdir: string): void {
  const header = /^# setup:(.*)$/m.exec(readFileSync(file, "utf8"));
  if (!header) return;
  const result = spawnSync("/bin/sh", ["-c", header[1]], {
    cwd: fixtures,
    env: { ...process.env, WORKDIR: workdir },
  });
  assert.equal(result.status, 0, `setup failed: ${result.stderr}`);
}

function argsOf(file: string): string[] {
  const header = /^# args:(.*)$/m.exec(readFileSync(file, "utf8"));
  return header ? header[1].trim().split(/\s+/).filter(Boolean) : [];
}

/**
 * Runs a policy through one engine in a fresh work directory; its lines,
 * the workdir written `$WORKDIR` and the fixtures directory `$DIR` (so the
 * expectations hold in any checkout).
 */
function run(engine: "tend" | "cf-agent", file: string, extraEnv: NodeJS.ProcessEnv = {}): string[] {
  const workdir = mkdtempSync(join(tmpdir(), `tend-commands-${engine}-`));
  for (const sub of ["bin", "inputs", "state"]) mkdirSync(join(workdir, sub));
  try {
    if (engine === "cf-agent") symlinkSync("/usr/bin/cf-promises", join(workdir, "bin", "cf-promises"));
    setUp(file, workdir);
    const args = ["-K", ...argsOf(file), "-f", file];
    const [command, argv] =
      engine === "tend" ? [process.execPath, [tendBin, "agent", ...args]] : ["cf-agent", args];
    const env = { ...process.env, ...extraEnv, CFENGINE_TEST_OVERRIDE_WORKDIR: workdir };
    const result = spawnSync(command, argv, { cwd: fixtures, env, encoding: "utf8", timeout: 60_000 });
    // Both print log and report lines on stdout.
    const text = result.stdout;
    const lines = text.replaceAll(workdir, "$WORKDIR").replaceAll(fixtures.replace(/\/$/, ""), "$DIR");
    return withoutCheckoutDepth([...lines.split("\n").filter(Boolean), `exit ${result.status}`]);
  } finally {
    rmSync(workdir, { recursive: true, force: true });
  }
}

/**
 * A program chrooted without chdir runs in a directory outside its root,
 * and `pwd` there names as many `..` as the checkout is deep: written `$UP`.
 */
function withoutCheckoutDepth(lines: readonly string[]): string[] {
  return lines.map((line) => line.replace(/'\.\.(?:\/\.\.)*'/g, "'$UP'"));
}

const reportsOf = (lines: readonly string[]) => lines.filter((l) => l.startsWith("R: "));
const logsOf = (lines: readonly string[]) => lines.filter((l) => !l.startsWith("R: "));

/**
 * Fixtures also run with programs started from Node rather than the perl
 * spawner (what tend does without /usr/bin/perl): output, shells, limits.
 */
const OTHER_SPAWNER_FIXTURES = new Set([
  "01-output.cf",
  "03-contain.cf",
  "08-owner-group.cf",
  "09-chroot-chdir.cf",
  "11-background.cf",
]);

for (const name of readdirSync(fixtures)
  .filter((f) => f.endsWith(".cf"))
  .sort()) {
  const file = join(fixtures, name);
  const expectedFile = file.replace(/\.cf$/, ".expected");
  const spawners: [string, NodeJS.ProcessEnv][] = [["", {}]];
  if (OTHER_SPAWNER_FIXTURES.has(name) && !recording) {
    spawners.push([" (perl runner)", { TEND_SPAWNER: "perl" }]);
    spawners.push([" (Node spawner)", { TEND_SPAWNER: "node" }]);
  }
  for (const [label, extraEnv] of spawners) {
    test(`commands${label}: ${name}`, { skip: missingNeeds(file) ?? false }, () => {
      if (recording) {
        writeFileSync(expectedFile, `${run("cf-agent", file).join("\n")}\n`);
        return;
      }
      assert.ok(existsSync(expectedFile), `no recording for ${name}; run with TEND_RECORD=1`);
      const expected = withoutCheckoutDepth(readFileSync(expectedFile, "utf8").split("\n").filter(Boolean));
      const actual = run("tend", file, extraEnv);
      assert.deepEqual(logsOf(actual), logsOf(expected), "log lines");
      assert.deepEqual(reportsOf(actual), reportsOf(expected), "report lines");
    });
  }
}
