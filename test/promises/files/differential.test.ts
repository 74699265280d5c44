/** The same policies through cf-agent 3.21 and tend: same files, modes, contents, info lines and R: lines. */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { CF_AGENT, lines, makeCase, runCfAgent, runTend, snapshot } from "./helpers.js";

const POLICY = `files:
  "$(d)/a" create => "true", perms => m("640");
  "$(d)/b" create => "true";
  "$(d)/dir/sub/." create => "true";
  "$(d)/deep/er/f" create => "true";
  "$(d)/c" content => "hello$(const.n)world";
  "$(d)/x" perms => m("u+rwx,go-w");
  "$(d)/gone" delete => tidy;
  "$(d)/emptydir" delete => tidy;
  "$(d)/w" perms => m("600"), action => warn_only;
  "$(d)/missing" perms => m("644");
  "$(d)/r.*" perms => m("0600"), pathtype => "regex";
reports:
  "done";`;

function setUp(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  writeFileSync(join(dir, "x"), "x");
  chmodSync(join(dir, "x"), 0o666);
  writeFileSync(join(dir, "w"), "w");
  chmodSync(join(dir, "w"), 0o644);
  writeFileSync(join(dir, "gone"), "");
  mkdirSync(join(dir, "emptydir"));
  for (const name of ["r1", "r2"]) {
    writeFileSync(join(dir, name), name);
    chmodSync(join(dir, name), 0o664);
  }
}

const infos = (run: { stdout: string; stderr: string }) =>
  lines(run as never, "info").concat(lines(run as never, "R"));

test("files promises match cf-agent: resulting tree, info lines, reports", {
  skip: !existsSync(CF_AGENT),
}, () => {
  const c = makeCase(POLICY);
  const results = [runCfAgent, runTend].map((run) => {
    setUp(c.dir);
    const first = run(c.policy, c.root);
    const second = run(c.policy, c.root);
    return { tree: snapshot(c.dir), first: infos(first), second: infos(second) };
  });
  const [cfagent, tend] = results;
  assert.deepEqual(tend.tree, cfagent.tree);
  assert.deepEqual(tend.first, cfagent.first);
  assert.deepEqual(tend.second, cfagent.second);
});
