/**
 * `tend check --show-vars` / `--show-classes`: the tables cf-promises 3.21
 * prints, compared byte for byte with outputs recorded from cf-promises
 * (test/fixtures/cli/show/*.expected) and, where cf-promises is installed,
 * with its live output for the host's own classes and `sys` variables.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fixtures, runTend } from "./run-tend.js";

const showDir = join(fixtures, "show");
const workdir = mkdtempSync(join(tmpdir(), "tend-show-"));
after(() => rmSync(workdir, { recursive: true, force: true }));
const env = { CFENGINE_TEST_OVERRIDE_WORKDIR: workdir };

const cases: readonly [file: string, option: string, expected: string][] = [
  ["vars.cf", "--show-vars=default:(c|main)\\.", "vars.show-vars.expected"],
  ["vars.cf", "--show-classes=^(cls|not_me|agent_class)", "vars.show-classes.expected"],
  ["aug/p.cf", "--show-vars=(def|other|main)\\.(from|list|obj|x|v1)|ns1:", "aug.show-vars.expected"],
  ["aug/p.cf", "--show-classes=aug_", "aug.show-classes.expected"],
  ["augreal/p.cf", "--show-vars=def\\.(real|half|big|list|obj)", "augreal.show-vars.expected"],
];

for (const [file, option, expected] of cases) {
  test(`${file} ${option} prints what cf-promises printed`, () => {
    const run = runTend(["check", "-f", `./${file}`, option], { cwd: showDir, env });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, readFileSync(join(showDir, expected), "utf8"));
  });
}

test("tend agent --show-evaluated-classes/-vars print the tables after the run; a bootstrapped hub", () => {
  const hub = mkdtempSync(join(tmpdir(), "tend-show-hub-"));
  try {
    mkdirSync(join(hub, "state"));
    writeFileSync(join(hub, "policy_server.dat"), "192.0.2.7:5309\n");
    writeFileSync(join(hub, "state", "am_policy_hub"), "");
    const run = runTend(
      [
        "agent",
        "-Kf",
        "./evaluated.cf",
        "--show-evaluated-classes=^(run_class|am_policy_hub|policy_server)$",
        "--show-evaluated-vars=^default:(main\\.v|sys\\.policy_hub)",
      ],
      { cwd: showDir, env: { CFENGINE_TEST_OVERRIDE_WORKDIR: hub } },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, readFileSync(join(showDir, "evaluated.expected"), "utf8"));
  } finally {
    rmSync(hub, { recursive: true, force: true });
  }
});

test("a regex that does not compile prints no table", () => {
  const run = runTend(["check", "-f", "./vars.cf", "--show-vars=("], { cwd: showDir, env });
  // Only the error, a log line on stdout as cf-promises writes it.
  assert.equal(run.stdout, "   error: Sorry, we could not compile regular expression (\n");
});

const cfPromisesMissing = spawnSync("cf-promises", ["-V"], { stdio: "ignore" }).status !== 0;
const skip = cfPromisesMissing ? "cf-promises is not installed" : false;

/** Lines whose value or name changes from one second (or run) to the next. */
const VOLATILE =
  /^(default:sys\.(date|cdate|systime|sysday|uptime|inet|inet6|interfaces_data|key_digest) |(GMT_)?(Min|Hr|Q)\d|(GMT_)?Hr\d)/;

function stable(text: string): string {
  return text
    .split("\n")
    .filter((line) => !VOLATILE.test(line))
    .join("\n");
}

for (const option of ["--show-classes", "--show-vars=^default:(sys|const|def)\\."]) {
  test(`${option} of this host matches cf-promises`, { skip }, () => {
    const ours = runTend(["check", "-f", "./vars.cf", option], { cwd: showDir, env });
    const theirs = spawnSync("cf-promises", ["-f", "./vars.cf", option], {
      cwd: showDir,
      env: { ...process.env, ...env },
      encoding: "utf8",
    });
    assert.equal(stable(ours.stdout), stable(theirs.stdout));
  });
}
