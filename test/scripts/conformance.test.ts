import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { classifyRun, describeFailure, type Outcome } from "../../scripts/conformance/classify.js";
import {
  DEFAULT_TYPES,
  discoverTests,
  getSkipReason,
  getTestType,
  type TestType,
} from "../../scripts/conformance/discover.js";
import { formatCounts, summarize } from "../../scripts/conformance/report.js";
import { planBlocks } from "../../scripts/conformance/schedule.js";
import { flattenTestPath, getAgentArgs } from "../../scripts/conformance/workdir.js";

const T = "./10_files/demo.cf";
const R = (tail: string) => `R: /tmp/suite/./10_files/demo.cf ${tail}`;

function outcomeOf(output: string, status = 0, type: TestType = "common", canWait = false): Outcome {
  return classifyRun(T, type, { output, status, timedOut: false }, canWait).outcome;
}

test("a Pass report passes, even after an earlier FAIL from a convergence pass", () => {
  assert.equal(outcomeOf(R("Pass")), "Pass");
  assert.equal(outcomeOf(`${R("FAIL")}\n${R("Pass")}`), "Pass");
  assert.equal(outcomeOf("2024-01-01T00:00:00+0000   notice: R: /x/./10_files/demo.cf Pass"), "Pass");
});

test("no outcome, a FAIL, a non-zero exit or a report for another test fails", () => {
  assert.equal(outcomeOf(""), "FAIL");
  assert.equal(outcomeOf(R("FAIL")), "FAIL");
  assert.equal(outcomeOf(R("Pass"), 1), "FAIL");
  assert.equal(outcomeOf("R: /tmp/suite/./10_files/other.cf Pass"), "FAIL");
  assert.equal(outcomeOf("R: /tmp/suite/./10_files/demoXcf Pass"), "FAIL");
  assert.equal(outcomeOf("notice: /tmp/suite/./10_files/demo.cf Pass"), "FAIL");
});

test("outcomes printed from dcs.cf.sub count for the test", () => {
  assert.equal(outcomeOf("R: /tmp/suite/./dcs.cf.sub Pass"), "Pass");
});

test("skip reports skip; flakey reports are their own category", () => {
  assert.equal(outcomeOf(R("Skip/unsupported")), "Skip");
  assert.equal(outcomeOf(R("Skip/needs_work")), "Skip");
  const flakey = classifyRun(T, "common", { output: R("FLAKEY/CFE-1"), status: 0, timedOut: false }, false);
  assert.deepEqual([flakey.outcome, flakey.ticket], ["FLAKEY", "CFE-1"]);
});

test("soft and suppressed failures, and their broken forms", () => {
  const soft = classifyRun(
    T,
    "common",
    { output: `${R("SFAIL/CFE-42")}\n${R("FAIL")}`, status: 0, timedOut: false },
    false,
  );
  assert.deepEqual([soft.outcome, soft.ticket], ["SFAIL", "CFE-42"]);
  assert.equal(outcomeOf(R("SFAIL/CFE-42"), 1), "SFAIL", "a soft fail wins over the exit status");
  assert.equal(outcomeOf(R("XFAIL/redmine7")), "XFAIL");
  assert.equal(outcomeOf(`${R("SFAIL/CFE-42")}\n${R("Pass")}`), "FAIL", "passing when failure was expected");
  assert.equal(outcomeOf(`${R("SFAIL/CFE-42")}\n${R("Skip/unsupported")}`), "FAIL");
  assert.equal(outcomeOf(R("FAIL/no_ticket_number")), "FAIL");
});

test("Wait asks for another pass only in timed tests", () => {
  const wait = classifyRun(T, "timed", { output: R("Wait/30"), status: 0, timedOut: false }, true);
  assert.deepEqual([wait.outcome, wait.waitSeconds], ["Wait", 30]);
  assert.equal(outcomeOf(R("Wait/30")), "FAIL");
});

test(".x.cf tests must exit 1..127 and print an error; .error.cf tests must exit 0 and print one", () => {
  assert.equal(outcomeOf("   error: Syntax error", 1, "errorexit"), "Pass");
  assert.equal(outcomeOf("aborted on defined class 'x'", 1, "errorexit"), "Pass");
  assert.equal(outcomeOf("   error: Syntax error", 0, "errorexit"), "FAIL");
  assert.equal(outcomeOf("   error: boom", 139, "errorexit"), "FAIL");
  assert.equal(outcomeOf("nothing", 1, "errorexit"), "FAIL");
  assert.equal(outcomeOf("   error: bad attribute", 0, "errorlog"), "Pass");
  assert.equal(outcomeOf("   error: bad attribute", 1, "errorlog"), "FAIL");
  assert.equal(outcomeOf("warning: only", 0, "errorlog"), "FAIL");
});

test("a run that hit the time limit fails whatever it printed", () => {
  assert.equal(
    classifyRun(T, "common", { output: R("Pass"), status: 137, timedOut: true }, false).outcome,
    "FAIL",
  );
});

test("the failure hint is the last lines, flagging an outcome printed for another spelling of the path", () => {
  assert.equal(describeFailure(T, "a\n\nb\nc\n"), "b | c");
  assert.equal(describeFailure(T, ""), "(no output)");
  assert.match(
    describeFailure(T, "R: /tmp/suite/10_files/demo.cf Pass"),
    /^\[outcome printed for another path\]/,
  );
});

test("the test type comes from the path, first rule first", () => {
  const cases: [string, TestType][] = [
    ["./00_basics/a.cf", "common"],
    ["./00_basics/a.x.cf", "errorexit"],
    ["./00_basics/staging/a.x.cf", "errorexit"],
    ["./30_custom/a.error.cf", "errorlog"],
    ["./10_files/staging/a.cf", "staging"],
    ["./17_users/unsafe/a.cf", "unsafe"],
    ["./16_cf-serverd/serial/network/a.cf", "network"],
    ["./00_basics/x/timed/a.cf", "timed"],
    ["./25_cf-execd/slow/a.cf", "slow"],
    ["./16_cf-serverd/serial/a.cf", "serial"],
    ["./16_x/start_serial_server.cf", "serial"],
    ["./10_files/11_xml_edits/a.cf", "libxml2"],
    ["./01_vars/02_functions/network/url_get.cf", "network"],
  ];
  for (const [path, type] of cases) assert.equal(getTestType(path), type, path);
});

test("staging and unsafe tests are skipped by default; unsafe ones even when they are .x.cf", () => {
  const skip = (path: string) => getSkipReason({ path, group: "g", type: getTestType(path) }, DEFAULT_TYPES);
  assert.equal(skip("./a/b.cf"), undefined);
  assert.match(skip("./a/staging/b.cf")!, /Staging/);
  assert.match(skip("./a/unsafe/b.cf")!, /Unsafe/);
  assert.match(skip("./a/unsafe/b.x.cf")!, /Unsafe/);
  assert.equal(skip("./a/staging/b.x.cf"), undefined);
});

const suite = mkdtempSync(join(tmpdir(), "tend-conformance-test-"));
after(() => rmSync(suite, { recursive: true, force: true }));

test("discovery lists *.cf files sorted, not .cf.sub, and prunes workdir", () => {
  for (const dir of ["01_x/sub", "01_x/workdir", "02_y"]) mkdirSync(join(suite, dir), { recursive: true });
  for (const file of [
    "01_x/b.cf",
    "01_x/a.cf",
    "01_x/a.cf.sub",
    "01_x/sub/c.x.cf",
    "01_x/workdir/w.cf",
    "02_y/d.cf",
  ]) {
    writeFileSync(join(suite, file), "");
  }
  const found = discoverTests(suite, ["01_x/"]);
  assert.deepEqual(
    found.map((t) => t.path),
    ["./01_x/a.cf", "./01_x/b.cf", "./01_x/sub/c.x.cf"],
  );
  assert.deepEqual(new Set(found.map((t) => t.group)), new Set(["01_x"]));
  assert.deepEqual(
    discoverTests(suite, ["02_y/d.cf"]).map((t) => [t.path, t.group]),
    [["./02_y/d.cf", "02_y/d.cf"]],
  );
  assert.throws(() => discoverTests(suite, ["03_missing"]), /no such test/);
});

test("serial tests cut the run into stretches; timed tests run one at a time", () => {
  const paths = ["./a/1.cf", "./a/serial/2.cf", "./a/serial/3.cf", "./a/4.cf", "./a/timed/5.cf"];
  const blocks = planBlocks(paths.map((path) => ({ path, group: "a", type: getTestType(path) })));
  assert.deepEqual(
    blocks.map((b) => [b.serial, b.parallel.map((t) => t.path), b.oneAtATime.map((t) => t.path)]),
    [
      [false, ["./a/1.cf"], []],
      [true, [], ["./a/serial/2.cf", "./a/serial/3.cf"]],
      [false, ["./a/4.cf"], ["./a/timed/5.cf"]],
    ],
  );
});

test("the agent command line and work directory names follow testall", () => {
  assert.deepEqual(getAgentArgs(T, "AUTO,DEBUG", undefined, false), ["-Klf", T, "-D", "AUTO,DEBUG"]);
  assert.deepEqual(getAgentArgs(T, "AUTO,DEBUG", 2, true), ["-v", "-Klf", T, "-D", "test_pass_2,AUTO,DEBUG"]);
  assert.equal(flattenTestPath(T), "__10_files_demo_cf");
});

test("counts per directory end in 'N passed, N failed, N skipped'", () => {
  const row = (path: string, group: string, outcome: Outcome) => ({
    test: { path, group, type: "common" },
    outcome,
    message: outcome,
    passes: 1,
    seconds: 0,
    log: "",
  });
  const { groups, totals } = summarize([
    row("./a/2.cf", "a", "Pass"),
    row("./a/1.cf", "a", "Pass"),
    row("./a/3.cf", "a", "XFAIL"),
    row("./b/1.cf", "b", "Skip"),
    row("./b/2.cf", "b", "SFAIL"),
  ]);
  assert.deepEqual(groups.a!.passing, ["a/1.cf", "a/2.cf"]);
  assert.equal(formatCounts(groups.a!), "2 passed, 1 failed, 0 skipped");
  assert.equal(formatCounts(totals), "2 passed, 1 failed, 1 skipped, 1 soft-failed");
});
