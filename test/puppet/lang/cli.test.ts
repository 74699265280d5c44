import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { main } from "../../../src/cli/app.js";
import type { CliIo } from "../../../src/cli/io.js";
import { scratchDirectory } from "../../scratch.js";

async function tend(
  args: string[],
  cwd = process.cwd(),
): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: CliIo = {
    stdout: (t) => {
      out += t;
    },
    stderr: (t) => {
      err += t;
    },
    stdoutIsTTY: false,
    stderrIsTTY: false,
    env: { NO_COLOR: "1" },
    cwd,
  };
  const code = await main(args, io);
  return { code, out, err };
}

test("tend puppet parser dump prints Puppet's PN JSON (and PN text)", async () => {
  const json = await tend(["puppet", "parser", "dump", "-e", "include a, b"]);
  assert.equal(json.code, 0);
  assert.equal(
    json.out,
    '{"^":["invoke",{"#":["functor",{"^":["qn","include"]},"args",[{"^":["qn","a"]},{"^":["qn","b"]}]]}]}\n',
  );
  const pn = await tend(["puppet", "parser", "dump", "--format", "pn", "-e", "$x = [1, 2.0, undef]"]);
  assert.equal(pn.out, '(= (var "x") (array 1 2.0 nil))\n');
});

test("tend puppet parser dump and validate: files, EPP, errors as file:line:col, exit 1, no stack", async () => {
  const dir = scratchDirectory("tend-puppet-parser-");
  writeFileSync(join(dir, "ok.pp"), "notice(1)\n");
  writeFileSync(join(dir, "bad.pp"), "class a {\n  $x = \n}\n");
  writeFileSync(join(dir, "eof.pp"), "$y = [1,\n");
  writeFileSync(join(dir, "t.epp"), "<%- | $x | -%>\n<%= $x %>\n");
  const dump = await tend(["puppet", "parser", "dump", "ok.pp", "t.epp"], dir);
  assert.equal(dump.code, 0);
  assert.equal(dump.out.split("\n").length, 3);
  assert.match(dump.out, /"lambda"/);
  const bad = await tend(["puppet", "parser", "validate", "ok.pp", "bad.pp", "eof.pp", "missing.pp"], dir);
  assert.equal(bad.code, 1);
  assert.equal(bad.out, "");
  assert.match(bad.err, /^missing\.pp: cannot read: no such file$/m);
  assert.match(bad.err, /^bad\.pp:3:1: Syntax error at '}'$/m);
  assert.match(bad.err, /^eof\.pp:2:1: Syntax error at end of input$/m);
  assert.doesNotMatch(bad.err, /\n\s+at /);
  const good = await tend(["puppet", "parser", "validate", "ok.pp", "t.epp"], dir);
  assert.deepEqual([good.code, good.err], [0, ""]);
  const e = await tend(["puppet", "parser", "dump", "-e", "$x = ^"]);
  assert.deepEqual([e.code, e.err], [1, "<command line>:1:6: Syntax error at ''\n"]);
});

test("tend puppet parser: usage", async () => {
  assert.equal((await tend(["puppet", "parser"])).code, 1);
  assert.match((await tend(["puppet", "parser", "--help"])).out, /dump/);
  assert.equal((await tend(["puppet", "parser", "frob"])).code, 1);
  assert.equal((await tend(["puppet", "parser", "dump", "--format", "old", "-e", "1"])).code, 1);
});

test("tend puppet parser validate: Puppet's validation, every diagnostic as file:line:col", async () => {
  const dir = scratchDirectory("tend-puppet-validate-");
  writeFileSync(join(dir, "two.pp"), "$a + 1\n$b = 2\n$x[1] = 3\n");
  writeFileSync(join(dir, "warn.pp"), "$h = {a => 1, a => 2}\n");
  writeFileSync(join(dir, "ok.pp"), "notice(1)\n");
  const v = await tend(["puppet", "parser", "validate", "two.pp", "warn.pp", "ok.pp"], dir);
  assert.equal(v.code, 1);
  assert.equal(
    v.err,
    "two.pp:1:4: This '+' expression has no effect. A value was produced and then forgotten (one or more preceding expressions may have the wrong form)\n" +
      "two.pp:3:1: Illegal attempt to assign via [index/key]. Not an assignable reference\n" +
      "warn.pp:1:17: The key 'a' is declared more than once (warning)\n",
  );
  const w = await tend(["puppet", "parser", "validate", "warn.pp", "ok.pp"], dir);
  assert.equal(w.code, 0);
  // dump validates only with --validate, as Puppet's does
  const dump = await tend(["puppet", "parser", "dump", "two.pp", "ok.pp"], dir);
  assert.deepEqual([dump.code, dump.err, dump.out.split("\n").length], [0, "", 3]);
  const checked = await tend(["puppet", "parser", "dump", "--validate", "two.pp", "ok.pp"], dir);
  assert.equal(checked.code, 1);
  assert.equal(checked.out, '{"^":["invoke",{"#":["functor",{"^":["qn","notice"]},"args",[1]]}]}\n');
  assert.match(checked.err, /^two\.pp:3:1: Illegal attempt to assign via \[index\/key\]/m);
  const e = await tend([
    "puppet",
    "parser",
    "dump",
    "--validate",
    "-e",
    "class a { class b {} if true { node n {} } }",
  ]);
  assert.deepEqual(
    [e.code, e.err],
    [
      1,
      "<command line>:1:32: Classes, definitions, and nodes may only appear at toplevel or inside other classes\n",
    ],
  );
});
