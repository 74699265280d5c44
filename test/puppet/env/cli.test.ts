/**
 * `tend puppet catalog compile`: Puppet's options and Puppet's lines for the
 * failures decided before the compiler runs (a failing classifier, a
 * missing environment), as recorded from Puppet 7.23 in
 * test/fixtures/puppet-env/cli/.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { main } from "../../../src/cli/app.js";
import type { CliIo } from "../../../src/cli/io.js";
import { scratchDirectory } from "../../scratch.js";

const FIXTURES = fileURLToPath(new URL("../../../../test/fixtures/puppet-env/cli/", import.meta.url));

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

function write(path: string, text = "", mode?: number): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  if (mode !== undefined) chmodSync(path, mode);
}

/** Puppet's recorded stderr with the oracle's scratch path as `root`'s, its help hint as tend's. */
function recorded(name: string, root: string): string {
  return readFileSync(join(FIXTURES, name), "utf8")
    .replaceAll("/ROOT", root)
    .replace(
      "Error: Try 'puppet help catalog compile' for usage",
      "Error: Try 'tend puppet catalog --help' for usage",
    );
}

function scratchPuppet(): string {
  const root = scratchDirectory("tend-catalog-cli-");
  write(join(root, "etc/puppet.conf"), `[main]\nvardir = ${root}/var\ncodedir = ${root}/code\n`);
  mkdirSync(join(root, "code/environments/production/manifests"), { recursive: true });
  return root;
}

test("a failing classifier: Puppet's four lines, then the help hint, exit 1", async () => {
  const root = scratchPuppet();
  write(join(root, "code/enc.sh"), readFileSync(join(FIXTURES, "../code/enc.sh"), "utf8"), 0o755);
  const run = await tend([
    "puppet",
    "catalog",
    "compile",
    "enc-fail.example.com",
    "--confdir",
    join(root, "etc"),
    "--facts_terminus",
    "json",
    "--render-as",
    "json",
    "--node_terminus",
    "exec",
    "--external_nodes",
    join(root, "code/enc.sh"),
  ]);
  assert.equal(run.code, 1);
  assert.equal(run.out, readFileSync(join(FIXTURES, "enc-fail.stdout"), "utf8"));
  assert.equal(run.err, recorded("enc-fail.stderr", root));
});

test("a missing environment: Puppet's message (Puppet itself ends with a Ruby backtrace)", async () => {
  const root = scratchPuppet();
  const run = await tend([
    "puppet",
    "catalog",
    "compile",
    "node1.example.com",
    "--confdir",
    join(root, "etc"),
    "--environment",
    "nosuch",
  ]);
  assert.equal(run.code, 1);
  assert.equal(run.out, "");
  assert.equal(
    run.err.split("\n")[0],
    `Error: Could not find a directory environment named 'nosuch' anywhere in the path: ${root}/code/environments. Does the directory exist?`,
  );
});

test("usage: the node is needed, json only, unknown options refused", async () => {
  const none = await tend(["puppet", "catalog", "compile"]);
  assert.equal(none.code, 1);
  assert.match(none.err, /the node's name is missing/);
  const yaml = await tend(["puppet", "catalog", "compile", "n1", "--render-as", "yaml"]);
  assert.equal(yaml.code, 1);
  assert.match(yaml.err, /json only/);
  const unknown = await tend(["puppet", "catalog", "compile", "n1", "--frobnicate"]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.err, /unknown option '--frobnicate'/);
  const help = await tend(["puppet", "catalog", "--help"]);
  assert.equal(help.code, 0);
  assert.match(help.out, /^Usage: tend puppet catalog compile NODE/);
  const action = await tend(["puppet", "catalog", "download"]);
  assert.equal(action.code, 1);
});
