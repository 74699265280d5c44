/**
 * `acl` bodies on POSIX ACLs, differentially against cf-agent 3.21: the
 * same policy runs under both agents (twice: the second run must keep what
 * the first made) on files of their own, and the ACLs `getfacl` shows,
 * and the info and error lines, must be the same. Needs the acl package's
 * getfacl/setfacl (tend keeps ACLs through them) and cf-agent; skipped
 * with the reason otherwise.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { type AgentRun, CF_AGENT, lines, makeCase, runCfAgent, runTend } from "./helpers.js";

const hasAclTools = spawnSync("getfacl", ["--version"]).status === 0;
const skip = !hasAclTools
  ? "getfacl/setfacl (the acl package) are not installed"
  : !existsSync(CF_AGENT)
    ? "cf-agent 3.21 is not installed (the reference)"
    : false;

/** Closes the test bundle, adds bodies, and opens an empty one for makeCase to close. */
const bodies = `}
body acl a(m, x) { acl_method => "$(m)"; aces => { "$(x)" }; }
body acl three(m, x, y, z) { acl_method => "$(m)"; aces => { "$(x)", "$(y)", "$(z)" }; }
body acl named { acl_method => "overwrite";
  aces => { "user:*:rw", "group:*:r", "all:r", "user:nobody:rwx", "group:daemon:r" }; }
body acl posix_mask { acl_type => "posix"; acl_method => "append"; aces => { "user:nobody:rwx", "mask:rx" }; }
body acl inherit(x) { acl_method => "append"; aces => { "$(x)" }; acl_default => "access"; }
body acl specify { acl_method => "append"; aces => { "group:daemon:rx" }; acl_default => "specify";
  specify_default_aces => { "user:*:rwx", "group:*:rx", "all:", "user:nobody:r" }; }
body acl clear { acl_default => "clear"; aces => { "user:*:rwx" }; }
bundle agent unused {`;

const POLICY = `files:
  "$(d)/named1" create => "true", acl => a("append", "user:nobody:rx");
  "$(d)/group-only" create => "true", acl => a("overwrite", "group:daemon:rw");
  "$(d)/owner" create => "true", acl => a("append", "user:*:rw");
  "$(d)/bits" create => "true", perms => m("600");
  "$(d)/bits" acl => three("overwrite", "user:*:=rw:allow", "group:*:=r:allow", "all:=r:allow");
  "$(d)/bits" acl => three("append", "all:+w:allow", "group:*:-r", "user:*:+x");
  "$(d)/native" create => "true", acl => three("append", "user:*:=rw", "group:*:(r)", "all:-rwx");
  "$(d)/named" create => "true", acl => named;
  "$(d)/mask" create => "true", acl => posix_mask;
  "$(d)/unknown" create => "true", acl => a("append", "user:nosuchuser-tend:rx");
  "$(d)/dir/." create => "true", acl => inherit("user:nobody:rwx");
  "$(d)/dir2/." create => "true", acl => specify;
  "$(d)/dir3/." create => "true", acl => specify;
  "$(d)/dir3/." acl => clear;
  "$(d)/file-default" create => "true", acl => clear;
${bodies}`;

interface Outcome {
  readonly acls: string;
  readonly info: string[];
  readonly errors: string[];
}

function outcome(run: AgentRun, dir: string): Outcome {
  const relative = (l: string) => l.split(dir).join("DIR");
  const facl = spawnSync("getfacl", ["-R", "."], { cwd: dir, encoding: "utf8" });
  return {
    acls: facl.stdout,
    info: lines(run, "info").map(relative),
    errors: lines(run, "error")
      .map(relative)
      .filter((l) => !l.startsWith("Promise belongs to bundle")),
  };
}

test("acl: named users and groups, masks and default ACLs, as cf-agent 3.21 keeps them", { skip }, () => {
  const runs: Record<string, Outcome[]> = {};
  for (const [engine, run] of [
    ["cf-agent", runCfAgent],
    ["tend", runTend],
  ] as const) {
    const c = makeCase(POLICY);
    runs[engine] = [outcome(run(c.policy, c.root), c.dir), outcome(run(c.policy, c.root), c.dir)];
  }
  const [cfFirst, cfSecond] = runs["cf-agent"];
  const [tendFirst, tendSecond] = runs.tend;
  assert.match(cfFirst.acls, /user:nobody:rwx/, `cf-agent set no named entry: ${cfFirst.errors.join("\n")}`);
  assert.equal(tendFirst.acls, cfFirst.acls, "ACLs after the first run");
  assert.deepEqual(tendFirst.info, cfFirst.info, "info lines of the first run");
  assert.deepEqual(tendFirst.errors, cfFirst.errors, "error lines of the first run");
  assert.equal(tendSecond.acls, cfSecond.acls, "ACLs after the second run");
  assert.deepEqual(tendSecond.info, cfSecond.info, "info lines of the second run (nothing to change)");
  assert.deepEqual(tendSecond.errors, cfSecond.errors, "error lines of the second run");
});

test("acl: a deny entry is refused by the generic ACL type, as in cf-agent", () => {
  const c = makeCase(`files:
  "$(d)/f" create => "true", acl => three("append", "all:=rw:deny", "group:*:r", "all:r");
${bodies}`);
  const run = runTend(c.policy, c.root);
  const errors = lines(run, "error");
  assert.ok(errors.includes("Deny permission not supported by this ACL type"), errors.join("\n"));
  assert.ok(errors.includes(`Syntax error in access control list for '${c.dir}/f'`));
});

// Regression: copy_from with preserve and edit_line dropped named entries (the
// copy and the edited file are new files; 3.21 gives them the old ACLs).
const CARRIED = `files:
  "$(d)/src" create => "true", acl => a("append", "user:nobody:wx");
  "$(d)/src-plain" create => "true";
  "$(d)/preserved" copy_from => cp("$(d)/src", "true");
  "$(d)/not-preserved" copy_from => cp("$(d)/src", "false");
  "$(d)/plain" copy_from => cp("$(d)/src-plain", "true");
  "$(d)/edited" create => "true", acl => a("append", "group:daemon:rx");
  "$(d)/edited" edit_line => add;
${bodies}
}
body copy_from cp(from, keep) { source => "$(from)"; preserve => "$(keep)"; }
bundle edit_line add { insert_lines: "New line!"; }
bundle agent unused2 {`;

test("acl: copy_from preserve and edits keep named entries, as in cf-agent 3.21", { skip }, () => {
  const runs: Record<string, Outcome[]> = {};
  for (const [engine, run] of [
    ["cf-agent", runCfAgent],
    ["tend", runTend],
  ] as const) {
    const c = makeCase(CARRIED);
    runs[engine] = [outcome(run(c.policy, c.root), c.dir), outcome(run(c.policy, c.root), c.dir)];
  }
  const [cfFirst, cfSecond] = runs["cf-agent"];
  const [tendFirst, tendSecond] = runs.tend;
  assert.match(cfFirst.acls, /# file: preserved\n(.*\n)*user:nobody:-wx/, "cf-agent copied the named entry");
  assert.match(
    tendFirst.acls,
    /# file: preserved\n(.*\n)*user:nobody:-wx/,
    "named entry of the preserved copy",
  );
  assert.match(tendFirst.acls, /# file: edited\n(.*\n)*group:daemon:r-x/, "named entry of the edited file");
  assert.equal(tendFirst.acls, cfFirst.acls, "ACLs after the first run");
  assert.deepEqual(tendFirst.info, cfFirst.info, "info lines of the first run");
  assert.deepEqual(tendFirst.errors, cfFirst.errors, "error lines of the first run");
  assert.equal(tendSecond.acls, cfSecond.acls, "ACLs after the second run");
  assert.deepEqual(tendSecond.info, cfSecond.info, "info lines of the second run (nothing to change)");
  assert.deepEqual(tendSecond.errors, cfSecond.errors, "error lines of the second run");
});
