/**
 * Every program a function runs has an end: a time limit
 * (`tend_control.function_timeout`, 300 s unless set) after which it is
 * killed and the call fails with an error, and an output limit (64 MiB)
 * at which the output is cut and the program stopped. cf-agent waits
 * for `sleep 100000` forever.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { scratchDirectory } from "../scratch.js";
import { runTendAgent, writePolicy } from "./attack.js";

const LIMITED = 'bundle common tend_control { vars: "function_timeout" string => "1"; }\n';

test("execresult of a program that never ends is killed at the time limit and fails", () => {
  const dir = scratchDirectory("tend-exec-");
  const policy = writePolicy(
    join(dir, "p.cf"),
    `${LIMITED}bundle agent main {
vars: "s" string => execresult("/bin/sleep 100000; echo done", "useshell");
classes: "z" expression => returnszero("/bin/sleep 100000", "noshell");
reports: "s=$(s)"; "end"; z:: "z";
}
`,
  );
  const run = runTendAgent(policy, join(dir, "wd"));
  assert.equal(run.status, 0, run.output);
  assert.match(
    run.output,
    /error: could not run '\/bin\/sleep 100000; echo done': killed after 1 s \(tend_control.function_timeout\)/,
  );
  assert.match(run.output, /error: '\/bin\/sleep 100000' killed after 1 s/);
  assert.match(run.output, /R: s=\$\(s\)/);
  assert.match(run.output, /R: end/);
  assert.doesNotMatch(run.output, /R: z$/m);
});

test("execresult of a program that never stops writing keeps 64 MiB and stops it", () => {
  const dir = scratchDirectory("tend-exec-");
  const policy = writePolicy(
    join(dir, "p.cf"),
    `bundle agent main {
vars: "y" string => execresult("/usr/bin/yes", "noshell");
      "n" int => string_length("$(y)");
reports: "n=$(n)";
}
`,
  );
  const run = runTendAgent(policy, join(dir, "wd"));
  assert.equal(run.status, 0, run.output);
  // 64 MiB of "y\n", the last newline chopped as 3.21 chops trailing blanks.
  assert.match(run.output, /R: n=67108863/);
  assert.match(run.output, /warning: output of '\/usr\/bin\/yes' cut at 64 MiB/);
});

test("a function_timeout that is not a number of seconds is reported and the default used", () => {
  const dir = scratchDirectory("tend-exec-");
  const policy = writePolicy(
    join(dir, "p.cf"),
    `bundle common tend_control { vars: "function_timeout" string => "soon"; }
bundle agent main { vars: "e" string => execresult("/bin/echo hi", "noshell"); reports: "e=$(e)"; }
`,
  );
  const run = runTendAgent(policy, join(dir, "wd"));
  assert.match(run.output, /tend_control.function_timeout = 'soon' is not a number of seconds; using 300/);
  assert.match(run.output, /R: e=hi/);
});
