import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { lines, makeCase, runTend } from "./helpers.js";

const modeOf = (path: string) => (statSync(path).mode & 0o7777).toString(8);

test("create makes a file (0600 by default) and a directory for a promiser ending in /.", () => {
  const c = makeCase(`files:
  "$(d)/a" create => "true";
  "$(d)/b" create => "true", perms => m("640");
  "$(d)/sub/deep/." create => "true";`);
  const run = runTend(c.policy, c.root);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(modeOf(join(c.dir, "a")), "600");
  assert.equal(modeOf(join(c.dir, "b")), "640");
  assert.ok(statSync(join(c.dir, "sub/deep")).isDirectory());
  assert.deepEqual(lines(run, "info"), [
    `Created file '${c.dir}/a', mode 0600`,
    `Created file '${c.dir}/b', mode 0640`,
    `Created directory '${c.dir}/sub/deep/.'`,
  ]);
  assert.deepEqual(lines(runTend(c.policy, c.root), "info"), [], "a second run changes nothing");
});

test("perms: octal and symbolic modes, kept when already right", () => {
  const c = makeCase(`files:
  "$(d)/x" perms => m("u+rwx,go-w");
  "$(d)/y" perms => m("0644");`);
  writeFileSync(join(c.dir, "x"), "x");
  chmodSync(join(c.dir, "x"), 0o666);
  writeFileSync(join(c.dir, "y"), "y");
  chmodSync(join(c.dir, "y"), 0o644);
  const run = runTend(c.policy, c.root);
  assert.equal(modeOf(join(c.dir, "x")), "744");
  assert.deepEqual(lines(run, "info"), [`Object '${c.dir}/x' had permissions 0666, changed it to 0744`]);
});

test("content writes the exact text once, creating the file", () => {
  const c = makeCase(`files:
  "$(d)/c" content => "one$(const.n)two";
reports:
  "repaired" if => "repaired_c";`);
  const run = runTend(c.policy, c.root);
  assert.equal(readFileSync(join(c.dir, "c"), "utf8"), "one\ntwo");
  assert.equal(modeOf(join(c.dir, "c")), "600");
  assert.equal(lines(run, "info").length, 2);
  assert.deepEqual(lines(runTend(c.policy, c.root), "info"), []);
});

test("delete removes files and (with rmdirs) empty directories only", () => {
  const c = makeCase(`files:
  "$(d)/f" delete => tidy;
  "$(d)/empty" delete => tidy;
  "$(d)/full" delete => tidy;`);
  writeFileSync(join(c.dir, "f"), "");
  mkdirSync(join(c.dir, "empty"));
  mkdirSync(join(c.dir, "full"));
  writeFileSync(join(c.dir, "full/keep"), "");
  const run = runTend(c.policy, c.root);
  assert.equal(existsSync(join(c.dir, "f")), false);
  assert.equal(existsSync(join(c.dir, "empty")), false);
  assert.equal(existsSync(join(c.dir, "full/keep")), true);
  assert.deepEqual(lines(run, "info"), [`Deleted file '${c.dir}/f'`, `Deleted directory '${c.dir}/empty'`]);
});

test("action_policy warn reports each change as a warning and changes nothing", () => {
  const d = makeCase(`files:
  "$(d)/new" create => "true", action => warn_only;
  "$(d)/gone" delete => tidy, action => warn_only;
  "$(d)/old" content => "zz", action => warn_only;`);
  writeFileSync(join(d.dir, "gone"), "g");
  writeFileSync(join(d.dir, "old"), "o");
  const run = runTend(d.policy, d.root);
  assert.equal(existsSync(join(d.dir, "new")), false);
  assert.equal(readFileSync(join(d.dir, "old"), "utf8"), "o");
  assert.equal(existsSync(join(d.dir, "gone")), true);
  const warnings = lines(run, "warning");
  assert.ok(warnings.includes(`Should create file '${d.dir}/new', mode '0600', but only warning promised`));
  assert.ok(
    warnings.includes(`Should update file '${d.dir}/old' with content 'zz', but only warning promised`),
  );
  assert.ok(warnings.includes(`Warnings encountered when actuating files promise '${d.dir}/gone'`));
});

test("rename: disable moves the file aside (disable_mode); newname renames", () => {
  const c = makeCase(`files:
  "$(d)/a" rename => off;
  "$(d)/b" rename => to("b2");
}
body rename off { disable => "true"; disable_mode => "0600"; }
body rename to(n) { newname => "$(n)"; }
bundle agent unused {`);
  writeFileSync(join(c.dir, "a"), "a");
  writeFileSync(join(c.dir, "b"), "b");
  runTend(c.policy, c.root);
  assert.equal(modeOf(join(c.dir, "a.cfdisabled")), "600");
  assert.equal(readFileSync(join(c.dir, "b2"), "utf8"), "b");
  assert.equal(existsSync(join(c.dir, "b")), false);
});
