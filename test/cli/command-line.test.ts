/**
 * The command line as a new user meets it: both drop-in commands choose the
 * work directory by one rule, refuse what they do not understand in tend's
 * words, parse `--color`/`-C` alike, and stop at once on a work directory
 * that cannot be made.
 */
import assert from "node:assert/strict";
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeDirectoriesSync } from "../../src/system/make-directories.js";
import { scratchDirectory } from "../scratch.js";
import { runTend } from "./run-tend.js";

/** A work directory whose inputs/promises.cf reports `text` (or is broken). */
function workdirWith(text: string | null): string {
  const dir = scratchDirectory("tend-cmdline-");
  mkdirSync(join(dir, "inputs"));
  const policy = text === null ? "bundle agent main {" : `bundle agent main { reports: "${text}"; }\n`;
  writeFileSync(join(dir, "inputs", "promises.cf"), policy, { mode: 0o600 });
  return dir;
}

test("agent and check take the work directory by one rule: -w, then CFENGINE_TEST_OVERRIDE_WORKDIR", () => {
  const chosen = workdirWith("from -w");
  const other = workdirWith(null);
  const env = { CFENGINE_TEST_OVERRIDE_WORKDIR: other };
  assert.equal(runTend(["check", "-w", chosen], { env }).code, 0);
  const agent = runTend(["agent", "-K", "-w", chosen], { env });
  assert.equal(agent.code, 0, agent.stdout + agent.stderr);
  assert.match(agent.stdout, /^R: from -w$/m);
  // Without -w both read the override's broken policy.
  assert.equal(runTend(["check"], { env }).code, 1);
  assert.notEqual(runTend(["agent", "-K"], { env }).code, 0);
});

test("a second policy file is refused in tend's words", () => {
  for (const command of ["agent", "check"]) {
    const run = runTend([command, "a.cf", "b.cf"]);
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      `tend ${command}: one policy file expected, got 2: a.cf b.cf\nTry 'tend ${command} --help'.\n`,
    );
  }
});

test("an unknown option, a missing value or a value for a flag is refused in tend's words", () => {
  for (const command of ["agent", "check", "parse"]) {
    const run = runTend([command, "--no-such-option", "x.cf"]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, new RegExp(`^tend ${command}: unknown option '--no-such-option'\\n`));
    assert.doesNotMatch(run.stderr, /positional argument|To specify/);
  }
  assert.match(runTend(["agent", "-f"]).stderr, /^tend agent: option '-f' needs a value\n/);
  assert.match(
    runTend(["check", "--json=yes", "x.cf"]).stderr,
    /^tend check: option '--json' takes no value\n/,
  );
});

test("--color and -C take an attached value in both commands; a file after them stays the file", () => {
  const dir = workdirWith("colour");
  const policy = join(dir, "inputs", "promises.cf");
  const env = { CFENGINE_TEST_OVERRIDE_WORKDIR: dir };
  for (const flag of ["-C", "--color", "-Cnever", "--color=always"]) {
    assert.equal(runTend(["check", flag, policy], { env }).code, 0, `check ${flag}`);
    const agent = runTend(["agent", "-K", flag, policy], { env });
    assert.match(agent.stdout, /^R: colour$/m, `agent ${flag}`);
  }
  for (const command of ["agent", "check"]) {
    const run = runTend([command, "--color=sometimes", policy], { env });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /Unrecognized color mode 'sometimes'/);
  }
});

test("a work directory that cannot be created stops the agent at once, saying so", () => {
  const policy = join(workdirWith("never"), "inputs", "promises.cf");
  // /proc refuses new entries with ENOENT, where Node's recursive mkdir loops forever.
  const run = runTend(["agent", "-K", "-w", "/proc/tend-no-such-dir/wd", "-f", policy]);
  assert.equal(run.code, 1);
  assert.equal(
    run.stderr,
    "tend agent: cannot create the work directory /proc/tend-no-such-dir/wd (mkdir: No such file or directory); choose another with -w DIR\n",
  );
  assert.equal(run.stdout, "");
});

test("makeDirectoriesSync makes the missing parents, and fails at once where they cannot be made", () => {
  const dir = scratchDirectory("tend-mkdirs-");
  makeDirectoriesSync(join(dir, "a", "b", "c"), 0o700);
  assert.ok(statSync(join(dir, "a", "b", "c")).isDirectory());
  makeDirectoriesSync(join(dir, "a", "b", "c"));
  writeFileSync(join(dir, "file"), "");
  assert.throws(() => makeDirectoriesSync(join(dir, "file", "x")), { code: "ENOTDIR" });
  assert.throws(() => makeDirectoriesSync("/proc/tend-no-such-dir/x"), { code: "ENOENT" });
});
