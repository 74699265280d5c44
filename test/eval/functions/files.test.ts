import assert from "node:assert/strict";
import { lstatSync, mkdirSync, statSync, statfsSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { expandRval } from "../../../src/eval/expand.js";
import { globFileList } from "../../../src/eval/functions/glob.js";
import { cfBasename, cfDirname, chopLastNode, compressPath } from "../../../src/eval/functions/paths.js";
import { type Value, data, scalar } from "../../../src/eval/values.js";
import { parseVarRef } from "../../../src/eval/var-ref.js";
import { makeContext, rval } from "../helpers.js";
import { caseCount, makeTree, replayFamily } from "./system-fixture.js";

const call = (text: string, ctx = makeContext()): Value | undefined => expandRval(ctx, rval(text));

test("file functions match cf-agent 3.21 on the recorded cases", () => {
  assert.ok(caseCount("files") > 140);
  assert.deepEqual(replayFamily("files"), []);
});

test("filestat fields agree with lstat", () => {
  const dir = makeTree();
  const file = join(dir, "a.txt");
  const stat = lstatSync(file, { bigint: true });
  const table: [string, string][] = [
    ["size", String(stat.size)],
    ["uid", String(stat.uid)],
    ["gid", String(stat.gid)],
    ["ino", String(stat.ino)],
    ["devno", String(stat.dev)],
    ["mode", String(stat.mode)],
    ["modeoct", stat.mode.toString(8)],
    ["mtime", String(stat.mtimeNs / 1_000_000_000n)],
    ["atime", String(stat.atimeNs / 1_000_000_000n)],
    ["ctime", String(stat.ctimeNs / 1_000_000_000n)],
  ];
  for (const [field, expected] of table) {
    assert.deepEqual(call(`filestat("${file}", "${field}")`), scalar(expected), field);
  }
  assert.deepEqual(call(`filestat("${dir}/sub", "permstr")`), scalar("drwxr-xr-x"));
});

test("time comparisons use whole seconds of mtime, atime and ctime", () => {
  const dir = makeTree();
  writeFileSync(join(dir, "old"), "o");
  writeFileSync(join(dir, "new"), "n");
  utimesSync(join(dir, "old"), 1_000_000, 1_000_000);
  utimesSync(join(dir, "new"), 2_000_000, 2_000_000);
  const table: [string, string][] = [
    [`isnewerthan("${dir}/new", "${dir}/old")`, "any"],
    [`isnewerthan("${dir}/old", "${dir}/new")`, "!any"],
    [`accessedbefore("${dir}/old", "${dir}/new")`, "any"],
    [`accessedbefore("${dir}/new", "${dir}/old")`, "!any"],
    [`changedbefore("${dir}/new", "${dir}/old")`, "!any"],
  ];
  for (const [text, expected] of table) assert.deepEqual(call(text), scalar(expected), text);
  assert.equal(call(`isnewerthan("${dir}/new", "${dir}/missing")`), undefined);
});

test("getfields defines the fields of the first matching line", () => {
  const dir = makeTree();
  const ctx = makeContext();
  assert.deepEqual(call(`getfields(".*:x:.*", "${dir}/fields.txt", ":", "f")`, ctx), scalar("2", "int"));
  assert.deepEqual(ctx.getVariable(parseVarRef("f[1]")), scalar("root"));
  assert.deepEqual(ctx.getVariable(parseVarRef("f[7]")), scalar("/bin/bash"));
  assert.equal(ctx.getVariable(parseVarRef("f[8]")), undefined);
});

test("lsdir and findfiles list what the directory holds", () => {
  const dir = makeTree();
  const listed = call(`lsdir("${dir}/sub/deep", "", "false")`);
  assert.deepEqual([...((listed?.value as string[]) ?? [])].sort(), [".", "..", "d.cf", "deeper"]);
  assert.deepEqual(call(`lsdir("${dir}/sub/deep", "d\\.cf", "true")`), {
    type: "slist",
    value: [`${dir}/sub/deep/d.cf`],
  });
  assert.deepEqual(call(`findfiles("${dir}/sub/*.cf", "${dir}/sub/*/*.cf")`), {
    type: "slist",
    value: [`${dir}/sub/c.cf`, `${dir}/sub/deep/d.cf`],
  });
  assert.deepEqual(call(`findfiles_up("${dir}/sub/deep", "c.cf")`), data([`${dir}/sub/c.cf`]));
});

test("glob rules: escapes, hidden files, ** depth", () => {
  const dir = makeTree();
  mkdirSync(join(dir, "x"));
  writeFileSync(join(dir, "x", "star*"), "");
  writeFileSync(join(dir, "x", "starry"), "");
  assert.deepEqual(globFileList(`${dir}/x/star\\*`), [`${dir}/x/star*`]);
  assert.deepEqual(globFileList(`${dir}/x/star*`), [`${dir}/x/star*`, `${dir}/x/starry`]);
  assert.deepEqual(globFileList(`${dir}/sub/*`).includes(`${dir}/sub/.hidden`), false);
  assert.deepEqual(globFileList(`${dir}/sub/**/e.cf`), [`${dir}/sub/deep/deeper/e.cf`]);
  assert.deepEqual(globFileList(`${dir}/**/c.cf`), [`${dir}/link-sub/c.cf`, `${dir}/sub/c.cf`]);
});

test("path helpers keep 3.21's edge cases", () => {
  const table: [string, string, string][] = [
    ["/a/b/c", "/a/b", "c"],
    ["/a/b/", "/a", "b"],
    ["/", "/", "/"],
    ["a", ".", "a"],
    ["", "", ""],
    ["///", "/", "/"],
  ];
  for (const [path, dir, base] of table) {
    assert.equal(cfDirname(path), dir, `dirname ${path}`);
    assert.equal(cfBasename(path), base, `basename ${path}`);
  }
  assert.equal(chopLastNode("/a/b/"), "/a/b");
  assert.equal(compressPath("/a/./b/../c//d"), "/a/c/d");
});

test("readfile reads /proc files and limits by bytes", () => {
  const dir = makeTree();
  const version = call('readfile("/proc/sys/kernel/ostype")');
  if (statSync("/proc/sys/kernel/ostype", { throwIfNoEntry: false })) {
    // One line: 3.21 drops its newline (cf-agent reports "Linux").
    assert.deepEqual(version, scalar("Linux"));
  }
  assert.deepEqual(call(`readfile("${dir}/a.txt", "1k")`), scalar("alpha\nbeta\ngamma\n"));
  assert.deepEqual(call(`readfile("${dir}/a.txt", "7")`), scalar("alpha\nb"));
  // A bounded read of an endless device stops at the limit (NULs cut the text).
  assert.deepEqual(call('readfile("/dev/zero", "10")'), scalar(""));
  assert.equal(((call('readfile("/dev/urandom", "100")')?.value ?? "") as string).length <= 100, true);
});

test("diskfree is the space available to users, in KiB; 0 when unknown", () => {
  const fs = statfsSync("/");
  const expected = Math.floor((fs.bavail * fs.bsize) / 1024);
  const got = Number((call('diskfree("/")') as { value: string }).value);
  // Other processes may write meanwhile: allow a little drift.
  assert.ok(Math.abs(got - expected) < 1024 * 100, `${got} vs ${expected}`);
  assert.deepEqual(call('diskfree("/nonexistent/x")'), scalar("0", "int"));
});
