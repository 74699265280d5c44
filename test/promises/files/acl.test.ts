/**
 * `acl` bodies as far as tend keeps them: the owner, group and other
 * entries (the permission bits), with cf-agent's methods and mode strings
 * (the bits checked against what cf-agent 3.21 left on the same files);
 * entries tend cannot keep fail the promise with a message saying why.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { lines, makeCase, runTend } from "./helpers.js";

const modeOf = (path: string) => (statSync(path).mode & 0o7777).toString(8);

/** Closes the test bundle, adds bodies, and opens an empty one for makeCase to close. */
const bodies = (extra = "") => `}
body acl a(m, x, y, z) { acl_method => "$(m)"; aces => { "$(x)", "$(y)", "$(z)" }; }
${extra}
bundle agent unused {`;

test("acl: overwrite then append on the owner, group and other entries", () => {
  const c = makeCase(`files:
  "$(d)/f" acl => a("overwrite", "user:*:=rw:allow", "group:*:=r:allow", "all:=r:allow");
  "$(d)/f" acl => a("append", "all:+w:allow", "group:*:-r", "user:*:+x");
  "$(d)/d" acl => a("overwrite", "user:*:=rwx:allow", "group:*:=rx:allow", "all:=:allow");
  "$(d)/k" acl => a("append", "user:*:=rw", "group:*:(r)", "all:-rwx");
${bodies()}`);
  writeFileSync(join(c.dir, "f"), "x");
  chmodSync(join(c.dir, "f"), 0o600);
  mkdirSync(join(c.dir, "d"));
  writeFileSync(join(c.dir, "k"), "k");
  chmodSync(join(c.dir, "k"), 0o640);
  const run = runTend(c.policy, c.root);
  // The bits cf-agent 3.21 left on the same files with the same promises.
  assert.equal(modeOf(join(c.dir, "f")), "706");
  assert.equal(modeOf(join(c.dir, "d")), "750");
  assert.equal(modeOf(join(c.dir, "k")), "640");
  assert.deepEqual(lines(run, "info"), [
    `Access ACL on '${c.dir}/f' successfully changed`,
    `Access ACL on '${c.dir}/f' successfully changed`,
    `Access ACL on '${c.dir}/d' successfully changed`,
  ]);
});

test("acl: named users, masks and default ACLs fail, saying tend cannot keep them", () => {
  const c = makeCase(`files:
  "$(d)/f" acl => a("append", "user:root:rwx", "group:*:r", "all:r");
  "$(d)/d/." create => "true", acl => inherit;
${bodies(`body acl inherit { acl_default => "access"; aces => { "user:*:rwx" }; }`)}`);
  writeFileSync(join(c.dir, "f"), "x");
  chmodSync(join(c.dir, "f"), 0o600);
  const run = runTend(c.policy, c.root);
  assert.equal(modeOf(join(c.dir, "f")), "600", "nothing changed");
  const errors = lines(run, "error");
  assert.ok(
    errors.some((l) =>
      l.startsWith("ACL entries for named users or groups ('user:root:rwx') cannot be kept"),
    ),
  );
  assert.ok(
    errors.some((l) => l.startsWith(`Default ACLs of directories (acl_default => "access") cannot be kept`)),
  );
  assert.ok(errors.includes(`Errors encountered when actuating files promise '${c.dir}/f'`));
});

test("acl: a deny entry is refused by the generic ACL type, as in cf-agent", () => {
  const c = makeCase(`files:
  "$(d)/f" acl => a("append", "all:=rw:deny", "group:*:r", "all:r");
${bodies()}`);
  writeFileSync(join(c.dir, "f"), "x");
  const run = runTend(c.policy, c.root);
  const errors = lines(run, "error");
  assert.ok(errors.includes("Deny permission not supported by this ACL type"), errors.join("\n"));
  assert.ok(errors.includes(`Syntax error in access control list for '${c.dir}/f'`));
});
