/**
 * Promise modules that misbehave, one tiny fixture each
 * (test/fixtures/modules): every fault ends the promise it hit as not
 * kept, with a message naming the module, the run goes on to its end, and
 * the promises after it (of the same module, restarted, or of another
 * module) get their own results.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  type ModuleRun,
  declaration,
  hasPython,
  runModule,
  runPolicy,
  seenClasses,
  timeouts,
} from "./run-module.js";

/** The later promises: a repair and a kept promise, with their own classes. */
function assertLaterPromisesOwnResults(run: ModuleRun, names = ["good1", "keep2"]): void {
  assert.equal(
    run.outcome(names[0]),
    "repaired",
    `${names[0]}: ${run.logs.map((l) => l.message).join("\n")}`,
  );
  assert.equal(run.outcome(names[1]), "kept");
  for (const name of names) assert.ok(run.classes.includes(`seen_${name}`), `${name}_done missing`);
  assert.ok(!run.classes.includes("seen_bad"), "bad got a result class");
}

function assertBadFailed(run: ModuleRun, message: RegExp): void {
  assert.equal(run.exitCode, 0);
  assert.equal(run.outcome("bad"), "failed");
  const errors = run.logged(/^error: /);
  assert.ok(
    errors.some((line) => message.test(line)),
    `no error matching ${message}; errors:\n${errors.join("\n")}`,
  );
}

const LIMITS = { timeout: 30_000 };

test("a slow module is killed after its time limit; the next promise gets a fresh module", LIMITS, () => {
  const run = runModule("slow.sh", ["bad", "good1", "keep2"], { timeout: 1 });
  assertBadFailed(
    run,
    /Promise module '.*slow\.sh' failed while evaluating fx promise 'bad': no complete answer within 1 seconds, so it was killed; it will be restarted/,
  );
  assertLaterPromisesOwnResults(run);
});

test("a silent module (no header) fails its promises without hanging; others run on", LIMITS, () => {
  const policy = `${declaration("silent.sh")}${declaration("good.sh", "ok")}${timeouts({ fx: 0.5, ok: 5 })}
bundle agent main
{
  fx:
      "bad" x => "1";
      "bad2" x => "1";
      "bad3" x => "1";
      "bad4" x => "1";
  ok:
      "good1" x => "1";
      "keep2" x => "1";
${seenClasses(["good1", "keep2", "bad"])}
}
`;
  const run = runPolicy(policy);
  assertBadFailed(
    run,
    /Did not receive header from promise module '.*silent\.sh': no complete answer within 0\.5 seconds/,
  );
  for (const name of ["bad2", "bad3", "bad4"]) assert.equal(run.outcome(name), "failed");
  // After three failed starts the module is left alone.
  assert.equal(run.logged(/Did not receive header/).length, 3);
  assert.equal(run.logged(/failed to start 3 times; it is not started again in this run/).length, 1);
  assertLaterPromisesOwnResults(run);
});

test("a module that dies before its header: the error names it and shows its stderr", LIMITS, () => {
  const run = runModule("crash-before-header.sh", ["bad"]);
  assertBadFailed(
    run,
    /Did not receive header from promise module '.*crash-before-header\.sh': it exited with code 3 before answering/,
  );
  assert.equal(
    run.logged(/crash-before-header\.sh' wrote to standard error: cannot initialise: no such thing/).length,
    1,
  );
});

test("a module that dies after its header is restarted for the next promise", LIMITS, () => {
  const run = runModule("crash-after-header.sh", ["bad", "good1", "keep2"]);
  assertBadFailed(
    run,
    /Promise module '.*crash-after-header\.sh' failed while validating fx promise 'bad': it exited with code 4 before answering; it will be restarted for the next promise/,
  );
  assert.equal(
    run.logged(/^error: .*\(fx promise 'bad'\) wrote to standard error: segfault pretend/).length,
    1,
  );
  assert.equal(run.logged(/Starting custom promise module/).length, 2);
  assertLaterPromisesOwnResults(run);
});

test(
  "a module that dies in the middle of its answer: what it logged is shown, the rest refused",
  LIMITS,
  () => {
    const run = runModule("crash-mid-reply.sh", ["bad", "good1", "keep2"]);
    assertBadFailed(
      run,
      /crash-mid-reply\.sh' failed while validating fx promise 'bad': it exited with code 5/,
    );
    assert.equal(run.logged(/^info: halfway there$/).length, 1);
    assertLaterPromisesOwnResults(run);
  },
);

test("garbage in place of an answer: an error for the line, and no result (as 3.21)", LIMITS, () => {
  const run = runModule("garbage.sh", ["bad", "good1", "keep2"]);
  assertBadFailed(run, /garbage\.sh' sent an invalid line: 'this is not a reply'/);
  assert.equal(run.logged(/No error\(s\) logged for invalid fx promise with promiser 'bad'/).length, 1);
  assertLaterPromisesOwnResults(run);
});

test("a bare log_ line is an error, and the answer around it still counts (as 3.21)", LIMITS, () => {
  const run = runModule("bare-log-line.sh", ["bad", "good1", "keep2"]);
  assert.equal(run.exitCode, 0);
  assert.equal(run.logged(/bare-log-line\.sh' sent an invalid log line: 'log_info'$/).length, 2);
  assert.equal(run.outcome("bad"), "repaired");
  assertLaterPromisesOwnResults(run);
});

test("a second answer to one request reaches no other promise", LIMITS, () => {
  const run = runModule("double-reply.sh", ["bad", "good1", "keep2"]);
  assertBadFailed(
    run,
    /double-reply\.sh' failed while evaluating fx promise 'bad': it sent an answer to 'validate_promise' when asked to 'evaluate_promise'/,
  );
  assertLaterPromisesOwnResults(run);
});

test("JSON spread over several lines is refused and the module restarted", {
  ...LIMITS,
  skip: !hasPython,
}, () => {
  const run = runModule("multiline-json.py", ["bad", "good1", "keep2"]);
  assertBadFailed(
    run,
    /multiline-json\.py' failed while validating fx promise 'bad': it sent JSON over \d+ lines \(a reply must be one line\)/,
  );
  assert.equal(run.outcome("good1"), "kept");
  assert.equal(run.outcome("keep2"), "kept");
  assert.ok(run.classes.includes("seen_good1") && run.classes.includes("seen_keep2"));
  assert.ok(!run.classes.includes("seen_bad"));
});

test("an unknown log level is reported with its message, and the result still counts", LIMITS, () => {
  const run = runModule("unknown-level.sh", ["keep1", "keep2"]);
  assert.equal(run.exitCode, 0);
  assert.equal(run.outcome("keep1"), "kept");
  assert.equal(run.outcome("keep2"), "kept");
  const warnings = run.logged(/sent a log message with the unknown level 'shouting': LOUD keep1$/);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /^warning: Promise module '.*unknown-level\.sh'/);
});

test("an invalid header is refused, with the header in the message", LIMITS, () => {
  const run = runModule("invalid-header.sh", ["bad"], { timeout: 2 });
  assertBadFailed(
    run,
    /Promise module '.*invalid-header\.sh' sent an invalid header 'hello there' \(expected 'NAME VERSION v1 FLAGS\.\.\.'\)/,
  );
});

test("a header not followed by an empty line is refused", LIMITS, () => {
  const run = runModule("header-without-blank.sh", ["bad"], { timeout: 2 });
  assertBadFailed(
    run,
    /header-without-blank\.sh' sent no empty line after the header 'fixture 1\.0 v1 line_based' \(got 'result=valid'\)/,
  );
});

test("a header followed by a non-empty line is refused at once, not at the time limit", LIMITS, () => {
  // The module then waits for input: only the two lines it sent can end the wait.
  const run = runModule("header-then-line.sh", ["bad"], { timeout: 300 });
  assertBadFailed(
    run,
    /header-then-line\.sh' sent no empty line after the header 'fixture 1\.0 v1 line_based' \(got 'not empty'\)/,
  );
});

test("a header answering a protocol version higher than offered is refused", LIMITS, () => {
  const run = runModule("wrong-version.sh", ["bad"]);
  assertBadFailed(
    run,
    /Promise module '.*wrong-version\.sh' sent protocol version v2 in its header, higher than the v1 offered/,
  );
});

test("a huge answer within the limit is read; endless output is cut off and the module killed", {
  ...LIMITS,
  skip: !hasPython,
}, () => {
  const run = runModule("huge.py", ["big", "endless", "keep2"], { timeout: 10 });
  assert.equal(run.exitCode, 0);
  assert.equal(run.outcome("big"), "kept");
  assert.equal(run.logs.filter((l) => l.message.length === 4_000_000).length, 1);
  assert.equal(run.outcome("endless"), "failed");
  assert.equal(
    run.logged(
      /huge\.py' failed while evaluating fx promise 'endless': an answer larger than 16 MiB, so it was killed/,
    ).length,
    1,
  );
  assert.equal(run.outcome("keep2"), "kept");
  assert.ok(run.classes.includes("seen_big") && run.classes.includes("seen_keep2"));
  assert.ok(!run.classes.includes("seen_endless"));
});

test("standard error is logged against the promise it came with", LIMITS, () => {
  const run = runModule("stderr.sh", ["keep1", "noisy", "keep2"]);
  assert.equal(run.outcome("noisy"), "repaired");
  const lines = run.logged(/wrote to standard error/);
  assert.ok(lines.length >= 1, run.logs.map((l) => l.message).join("\n"));
  assert.ok(
    lines.every((line) =>
      /^warning: Promise module '.*stderr\.sh' \(fx promise 'noisy'\) wrote to standard error: complaint about noisy/.test(
        line,
      ),
    ),
  );
});

test("answers written ahead of the requests are read in order (as cf-agent reads them)", LIMITS, () => {
  const run = runModule("write-ahead.sh", ["only"]);
  assert.equal(run.exitCode, 0);
  assert.equal(run.outcome("only"), "repaired");
  assert.equal(run.logged(/^info: done ahead$/).length, 1);
});

test("a module that exited after its answers is started again for the next promise", LIMITS, () => {
  // The sleep between the bundles makes sure the module is gone before the next promise.
  const policy = `${declaration("write-ahead.sh")}
body common control { bundlesequence => { "first", "second" }; }
bundle agent first { fx: "only" x => "1"; }
bundle agent second
{
  commands: "/bin/sleep 0.3";
  fx: "next" x => "1";
}
`;
  const run = runPolicy(policy);
  assert.equal(run.outcome("only"), "repaired");
  assert.equal(run.outcome("next"), "repaired");
  assert.equal(
    run.logged(/^verbose: Promise module '.*write-ahead\.sh' had exited \(exit code 0\); starting it again$/)
      .length,
    1,
  );
  assert.equal(run.logged(/^error:/).length, 0);
});

test("a value with a newline is never sent to a line-based module", LIMITS, () => {
  const run = runModule("good.sh", ["bad", "good1", "keep2"], {
    attributes: 'x => "$(this.promiser)$(const.n)y"',
  });
  for (const name of ["bad", "good1", "keep2"]) assert.equal(run.outcome(name), "failed");
  assert.equal(
    run.logged(
      /^error: Cannot send attribute 'x' of fx promise 'bad' to the line-based promise module '.*good\.sh': its value contains a newline/,
    ).length,
    1,
  );
  assert.equal(run.logged(/Starting custom promise module/).length, 1);
});
