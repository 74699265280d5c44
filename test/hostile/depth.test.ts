/**
 * Input whose depth is the attacker's choice: nested parentheses in class
 * expressions and guards, long chains of inputs, nested variable references,
 * deep JSON and YAML, endless bundle recursion; and files that are not
 * policy text (a NUL byte, a FIFO). Each ends in cf-agent's outcome or a
 * diagnostic, never an internal error or a hang.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { MAX_BUNDLE_DEPTH } from "../../src/agent/engine.js";
import { runTend } from "../cli/run-tend.js";
import { scratchDirectory } from "../scratch.js";
import { runTendAgent } from "../security/attack.js";

function policyFile(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  chmodSync(path, 0o600);
  return path;
}

function agent(text: string): { status: number | null; output: string } {
  const dir = scratchDirectory("tend-depth-");
  return runTendAgent(policyFile(dir, "policy.cf", text), join(dir, "work"));
}

function check(path: string): { status: number | null; output: string } {
  const run = runTend(["check", "-f", path]);
  return { status: run.code, output: `${run.stdout}${run.stderr}` };
}

const NO_INTERNAL_ERROR = /internal error|Maximum call stack|FATAL ERROR/;

test("5,000 nested parentheses in a class expression and a guard run as in 3.21", () => {
  const deep = `${"(".repeat(5000)}any${")".repeat(5000)}`;
  const run = agent(`bundle agent main
{
  classes:
    "x" expression => "${deep}";
  reports:
    x.${deep}::
      "deep ok";
}
`);
  assert.doesNotMatch(run.output, NO_INTERNAL_ERROR);
  assert.match(run.output, /R: deep ok/);
  assert.equal(run.status, 0);
});

test("5,000 negations are a class expression error, as in 3.21", () => {
  const run = agent(`bundle agent main
{
  classes:
    "x" expression => "${"!".repeat(5000)}any";
  reports:
    !x::
      "not defined";
}
`);
  assert.doesNotMatch(run.output, NO_INTERNAL_ERROR);
  assert.match(run.output, /error: Unable to parse class expression '!!!!/);
  assert.match(run.output, /R: not defined/);
});

test("a chain of 2,000 inputs files loads, as cf-promises loads it", () => {
  const dir = scratchDirectory("tend-chain-");
  const count = 2000;
  for (let i = 0; i < count; i++) {
    const next = i + 1 < count ? `\n  inputs => { "c${i + 1}.cf" };` : "";
    policyFile(dir, `c${i}.cf`, `body file control\n{${next}\n}\nbundle agent b${i} { reports: "b${i}"; }\n`);
  }
  const main = policyFile(
    dir,
    "main.cf",
    `body common control\n{\n  bundlesequence => { "main", "b${count - 1}" };\n  inputs => { "c0.cf" };\n}\nbundle agent main\n{\n  reports:\n    "main";\n}\n`,
  );
  const checked = check(main);
  assert.equal(checked.status, 0, checked.output);
  const run = runTendAgent(main, join(dir, "work"));
  assert.doesNotMatch(run.output, NO_INTERNAL_ERROR);
  assert.match(run.output, new RegExp(`R: b${count - 1}`));
});

test("variable references nested past 3.21's ten levels stay text", () => {
  const run = agent(`bundle agent main
{
  vars:
    "a" string => "a";
    "x" string => "${"$(a".repeat(5000)}${")".repeat(5000)}";
  reports:
    "length $(with)" with => string_length("$(x)");
}
`);
  assert.doesNotMatch(run.output, NO_INTERNAL_ERROR);
  assert.match(run.output, /R: length \$\(with\)|R: length \d+/);
});

test("JSON and YAML nested past 1,000 levels are refused, not a crash", () => {
  const json = `${"[".repeat(5000)}1${"]".repeat(5000)}`;
  const run = agent(`bundle agent main
{
  vars:
    "j" data => parsejson('${json}');
    "y" data => parseyaml('${json}');
    "shallow" data => parsejson('${"[".repeat(900)}1${"]".repeat(900)}');
    "s" string => format("%S", shallow);
  classes:
    "j_ok" expression => isvariable("j");
    "y_ok" expression => isvariable("y");
  reports:
    "shallow $(with)" with => string_length("$(s)");
    !j_ok.!y_ok::
      "deep refused";
}
`);
  assert.doesNotMatch(run.output, NO_INTERNAL_ERROR);
  assert.match(run.output, /R: shallow 1801/);
  assert.match(run.output, /R: deep refused/);
});

test("endless bundle recursion stops with an error (cf-agent crashes)", () => {
  const run = agent(`bundle agent main
{
  methods:
    "r" usebundle => r("0");
}
bundle agent r(n)
{
  vars:
    "m" string => eval("$(n)+1", "math", "infix");
  methods:
    "r" usebundle => r("$(m)");
}
`);
  assert.doesNotMatch(run.output, NO_INTERNAL_ERROR);
  assert.match(
    run.output,
    new RegExp(`error: Bundle 'r' is called ${MAX_BUNDLE_DEPTH + 1} bundles deep, more than tend allows`),
  );
  assert.equal(run.status, 0);
});

test("a NUL byte in policy is an error with its place; a FIFO is refused at once", () => {
  const dir = scratchDirectory("tend-nul-");
  const nul = policyFile(dir, "nul.cf", 'bundle agent main\n{\n  reports:\n    "a\0b";\n}\n');
  const checked = check(nul);
  assert.equal(checked.status, 1);
  assert.match(checked.output, /nul\.cf:4:7: error: a NUL byte: a policy file is text/);
  const fifo = join(dir, "fifo.cf");
  spawnSync("mkfifo", [fifo]);
  chmodSync(fifo, 0o600);
  const refused = check(fifo);
  assert.equal(refused.status, 1);
  assert.match(refused.output, /cannot read policy file '.*fifo\.cf': is not a regular file/);
  mkdirSync(join(dir, "work"));
  const run = runTendAgent(fifo, join(dir, "work"));
  assert.match(run.output, /is not a regular file/);
  assert.notEqual(run.status, null, "the agent finished");
});

test("every input that once crashed tend runs through the agent without an internal error", () => {
  const crashes = fileURLToPath(new URL("../../../test/fixtures/fuzz/crashes/", import.meta.url));
  const dir = scratchDirectory("tend-crashes-");
  for (const name of readdirSync(crashes).filter((n) => n.endsWith(".cf"))) {
    const policy = join(dir, name);
    copyFileSync(join(crashes, name), policy);
    chmodSync(policy, 0o600);
    const run = runTendAgent(policy, join(dir, "work"));
    assert.doesNotMatch(run.output, NO_INTERNAL_ERROR, name);
    assert.notEqual(run.status, null, `${name}: the agent finished`);
  }
});
