import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { main } from "../../src/cli/app.js";
import type { CliIo } from "../../src/cli/io.js";
import { scratchDirectory } from "../scratch.js";

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

test("apply without a catalog compiles: a missing manifest, nothing to apply, a failing compile", async () => {
  const missing = await tend(["puppet", "apply", "nosuch-site.pp"]);
  assert.equal(missing.code, 1);
  assert.equal(missing.err, "Error: Could not find file nosuch-site.pp\n");
  const nothing = await tend(["puppet", "apply"]);
  assert.equal(nothing.code, 1);
  assert.match(nothing.err, /^Error: nothing to apply: .*--catalog FILE\.json\n$/);
  const root = scratchDirectory("tend-apply-e-");
  writeFileSync(join(root, "puppet.conf"), `[main]\nvardir = ${root}/var\ncodedir = ${root}/code\n`);
  const failing = await tend([
    "puppet",
    "apply",
    "--confdir",
    root,
    "--certname",
    "n1",
    "-e",
    "fail('stop')",
  ]);
  assert.equal(failing.code, 1);
  assert.match(failing.err, /^(Warning: .*\n)*Error: /);
  assert.doesNotMatch(failing.err, /\n\s+at /);
});

test("help and usage errors", async () => {
  assert.match((await tend(["puppet", "apply", "--help"])).out, /--detailed-exitcodes/);
  assert.equal((await tend(["puppet"])).code, 1);
  const bad = await tend(["puppet", "apply", "--frobnicate"]);
  assert.equal(bad.code, 1);
  assert.match(bad.err, /unknown option '--frobnicate'/);
  const level = await tend(["puppet", "apply", "--catalog", "x.json", "--log_level", "loud"]);
  assert.match(level.err, /unknown log level 'loud'/);
});

test("a catalog that cannot be read or is not JSON fails with exit 1 and no stack", async () => {
  const dir = scratchDirectory("tend-puppet-cli-");
  writeFileSync(join(dir, "bad.json"), "{ not json");
  writeFileSync(join(dir, "puppet.conf"), "");
  for (const file of ["missing.json", "bad.json"]) {
    const run = await tend(
      ["puppet", "apply", "--catalog", file, "--confdir", dir, "--vardir", join(dir, "var")],
      dir,
    );
    assert.equal(run.code, 1);
    assert.match(run.err, /^Error: /);
    assert.doesNotMatch(run.err, /\n\s+at /);
  }
});
