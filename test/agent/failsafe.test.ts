/**
 * The failsafe fallback: without a terminal, a missing or invalid policy
 * makes `tend agent` run `$(sys.inputdir)/failsafe.cf` (written from tend's
 * built-in one when missing), as cf-agent does; as a library call, or with a
 * terminal, the run stops with exit 1.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { BUILTIN_FAILSAFE_POLICY } from "../../src/agent/failsafe.js";
import { runAgent } from "../../src/agent/run.js";
import { runTend } from "../cli/run-tend.js";
import { scratchDirectory } from "../scratch.js";

function workspace(): { dir: string; workdir: string; broken: string } {
  const dir = scratchDirectory("tend-failsafe-");
  const broken = join(dir, "broken.cf");
  writeFileSync(broken, 'bundle agent main {\n  nosuch_type:\n    "x" => "y";\n}\n');
  return { dir, workdir: join(dir, "wd"), broken };
}

/** The report lines of a run's standard output (log lines share it, as in cf-agent's). */
function reports(stdout: string): string[] {
  return stdout.split("\n").filter((line) => line.startsWith("R: "));
}

test("an invalid policy runs the built-in failsafe, written to the empty input directory", () => {
  const { workdir, broken } = workspace();
  const run = runTend(["agent", "-K", "-f", broken], { env: { CFENGINE_TEST_OVERRIDE_WORKDIR: workdir } });
  // Without a key pair the failsafe aborts, as cf-agent's does (exit code 6).
  assert.equal(run.code, 6, run.stdout);
  // In tend's words: what happened and what to do.
  assert.deepEqual(reports(run.stdout), [
    "R: tend ran its failsafe policy because the policy could not be loaded (see the errors above); nothing was changed. Run 'tend check' on the policy, fix what it reports, and run 'tend agent' again.",
    `R: Stopping the failsafe run: no key pair in ${workdir}/ppkeys (exit code 6, as cf-agent's failsafe).`,
  ]);
  // Log lines on stdout, as cf-agent writes them; the policy's errors on stderr.
  assert.match(run.stdout, /notice: cf-agent aborted on defined class 'no_ppkeys_ABORT_kept'/);
  assert.match(run.stdout, /error: CFEngine was not able to get confirmation of promises/);
  assert.match(run.stdout, /error: CFEngine failsafe\.cf: .*\/inputs .*\/inputs\/failsafe\.cf/);
  assert.match(run.stderr, /broken\.cf:3:9: error: /);
  const failsafe = join(workdir, "inputs", "failsafe.cf");
  assert.equal(readFileSync(failsafe, "utf8"), BUILTIN_FAILSAFE_POLICY);
  assert.equal(statSync(failsafe).mode & 0o777, 0o600);
});

test("a policy cf-promises would not parse says so before the failsafe runs, as cf-agent shows", () => {
  const { dir, workdir } = workspace();
  const syntax = join(dir, "syntax.cf");
  writeFileSync(syntax, 'body file control { namespace => "{}()$:[]"; }\nbundle agent main { }\n');
  const run = runTend(["agent", "-K", "-f", syntax], { env: { CFENGINE_TEST_OVERRIDE_WORKDIR: workdir } });
  assert.match(run.stdout, /error: There are syntax errors in policy files\n.*error: CFEngine was not able/);
  // A promise type nobody defined is found after parsing: no such line.
  const undefinedType = join(dir, "undefined-type.cf");
  writeFileSync(undefinedType, 'bundle agent main { nosuch_type: "x"; }\n');
  const other = runTend(["agent", "-K", "-f", undefinedType], {
    env: { CFENGINE_TEST_OVERRIDE_WORKDIR: workdir },
  });
  assert.doesNotMatch(other.stdout + other.stderr, /syntax errors/);
});

test("with a key pair the built-in failsafe only reports", () => {
  const { workdir, broken } = workspace();
  mkdirSync(join(workdir, "ppkeys"), { recursive: true });
  writeFileSync(join(workdir, "ppkeys", "localhost.pub"), "");
  const run = runTend(["agent", "-K", "-f", broken], { env: { CFENGINE_TEST_OVERRIDE_WORKDIR: workdir } });
  assert.equal(run.code, 0, run.stdout);
  assert.equal(reports(run.stdout).length, 1);
});

test("a missing policy also falls back; a failsafe.cf already there is kept and run", () => {
  const { dir, workdir } = workspace();
  mkdirSync(join(workdir, "inputs"), { recursive: true });
  const own = 'bundle agent main { reports: "own failsafe"; failsafe_fallback:: "fallback class"; }\n';
  writeFileSync(join(workdir, "inputs", "failsafe.cf"), own);
  const run = runTend(["agent", "-K", "-f", join(dir, "missing.cf")], {
    env: { CFENGINE_TEST_OVERRIDE_WORKDIR: workdir },
  });
  assert.equal(run.code, 0, run.stdout);
  assert.deepEqual(reports(run.stdout), ["R: own failsafe", "R: fallback class"]);
  assert.equal(readFileSync(join(workdir, "inputs", "failsafe.cf"), "utf8"), own);
});

test("an invalid failsafe.cf ends the run with exit 1", () => {
  const { workdir, broken } = workspace();
  mkdirSync(join(workdir, "inputs"), { recursive: true });
  writeFileSync(join(workdir, "inputs", "failsafe.cf"), "bundle agent main {");
  const run = runTend(["agent", "-K", "-f", broken], { env: { CFENGINE_TEST_OVERRIDE_WORKDIR: workdir } });
  assert.equal(run.code, 1);
  assert.match(run.stdout, /error: Error reading CFEngine policy\. Exiting\.\.\./);
});

test("as a library call without failsafe, an invalid policy stops the run", () => {
  const { workdir, broken } = workspace();
  const lines: string[] = [];
  const seen: number[] = [];
  const result = runAgent(
    { file: broken, workdir, ignoreLocks: true },
    {
      log: (record) => lines.push(`${record.level}: ${record.message}`),
      report: (text) => lines.push(`R: ${text}`),
      invalidPolicy: (diagnostics) => seen.push(diagnostics.length),
    },
  );
  assert.equal(result.exitCode, 1);
  assert.ok(seen[0] > 0);
  assert.deepEqual(lines, [
    "error: There are syntax errors in policy files",
    "error: Failsafe condition triggered. Interactive session detected, skipping failsafe.cf execution.",
    "error: Error reading CFEngine policy. Exiting...",
  ]);
});
