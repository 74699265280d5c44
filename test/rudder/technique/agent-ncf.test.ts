/**
 * A technique compiled by tend runs on tend's agent with ncf 8.3 and
 * reports as Rudder expects: `tend agent` (the built CLI) on the compiled
 * technique.cf, loaded beside ncf by a small driver policy (ncf's
 * list-compatible-inputs, the `g` variables ncf reads, the reporting
 * context and policy mode a Rudder agent sets). Everything it writes is in a
 * temporary directory. Skipped when no ncf tree is available (TEND_NCF or
 * the ncf mirror); the cf-agent comparison is skipped without cf-agent.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { compileTechnique, loadMethodLibrary } from "../../../src/rudder/technique/index.js";
import { runTend } from "../../cli/run-tend.js";
import { ncfTree } from "./ncf-tree.js";

const FIXTURE = fileURLToPath(
  new URL("../../../../test/fixtures/rudder/technique/tend_demo/technique.yml", import.meta.url),
);
const CF_AGENT = "/usr/bin/cf-agent";
const IDS = "6f1e3b52-0a0b-4c7e-9d41-2f6a1c1b000";

function driver(tree: string, dir: string, technique: string): string {
  return `body common control
{
  inputs => { @{lib.files}, "${technique}" };
  bundlesequence => { "main" };
}
body agent control
{
  ifelapsed => "1";
}
bundle common lib
{
  vars:
    "ncf_tree" string => "${tree}";
    "framework" string => execresult("/bin/sh \${ncf_tree}/10_ncf_internals/list-compatible-inputs --ncf-path \${ncf_tree} 10_ncf_internals 20_cfe_basics 30_generic_methods", "useshell");
    "relative" slist => splitstring("\${framework}", "\\n", 10000);
    "files" slist => maplist("\${ncf_tree}/\${this}", relative);
}
bundle common g
{
  vars:
    "rudder_var" string => "${dir}/var";
    "rudder_base" string => "${dir}/base";
    "uuid" string => "fb264042-a1b8-4770-b090-a398ea6fbbc3";
    "rudder_node_config_id" string => "1";
    "execRun" string => "2026-11-27 00:00:00+00:00";
}
bundle agent main
{
  methods:
    "init" usebundle => initialization;
    "context" usebundle => rudder_reporting_context_v4("directive_id", "rule_id", "tend_demo", "", "", "report_id");
    "mode" usebundle => set_dry_run_mode("false");
    "run" usebundle => tend_demo("${dir}/files");
}
`;
}

/** `event report-id-suffix key` for each Rudder report line of a run. */
function reports(output: string): string[] {
  return output
    .split("\n")
    .filter((l) => l.startsWith("R: @@tend_demo@@"))
    .map((l) => {
      const f = l.slice(3).split("@@");
      return `${f[2]} ${(f[5] ?? "").replace(IDS, "")} ${f[7]}`;
    });
}

function prepare(t: import("node:test").TestContext): { dir: string; policy: string } | undefined {
  const { tree, reason } = ncfTree(t);
  if (!tree) {
    t.skip(reason);
    return undefined;
  }
  const library = loadMethodLibrary([tree]);
  const result = compileTechnique(readFileSync(FIXTURE, "utf8"), FIXTURE, { methods: library.methods });
  assert.ok(result.ok, JSON.stringify(result.diagnostics));
  const dir = mkdtempSync(join(tmpdir(), "tend-rudder-agent-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "files"));
  writeFileSync(join(dir, "technique.cf"), result.technique.files.get("technique.cf") as string);
  const policy = join(dir, "main.cf");
  writeFileSync(policy, driver(tree, dir, join(dir, "technique.cf")));
  return { dir, policy };
}

const FIRST_RUN = [
  "result_repaired 2 /FILES/hello",
  "result_repaired 4 /FILES/hello",
  "result_na 5 /FILES/hello",
  "audit_noncompliant 6 /FILES/hello",
  "result_repaired 7 /bin/true",
];

test("a compiled technique runs on tend's agent with ncf and reports as Rudder expects", (t) => {
  const setup = prepare(t);
  if (!setup) return;
  const { dir, policy } = setup;
  const run = () => runTend(["agent", "-K", `--workdir=${join(dir, "tend")}`, "-f", policy], { cwd: dir });
  const first = run();
  assert.equal(first.code, 0, first.stderr + first.stdout.slice(0, 3000));
  const files = join(dir, "files");
  assert.deepEqual(
    reports(first.stdout).map((r) => r.replace(files, "/FILES")),
    FIRST_RUN,
  );
  assert.equal(readFileSync(join(files, "hello"), "utf8"), "hello world\n");
  const second = run();
  assert.deepEqual(
    reports(second.stdout).map((r) => r.replace(files, "/FILES")),
    [
      "result_success 2 /FILES/hello",
      "result_success 4 /FILES/hello",
      "result_na 5 /FILES/hello",
      "audit_noncompliant 6 /FILES/hello",
      "result_repaired 7 /bin/true",
    ],
  );
});

test("cf-agent 3.21 runs the same compiled technique with the same reports", (t) => {
  if (!existsSync(CF_AGENT)) return t.skip(`${CF_AGENT} is not installed`);
  const setup = prepare(t);
  if (!setup) return;
  const { dir, policy } = setup;
  const workdir = join(dir, "cfengine");
  mkdirSync(join(workdir, "bin"), { recursive: true });
  copyFileSync("/usr/bin/cf-promises", join(workdir, "bin", "cf-promises"));
  const run = spawnSync(CF_AGENT, ["-K", `--workdir=${workdir}`, "-f", policy], {
    cwd: dir,
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(run.status, 0, run.stderr);
  const files = join(dir, "files");
  assert.deepEqual(
    reports(run.stdout).map((r) => r.replace(files, "/FILES")),
    FIRST_RUN,
  );
});
