/**
 * Functions that read files, given what never ends (/dev/zero), what is
 * large but empty (a 2 GB sparse file) and what is large (a file past the
 * read limit): each finishes in bounded memory with cf-agent's outcome
 * where cf-agent has one (it never returns from several of these), a
 * clear error past the limit, and real digests.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { closeSync, openSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { READ_LIMIT } from "../../src/eval/functions/file-read.js";
import { scratchDirectory } from "../scratch.js";
import { runTendAgent } from "../security/attack.js";

const dir = scratchDirectory("tend-reads-");
const sparse = join(dir, "sparse");
const large = join(dir, "large");
const LINE = `${"x".repeat(99)}\n`;
const LINES = Math.ceil((READ_LIMIT + 1) / LINE.length);

/** A file of 2 GiB that takes no space, and one of lines just past the read limit. */
function makeFiles(): void {
  const fd = openSync(sparse, "w");
  writeSync(fd, Buffer.from([0]), 0, 1, 2 * 1024 * 1024 * 1024 - 1);
  closeSync(fd);
  writeFileSync(large, LINE.repeat(LINES));
}

function run(body: string): string {
  const policy = join(dir, `p${Math.random().toString(36).slice(2)}.cf`);
  writeFileSync(policy, `bundle agent main\n{\n${body}\n}\n`, { mode: 0o600 });
  const result = runTendAgent(policy, join(dir, "work"));
  assert.equal(result.status, 0, result.output);
  return result.output;
}

makeFiles();

test("readfile and readstringlist of /dev/zero and a sparse file are empty at once", () => {
  const output = run(`  vars:
    "f" slist => { "/dev/zero", "${sparse}" };
    "c[$(f)]" string => canonify("$(f)");
    "r_$(c[$(f)])" int => string_length(readfile("$(f)"));
    "k_$(c[$(f)])" int => string_length(readfile("$(f)", 1000));
    "l_$(c[$(f)])" int => length(readstringlist("$(f)", "#", "\\n", 10, 100000));
    "n_$(c[$(f)])" int => countlinesmatching("x.*", "$(f)");
  reports:
    "$(f) $(r_$(c[$(f)])) $(k_$(c[$(f)])) $(l_$(c[$(f)])) $(n_$(c[$(f)]))";`);
  assert.match(output, /R: \/dev\/zero 0 0 0 0/);
  assert.match(output, new RegExp(`R: ${sparse} 0 0 0 0`));
});

test("a file past the read limit: readfile is refused, line readers and digests stream it", () => {
  const output = run(`  vars:
    "whole" string => readfile("${large}");
    "head" int => string_length(readfile("${large}", 1000));
    "lines" int => countlinesmatching("x.*", "${large}");
    "md5" string => file_hash("${large}", "md5");
  classes:
    "found" expression => regline("x+", "${large}");
  reports:
    "head $(head) lines $(lines) md5 $(md5)";
    found::
      "regline found";`);
  assert.match(output, /error: CfReadFile: Error while reading file '.*large' \(larger than 32 MiB/);
  const md5 = createHash("md5").update(LINE.repeat(LINES)).digest("hex");
  assert.match(output, new RegExp(`R: head 1000 lines ${LINES} md5 ${md5}`));
  assert.match(output, /R: regline found/);
});

test("file_hash of a 2 GiB sparse file is its real digest; of /dev/zero, the unread digest", () => {
  const output = run(`  vars:
    "sparse" string => file_hash("${sparse}", "md5");
    "zero" string => file_hash("/dev/zero", "md5");
  reports:
    "sparse $(sparse) zero $(zero)";`);
  // md5sum of 2 GiB of zero bytes; /dev/zero has no end, so its digest is
  // the unread one (3.21's for a file it cannot read), found within the limit.
  assert.match(output, /R: sparse a981130cf2b7e09f4686dc273cf7187e zero 0{32}/);
});
