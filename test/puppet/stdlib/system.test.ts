/**
 * stdlib's glob and validate_cmd (they reach the compiling machine): glob
 * against Ruby's own Dir.glob on the same temporary tree when ruby is
 * installed, and validate_cmd's success and failure messages.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { CallContext } from "../../../src/puppet/eval/functions/registry.js";
import { glob, rubyGlob, validate_cmd } from "../../../src/puppet/eval/functions/stdlib/system.js";

const ctx = {} as CallContext;

function tree(t: { after(f: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "tend-glob-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const d of ["etc/a", "etc/b/c", "etc/.hidden", "opt"]) mkdirSync(join(dir, d), { recursive: true });
  for (const f of [
    "etc/x.conf",
    "etc/y.conf",
    "etc/a/z.conf",
    "etc/b/c/w.conf",
    "etc/.dot.conf",
    "etc/.hidden/h.conf",
    "opt/q.txt",
    "etc/b/n1",
    "etc/b/n2",
  ])
    writeFileSync(join(dir, f), "");
  return dir;
}

const PATTERNS = [
  "etc/*.conf",
  "etc/**/*.conf",
  "etc/.*.conf",
  "{etc,opt}/*",
  "etc/b/n[12]",
  "etc/b/n?",
  "etc/b/n[!1]",
  "etc/missing/*",
  "etc/x.conf",
  "etc/nope.conf",
  "**/*.txt",
  "etc/*/",
];

test("glob finds what Ruby's Dir.glob finds (sorted; hidden names only when named)", (t) => {
  const dir = tree(t);
  const abs = (p: string) => join(dir, p);
  assert.deepEqual(rubyGlob(abs("etc/*.conf")), [abs("etc/x.conf"), abs("etc/y.conf")]);
  assert.deepEqual(rubyGlob(abs("etc/**/*.conf")), [
    abs("etc/a/z.conf"),
    abs("etc/b/c/w.conf"),
    abs("etc/x.conf"),
    abs("etc/y.conf"),
  ]);
  assert.deepEqual(glob(ctx, [[abs("opt/*"), abs("etc/b/n?")]], undefined), [
    abs("opt/q.txt"),
    abs("etc/b/n1"),
    abs("etc/b/n2"),
  ]);
  assert.throws(() => glob(ctx, [1n], undefined), /glob\(\): Requires either array or string to work/);
  assert.throws(() => glob(ctx, [], undefined), /glob\(\): Wrong number of arguments given \(0 for 1\)/);
  if (spawnSync("ruby", ["--version"]).status !== 0) {
    t.diagnostic("ruby is not installed: the comparison with Dir.glob is skipped");
    return;
  }
  const ruby = spawnSync(
    "ruby",
    ["-rjson", "-e", "puts JSON.generate(ARGV.map { |p| Dir.glob(p) })", ...PATTERNS.map(abs)],
    { encoding: "utf8" },
  );
  const want = JSON.parse(ruby.stdout) as string[][];
  for (const [i, p] of PATTERNS.entries()) assert.deepEqual(rubyGlob(abs(p)), want[i], p);
});

test("validate_cmd passes content a command accepts and fails with the command's output otherwise", () => {
  assert.equal(validate_cmd(ctx, ["hello\n", "grep -q hello"], undefined), undefined);
  assert.equal(validate_cmd(ctx, ["hello\n", "grep -q hello % "], undefined), undefined);
  assert.throws(() => validate_cmd(ctx, ["bye\n", "grep -q hello"], undefined), {
    message:
      /^validate_cmd\(\): failed to validate content with command "grep -q hello"\nExecution of 'grep -q hello \/.*' returned 1: $/,
  });
  assert.throws(
    () => validate_cmd(ctx, ["x", "sh -c 'echo bad >&2; exit 3' --", "Custom failed"], undefined),
    { message: /^Custom failed\nExecution of .* returned 3: bad$/ },
  );
  assert.throws(() => validate_cmd(ctx, ["x"], undefined), /wrong number of arguments \(1; must be 2 or 3\)/);
});
