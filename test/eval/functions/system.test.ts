import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { expandRval } from "../../../src/eval/expand.js";
import { cleanOutput, commandArg0, splitCommand } from "../../../src/eval/functions/exec.js";
import { collectedFunctionMessages } from "../../../src/eval/functions/messages.js";
import { parseCsvLine } from "../../../src/eval/functions/system-tables.js";
import { splayClassName, stringHash } from "../../../src/eval/functions/utils.js";
import { type Value, data, scalar } from "../../../src/eval/values.js";
import { parseVarRef } from "../../../src/eval/var-ref.js";
import { makeContext, rval } from "../helpers.js";
import { caseCount, makeTree, replayFamily } from "./system-fixture.js";

const call = (text: string, ctx = makeContext()): Value | undefined => expandRval(ctx, rval(text));

test("system functions match cf-agent 3.21 on the recorded cases", () => {
  assert.ok(caseCount("system") > 50);
  assert.deepEqual(replayFamily("system"), []);
});

test("command lines split and clean up as in 3.21", () => {
  assert.deepEqual(splitCommand(`/bin/echo  a 'b c' "d"e \`f\``), ["/bin/echo", "a", "b c", "d", "e", "f"]);
  assert.deepEqual(splitCommand("  "), []);
  assert.equal(commandArg0('"/opt/my prog" -x'), "/opt/my prog");
  assert.equal(commandArg0("/bin/ls -l"), "/bin/ls");
  assert.equal(cleanOutput("a\nb\n\n  \n"), "a\nb");
  assert.equal(cleanOutput("x\0y\nz"), "x\nz");
});

test("cached functions run once per evaluation context", () => {
  const dir = makeTree();
  const counter = join(dir, "count");
  writeFileSync(counter, "");
  const command = `echo x >> ${counter}; wc -l < ${counter}`;
  const ctx = makeContext();
  assert.deepEqual(call(`execresult("${command}", "useshell")`, ctx), scalar("1"));
  assert.deepEqual(call(`execresult("${command}", "useshell")`, ctx), scalar("1"));
  assert.deepEqual(call(`returnszero("${command}", "useshell")`, ctx), scalar("any"));
  assert.equal(readFileSync(counter, "utf8"), "x\nx\n");
  assert.deepEqual(call(`execresult("${command}", "useshell")`, makeContext()), scalar("3"));
});

test("execresult reports why a command was not run", () => {
  const ctx = makeContext();
  assert.equal(call('execresult("echo hi", "noshell")', ctx), undefined);
  const messages = collectedFunctionMessages(ctx);
  assert.equal(messages.at(-1)?.message, "execresult 'echo hi' does not have an absolute path");
});

test("execresult_as_data keeps output and exit code", () => {
  assert.deepEqual(
    call('execresult_as_data("printf \'a\\\\nb\\\\n\'; exit 7", "useshell")'),
    data({ exit_code: 7, output: "a\nb" }),
  );
});

test("processes are found by their command line", async () => {
  const marker = `tend_marker_${process.pid}`;
  const child = spawn("/bin/sh", ["-c", `sleep 30; : ${marker}`], { stdio: "ignore" });
  try {
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(call(`processexists(".*${marker}.*")`), scalar("any"));
    const found = call(`findprocesses("${marker}")`);
    const rows = (found?.value ?? []) as { pid: number; line: string }[];
    assert.ok(rows.some((r) => r.pid === child.pid && r.line.includes(marker)));
  } finally {
    child.kill();
  }
});

test("users and groups come from the system databases", () => {
  const passwd = readFileSync("/etc/passwd", "utf8");
  const root = passwd
    .split("\n")
    .find((l) => l.startsWith("root:"))
    ?.split(":");
  assert.ok(root);
  assert.deepEqual(call('getuserinfo("root")'), {
    type: "data",
    value: {
      description: root[4],
      gid: Number(root[3]),
      home_dir: root[5],
      shell: root[6],
      uid: Number(root[2]),
      username: "root",
    },
  });
  const users = call('getusers("root", "")')?.value as string[];
  assert.ok(!users.includes("root"));
  assert.ok(users.length > 0);
  assert.deepEqual(call('getusers("", "0")')?.value, users);
});

test("packagesmatching reads the software inventory in the state directory", () => {
  const work = makeTree();
  const ctx = makeContext();
  ctx.setVariable(parseVarRef("sys.workdir"), scalar(work));
  // No inventory yet: an empty list, not a failure.
  assert.deepEqual(call('packagesmatching(".*", ".*", ".*", ".*")', ctx), data([]));
  const state = join(work, "state");
  mkdirSync(state);
  writeFileSync(
    join(state, "software_packages.csv"),
    "bash,5.2,amd64,apt_get\nzsh,5.9,amd64,apt_get\nbad,line\n",
  );
  writeFileSync(
    join(state, "software_patches_avail.csv"),
    'bash,5.3,amd64,apt_get\n"zsh",5.9,amd64,apt_get\n',
  );
  const bash = { name: "bash", version: "5.2", arch: "amd64", method: "apt_get" };
  const zsh = { name: "zsh", version: "5.9", arch: "amd64", method: "apt_get" };
  assert.deepEqual(call('packagesmatching("bash", ".*", ".*", ".*")', ctx), data([bash]));
  assert.deepEqual(call('packagesmatching(".*", "5\\..*", "amd64", "apt_get")', ctx), data([bash, zsh]));
  assert.deepEqual(call('packagesmatching("b.*", ".*", ".*", ".*")', ctx), data([bash]));
  assert.deepEqual(
    call('packageupdatesmatching("bash", ".*", ".*", ".*")', ctx),
    data([{ ...bash, version: "5.3" }]),
  );
  assert.deepEqual(parseCsvLine('a,"b,c","d""e",'), ["a", "b,c", 'd"e', ""]);
});

test("getenv truncates to the byte limit", () => {
  process.env.TEND_TEST_LONG = "abcdef";
  assert.deepEqual(call('getenv("TEND_TEST_LONG", "3")'), scalar("abc"));
  assert.deepEqual(call('getenv("TEND_TEST_LONG", "1k")'), scalar("abcdef"));
});

test("splayclass tests the time class of the seed's hash slot", () => {
  // Slots checked against cf-agent 3.21 for 300 seeds.
  assert.equal(splayClassName("host3.example", "hourly"), "Min05_10");
  assert.equal(splayClassName("host12.example", "hourly"), "Min05_10");
  assert.match(splayClassName("host1.example", "daily"), /^Min\d\d_\d\d\.Hr\d\d$/);
  const ctx = makeContext();
  ctx.defineHardClass("Min05_10");
  ctx.defineHardClass("Hr06");
  assert.deepEqual(call('splayclass("host3.example", "hourly")', ctx), scalar("any"));
  assert.deepEqual(call('splayclass("host4.example", "hourly")', ctx), scalar("!any"));
  const daily = splayClassName("host4.example", "daily");
  const [minute, hour] = daily.split(".");
  const other = makeContext();
  other.defineHardClass(minute);
  other.defineHardClass(hour);
  assert.deepEqual(call('splayclass("host4.example", "daily")', other), scalar("any"));
  assert.equal(stringHash(""), 0);
});

test("returnszero lets a shell command's output through, as cf-agent prints it", () => {
  const ctx = makeContext();
  assert.deepEqual(call('returnszero("echo through", "useshell")', ctx), scalar("any"));
  assert.deepEqual(call('returnszero("/bin/echo hidden", "noshell")', ctx), scalar("any"));
  const outputs = collectedFunctionMessages(ctx).filter((m) => m.level === "output");
  assert.deepEqual(
    outputs.map((m) => m.message),
    ["through\n"],
  );
});

test("failures say why, in cf-agent's words", () => {
  const ctx = makeContext();
  ctx.agentType = "agent";
  assert.equal(call('readfile("/nonexistent/x")', ctx), undefined);
  assert.deepEqual(call('countlinesmatching(".*", "/nonexistent/x")', ctx), scalar("0", "int"));
  assert.equal(call('getuid("no_such_user_xyz")', ctx), undefined);
  assert.deepEqual(
    collectedFunctionMessages(ctx).map((m) => m.message),
    [
      "CfReadFile: Could not examine file '/nonexistent/x' (stat: No such file or directory)",
      "File '/nonexistent/x' could not be read in countlinesmatching(). (fopen: No such file or directory)",
      "Could not get UID for user 'no_such_user_xyz', (getpwnam: not found)",
    ],
  );
});

test("cf-promises words a file it cannot examine its own way", () => {
  const ctx = makeContext();
  assert.equal(call('readfile("/nonexistent/x")', ctx), undefined);
  assert.deepEqual(
    collectedFunctionMessages(ctx).map((m) => m.message),
    ["Could not examine file '/nonexistent/x'"],
  );
});

test("data_sysctlvalues maps /proc/sys files to dotted keys", { skip: process.platform !== "linux" }, () => {
  assert.deepEqual(call('nth(data_sysctlvalues(), "kernel.ostype")'), scalar("Linux"));
  assert.deepEqual(call('sysctlvalue("kernel/ostype")'), scalar("Linux"));
});

test("getuserinfo describes the current user when none or an unknown one is named", () => {
  const uid = String(process.getuid?.() ?? 0);
  assert.deepEqual(call('nth(getuserinfo(), "uid")'), scalar(uid));
  assert.deepEqual(call('nth(getuserinfo("no_such_user_xyz"), "uid")'), scalar(uid));
});
