/**
 * The attacker (`nobody`) owns a directory root's policy acts in, and
 * replaces a subdirectory with a link to a directory of root's: no files
 * promise may then change anything through the link. Each case runs under
 * tend and, when installed, under cf-agent 3.21 (which protects the same
 * seven cases): tend must never do worse.
 */
import assert from "node:assert/strict";
import { chownSync, lchownSync, lstatSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  ATTACK_KINDS,
  attackPolicy,
  attackSkipReason,
  cfAgentSkipReason,
  makeAttackTree,
  NOBODY,
  plantLink,
  runCfAgent,
  runTendAgent,
  snapshotTree,
  writePolicy,
} from "./attack.js";

const REFUSAL = /Cannot follow symlink '[^']*userhome\/app[^']*'; it is not owned by root/;

for (const kind of ATTACK_KINDS) {
  test(`${kind} through a link nobody planted changes nothing (tend)`, { skip: attackSkipReason() }, () => {
    const tree = makeAttackTree();
    const app = plantLink(tree);
    const before = snapshotTree(tree.target);
    const policy = writePolicy(join(tree.root, "policy.cf"), attackPolicy(kind, app, tree.source));
    const run = runTendAgent(policy, join(tree.root, "wd-tend"));
    assert.equal(run.status, 0, run.output);
    assert.deepEqual(snapshotTree(tree.target), before, run.output);
    assert.match(run.output, REFUSAL);
    assert.match(run.output, /error: /);
  });

  test(`${kind} through a link nobody planted changes nothing (cf-agent 3.21, the reference)`, {
    skip: attackSkipReason() ?? cfAgentSkipReason(),
  }, () => {
    const tree = makeAttackTree();
    const app = plantLink(tree);
    const before = snapshotTree(tree.target);
    const policy = writePolicy(join(tree.root, "policy.cf"), attackPolicy(kind, app, tree.source));
    const run = runCfAgent(policy, join(tree.root, "wd-cfa"));
    assert.deepEqual(snapshotTree(tree.target), before, run.output);
    assert.match(run.output, REFUSAL);
  });
}

test("a link of root's own is still followed (the refusal is only for others' links)", {
  skip: attackSkipReason(),
}, () => {
  const tree = makeAttackTree();
  const app = join(tree.home, "rootlink");
  symlinkSync(tree.target, app);
  assert.equal(lstatSync(app).uid, 0);
  const policy = writePolicy(join(tree.root, "policy.cf"), attackPolicy("perms", app, tree.source));
  const run = runTendAgent(policy, join(tree.root, "wd-tend"));
  assert.equal(run.status, 0, run.output);
  assert.ok(
    snapshotTree(tree.target).some((l) => l.startsWith("passwd 666 ")),
    run.output,
  );
});

test("a link whose target has the link's owner is followed (cf-agent's rule)", {
  skip: attackSkipReason(),
}, () => {
  const tree = makeAttackTree();
  const own = join(tree.home, "real");
  mkdirSync(own);
  writeFileSync(join(own, "passwd"), "mine\n", { mode: 0o644 });
  chownSync(own, NOBODY, NOBODY);
  chownSync(join(own, "passwd"), NOBODY, NOBODY);
  const app = join(tree.home, "app");
  symlinkSync(own, app);
  lchownSync(app, NOBODY, NOBODY);
  const policy = writePolicy(join(tree.root, "policy.cf"), attackPolicy("perms", app, tree.source));
  const run = runTendAgent(policy, join(tree.root, "wd-tend"));
  assert.equal(run.status, 0, run.output);
  assert.doesNotMatch(run.output, REFUSAL);
  assert.ok(
    snapshotTree(own).some((l) => l.startsWith("passwd 666 ")),
    run.output,
  );
});
