import assert from "node:assert/strict";
import { homedir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { parseCheckOptions, resolveEntryFile, resolveWorkdir } from "../../src/cli/check-options.js";
import { shouldColor } from "../../src/cli/color.js";
import { UsageError } from "../../src/cli/io.js";

const tty = { isTTY: true };
const pipe = { isTTY: false };

test("colour on a terminal, not on a pipe, never with NO_COLOR", () => {
  assert.equal(shouldColor("auto", tty, {}), true);
  assert.equal(shouldColor("auto", pipe, {}), false);
  assert.equal(shouldColor("auto", tty, { NO_COLOR: "1" }), false);
  assert.equal(shouldColor("auto", tty, { NO_COLOR: "" }), true, "an empty NO_COLOR does not count");
  assert.equal(shouldColor("auto", tty, { TERM: "dumb" }), false);
  assert.equal(shouldColor("auto", pipe, { FORCE_COLOR: "1" }), true);
  assert.equal(shouldColor("never", tty, {}), false);
  assert.equal(shouldColor("always", pipe, { NO_COLOR: "1" }), true, "an explicit --color=always wins");
});

test("-D and -N take comma-separated lists and may repeat", () => {
  const o = parseCheckOptions(["-D", "a,b", "-D", "c", "-N", "x,,y", "f.cf"]);
  assert.deepEqual(o.defines, ["a", "b", "c"]);
  assert.deepEqual(o.negates, ["x", "y"]);
});

test("a positional FILE wins over -f, and only -f paths are looked up in the input directory", () => {
  assert.equal(parseCheckOptions(["-f", "a.cf", "b.cf"]).file, "b.cf");
  const resolve = (args: string[]) => resolveEntryFile(parseCheckOptions(args), "/in");
  assert.equal(resolve(["-f", "a.cf"]), "/in/a.cf");
  assert.equal(resolve(["-f", "sub/a.cf"]), "/in/sub/a.cf");
  assert.equal(resolve(["-f", "./a.cf"]), "./a.cf");
  assert.equal(resolve(["-f", "../a.cf"]), "../a.cf");
  assert.equal(resolve(["-f", "/abs/a.cf"]), "/abs/a.cf");
  assert.equal(resolve(["a.cf"]), "a.cf");
  assert.equal(resolve([]), "/in/promises.cf");
});

test("the work directory comes from -w, then CFENGINE_TEST_OVERRIDE_WORKDIR", () => {
  assert.equal(
    resolveWorkdir(parseCheckOptions(["-w", "/w"]), { CFENGINE_TEST_OVERRIDE_WORKDIR: "/e" }),
    "/w",
  );
  assert.equal(resolveWorkdir(parseCheckOptions([]), { CFENGINE_TEST_OVERRIDE_WORKDIR: "/e" }), "/e");
  // Then tend agent's own default: check looks where the agent runs.
  assert.equal(
    resolveWorkdir(parseCheckOptions([]), {}),
    process.getuid?.() === 0 ? "/var/lib/tend" : join(homedir(), ".tend"),
  );
});

test("options with an optional value take it only when attached, as with getopt", () => {
  assert.equal(parseCheckOptions(["-C"]).color, "auto");
  assert.equal(parseCheckOptions(["--color=never"]).color, "never");
  assert.equal(parseCheckOptions(["-Calways"]).color, "always");
  // `-C FILE`: FILE is the policy, not the colour.
  assert.equal(parseCheckOptions(["-C", "x.cf"]).file, "x.cf");
  assert.deepEqual(parseCheckOptions(["--eval-functions", "x.cf"]).ignored, ["--eval-functions"]);
});

test("bad values and unknown options are usage errors", () => {
  assert.throws(() => parseCheckOptions(["-p", "xml"]), UsageError);
  assert.throws(() => parseCheckOptions(["-s", "yaml"]), UsageError);
  assert.throws(() => parseCheckOptions(["--color=sometimes"]), UsageError);
  assert.throws(() => parseCheckOptions(["--frobnicate"]), UsageError);
  assert.throws(() => parseCheckOptions(["a.cf", "b.cf"]), UsageError);
});

test("every cf-promises option is accepted", () => {
  const args = ["-c", "-I", "-v", "-d", "-b", "main", "-w", "/w", "-W", "all", "-T", "/t", "-l", "-n", "-x"];
  const o = parseCheckOptions([
    ...args,
    "-g",
    "info",
    "--ignore-preferred-augments",
    "--log-modules=x",
    "-p",
    "cf",
  ]);
  assert.equal(o.fullCheck, true);
  assert.deepEqual(o.bundlesequence, ["main"]);
  assert.equal(o.policyOutput, "cf");
  assert.equal(o.tagRelease, "/t");
  assert.equal(o.ignored.length, 7);
});
