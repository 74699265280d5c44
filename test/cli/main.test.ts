import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { ANSI, fixtures, repoRoot, runTend } from "./run-tend.js";

const version = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string })
  .version;
const work = mkdtempSync(join(tmpdir(), "tend-cli-"));
after(() => rmSync(work, { recursive: true, force: true }));

test("--version and -V print the version", () => {
  for (const flag of ["--version", "-V"]) {
    const run = runTend([flag]);
    assert.equal(run.code, 0);
    assert.equal(run.stdout, `tend ${version}\n`);
  }
});

test("--help lists the commands on stdout", () => {
  const run = runTend(["--help"]);
  assert.equal(run.code, 0);
  assert.match(run.stdout, /Usage: tend/);
  assert.match(run.stdout, /check/);
  assert.match(run.stdout, /parse/);
});

test("no command or an unknown one is a usage error", () => {
  assert.equal(runTend([]).code, 1);
  const run = runTend(["frobnicate"]);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /unknown command 'frobnicate'/);
});

test("check accepts a valid policy silently", () => {
  const run = runTend(["check", "-f", "./valid.cf"]);
  assert.deepEqual(run, { code: 0, stdout: "", stderr: "" });
});

test("check takes the file as a positional argument too", () => {
  assert.equal(runTend(["check", "valid.cf"]).code, 0);
});

test("check rejects a syntax error with a located diagnostic and a caret", () => {
  const run = runTend(["check", "-f", "./syntax-error.cf"]);
  assert.equal(run.code, 1);
  assert.equal(run.stdout, "");
  assert.match(run.stderr, /^\.\/syntax-error\.cf:5:1: error: .+ \[[a-z-]+\]\n 5 \| }\n {3}\| \^\n/);
  assert.match(run.stderr, /1 error\n$/);
});

test("check fails on a missing file", () => {
  const run = runTend(["check", "-f", "./no-such-file.cf"]);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /no-such-file\.cf: error: .*\[input-not-found\]/);
});

test("check fails on an unknown option or a bad value", () => {
  assert.equal(runTend(["check", "--no-such-option"]).code, 1);
  const run = runTend(["check", "-p", "yaml", "./valid.cf"]);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /invalid value 'yaml' for --policy-output-format/);
});

test("check accepts cf-promises options that do not apply, and notes them with -v", () => {
  const args = ["-l", "-n", "-x", "-W", "all", "--eval-functions", "-C", "-D", "a,b", "-N", "c"];
  assert.equal(runTend(["check", ...args, "./valid.cf"]).code, 0);
  const run = runTend(["check", "-v", "-l", "./valid.cf"]);
  assert.equal(run.code, 0);
  // A log line: on stdout, as cf-promises writes its own.
  assert.match(run.stdout, /--timestamp has no effect/);
});

test("check -T DIR checks DIR/promises.cf and tags DIR as cf-promises does", () => {
  const dir = join(work, "tagged");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "promises.cf"), 'bundle agent main { reports: "x"; }\n');
  writeFileSync(join(dir, "notes.txt"), "0123456789");
  writeFileSync(join(dir, "ignored.md"), "not hashed");
  assert.equal(runTend(["check", "-T", dir]).code, 0);
  const validated = JSON.parse(readFileSync(join(dir, "cf_promises_validated"), "utf8"));
  assert.ok(Math.abs(validated.timestamp - Date.now() / 1000) < 60);
  // 3.21 hashes as many zero bytes as the policy files hold (36 + 10 here).
  assert.deepEqual(JSON.parse(readFileSync(join(dir, "cf_promises_release_id"), "utf8")), {
    releaseId: "e0fdc90c2ca2a0219c99d2758e68c18875a3e11e",
  });
  writeFileSync(join(dir, "promises.cf"), "bundle agent main {");
  assert.equal(runTend(["check", "-T", dir]).code, 1);
});

test("check --json prints the result as data on stdout", () => {
  const run = runTend(["check", "--json", "-f", "./syntax-error.cf"]);
  assert.equal(run.code, 1);
  const result = JSON.parse(run.stdout);
  assert.equal(result.valid, false);
  assert.deepEqual(result.files, ["./syntax-error.cf"]);
  assert.equal(result.errors, 1);
  const [d] = result.diagnostics;
  assert.deepEqual(Object.keys(d), ["code", "severity", "message", "file", "span", "start", "end"]);
  assert.equal(d.severity, "error");
  assert.deepEqual(d.start, { line: 5, column: 1 });
  const valid = JSON.parse(runTend(["check", "--json", "./valid.cf"]).stdout);
  assert.deepEqual(valid, { valid: true, files: ["./valid.cf"], errors: 0, warnings: 0, diagnostics: [] });
});

test("check looks for $(sys.inputdir)/promises.cf under the work directory by default", () => {
  const workdir = join(work, "wd");
  mkdirSync(join(workdir, "inputs"), { recursive: true });
  assert.equal(runTend(["check", "-w", workdir]).code, 1);
  writeFileSync(join(workdir, "inputs", "promises.cf"), readFileSync(join(fixtures, "valid.cf")));
  assert.equal(runTend(["check", "-w", workdir]).code, 0);
  assert.equal(runTend(["check"], { env: { CFENGINE_TEST_OVERRIDE_WORKDIR: workdir } }).code, 0);
  // A -f path not anchored with ./ is looked up in the input directory, as cf-promises does.
  assert.equal(runTend(["check", "-w", workdir, "-f", "promises.cf"], { cwd: work }).code, 0);
  const run = runTend(["check", "-w", workdir, "-f", "valid.cf"]);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /write \.\/valid\.cf/);
});

test("colour: only when asked or forced, and never with NO_COLOR", () => {
  const args = ["check", "./syntax-error.cf"];
  assert.doesNotMatch(runTend(args).stderr, ANSI, "no colour when stderr is not a terminal");
  assert.match(runTend(args, { env: { FORCE_COLOR: "1" } }).stderr, ANSI);
  assert.doesNotMatch(runTend(args, { env: { FORCE_COLOR: "1", NO_COLOR: "1" } }).stderr, ANSI);
  assert.match(runTend(["check", "--color=always", "./syntax-error.cf"]).stderr, ANSI);
  assert.doesNotMatch(
    runTend(["check", "--color=never", ...args.slice(1)], { env: { FORCE_COLOR: "1" } }).stderr,
    ANSI,
  );
});

test("check -p cf prints the policy back", () => {
  const run = runTend(["check", "-p", "cf", "./valid.cf"]);
  assert.equal(run.code, 0);
  assert.match(run.stdout, /bundle agent main/);
  assert.match(run.stdout, /"\$\(greeting\), world";/);
});

test("parse prints an outline, or the tree as JSON with --json", () => {
  const outline = runTend(["parse", "valid.cf"]);
  assert.equal(outline.code, 0);
  assert.match(outline.stdout, /^policy valid\.cf \[0,\d+\)\n {2}body common control/);
  assert.match(outline.stdout, /\n {8}promise "greeting" \[\d+,\d+\)\n {10}string => "hello"/);
  const json = runTend(["parse", "--json", "valid.cf"]);
  assert.equal(json.code, 0);
  const tree = JSON.parse(json.stdout);
  assert.equal(tree.kind, "policy");
  assert.deepEqual(
    tree.blocks.map((b: { kind: string; name: { text: string } }) => `${b.kind} ${b.name.text}`),
    ["body control", "bundle main"],
  );
  assert.equal(typeof tree.blocks[0].span[0], "number");
});

test("parse reports syntax errors and exits 1", () => {
  const run = runTend(["parse", "syntax-error.cf"]);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /syntax-error\.cf:5:1: error:/);
});
