/**
 * Rudder end to end: a configuration directory (three techniques on ncf
 * generic methods, five directives, three rules, two groups) generated for
 * one node with `tend rudder generate`, run by `tend agent` (the built CLI)
 * with ncf 8.3, and its compliance read by `tend rudder compliance`; then a
 * file changed by hand is non-compliant in audit mode and repaired in
 * enforce mode. The same generated policy run by cf-agent 3.21 (in a
 * private mount namespace with a scratch work directory over
 * /var/lib/cfengine3) gives the same compliance. Everything is written under
 * a temporary directory. Skipped without an ncf tree (TEND_NCF or the ncf
 * mirror); the cf-agent part is skipped without cf-agent or unshare.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, type TestContext, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { NodeComplianceJson } from "../../../src/rudder/compliance/index.js";
import { runTend } from "../../cli/run-tend.js";
import { ncfTree } from "../technique/ncf-tree.js";

const CONFIG = fileURLToPath(
  new URL("../../../../test/fixtures/rudder/compliance/e2e/config/", import.meta.url),
);
const NODE = "e2e-node";
const CF_AGENT = "/usr/bin/cf-agent";

/** The driver Rudder's system policy would be: ncf, the run's g variables, start and end markers. */
function promisesCf(tree: string, dir: string, configId: string): string {
  return `body common control
{
  inputs => { @{tend_e2e_lib.files}, "rudder-directives.cf" };
  bundlesequence => { "tend_e2e_main" };
}
bundle common tend_e2e_lib
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
    "uuid" string => "${NODE}";
    "rudder_node_config_id" string => "${configId}";
    "execRun" string => "2026-11-27 00:00:00+00:00";
}
bundle common tend_e2e_run
{
  classes:
    "rudder_is_full_run" expression => "any";
}
bundle agent tend_e2e_main
{
  methods:
    "init" usebundle => initialization;
    "start" usebundle => startExecution;
    "directives" usebundle => rudder_directives;
    "end" usebundle => endExecution;
}
`;
}

interface Setup {
  readonly dir: string;
  readonly policy: string;
  readonly work: string;
}

/** Clean-ups run when the file's tests end: the cf-agent test reuses tend's setup. */
const cleanups: Array<() => void> = [];
after(() => {
  for (const clean of cleanups.reverse()) clean();
});
const fileScope = { after: (fn: () => void) => cleanups.push(fn) } as unknown as TestContext;

function prepare(t: TestContext): Setup | undefined {
  const { tree, reason } = ncfTree(fileScope);
  if (!tree) {
    t.skip(reason);
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), "tend-rudder-e2e-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const work = join(dir, "work");
  cpSync(CONFIG, join(dir, "config"), { recursive: true });
  const nodeFile = join(dir, "config", "nodes", `${NODE}.json`);
  writeFileSync(nodeFile, readFileSync(nodeFile, "utf8").replace("@WORK@", work));
  const ncf = relative(dir, join(tree, "30_generic_methods"));
  const gen = runTend(
    ["rudder", "generate", "--config", "config", "--node", NODE, "-o", "policy", "--ncf", ncf],
    { cwd: dir },
  );
  assert.equal(gen.code, 0, gen.stderr);
  const policy = join(dir, "policy");
  const expected = JSON.parse(readFileSync(join(policy, "expected-reports.json"), "utf8")) as {
    nodeConfigId: string;
  };
  writeFileSync(join(policy, "promises.cf"), promisesCf(tree, dir, expected.nodeConfigId));
  return { dir, policy, work };
}

/** The compliance of one run's output, as `tend rudder compliance --json` gives it. */
function compliance(setup: Setup, output: string, name: string): NodeComplianceJson {
  const log = join(setup.dir, `${name}.log`);
  writeFileSync(log, output);
  const r = runTend(["rudder", "compliance", "-p", setup.policy, "-o", log, "--json"], {
    cwd: setup.dir,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "", "the run's output reads without problems");
  return JSON.parse(r.stdout) as NodeComplianceJson;
}

type Agent = (setup: Setup) => string;

const tendAgent: Agent = (setup) => {
  const r = runTend(
    ["agent", "-K", `--workdir=${join(setup.dir, "tend")}`, "-f", join(setup.policy, "promises.cf")],
    { cwd: setup.dir },
  );
  assert.equal(r.code, 0, r.stderr + r.stdout.slice(0, 2000));
  return r.stdout;
};

const cfAgent: Agent = (setup) => {
  const workdir = join(setup.dir, "cfengine");
  mkdirSync(join(workdir, "bin"), { recursive: true });
  cpSync("/usr/bin/cf-promises", join(workdir, "bin", "cf-promises"));
  const r = spawnSync(
    "unshare",
    [
      "-m",
      "sh",
      "-c",
      'mount --bind "$0" /var/lib/cfengine3 && exec "$@"',
      workdir,
      CF_AGENT,
      "-K",
      "-f",
      join(setup.policy, "promises.cf"),
    ],
    { cwd: setup.dir, encoding: "utf8", timeout: 60_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
};

/** A status per component: `rule directive component: status`. */
function statuses(json: NodeComplianceJson): string[] {
  return json.rules.flatMap((rule) =>
    rule.directives.flatMap((d) =>
      d.components.map((c) => `${rule.ruleId} ${d.directiveId} ${c.name}: ${c.status}`),
    ),
  );
}

/**
 * Three runs: from nothing; after writing the audited file as it should
 * be; after changing both files by hand. Returns each run's compliance.
 */
function scenario(setup: Setup, agent: Agent): NodeComplianceJson[] {
  rmSync(setup.work, { recursive: true, force: true });
  mkdirSync(setup.work);
  const first = compliance(setup, agent(setup), "first");
  writeFileSync(join(setup.work, "b"), "beta\n");
  const second = compliance(setup, agent(setup), "second");
  writeFileSync(join(setup.work, "a"), "changed by hand\n");
  writeFileSync(join(setup.work, "b"), "changed by hand\n");
  const third = compliance(setup, agent(setup), "third");
  assert.equal(readFileSync(join(setup.work, "a"), "utf8"), "alpha\n", "enforce mode repaired a");
  assert.equal(readFileSync(join(setup.work, "b"), "utf8"), "changed by hand\n", "audit mode left b");
  return [first, second, third];
}

/** tend's runs, for the cf-agent test to compare with. */
let tendRuns: { setup: Setup; runs: NodeComplianceJson[] } | undefined;

test("generate, run on tend's agent with ncf, and read compliance; audit and enforce after a change", (t) => {
  const setup = prepare(t);
  if (!setup) return;
  const runs = scenario(setup, tendAgent);
  tendRuns = { setup, runs };
  const [first, second, third] = runs as [NodeComplianceJson, NodeComplianceJson, NodeComplianceJson];
  assert.equal(first.runAnalysis.kind, "ComputeCompliance");
  assert.deepEqual(first.complianceDetails, {
    successAlreadyOK: 2,
    successRepaired: 7,
    auditNonCompliant: 2,
  });
  assert.deepEqual(statuses(first), [
    "e2e-rule-audit e2e-dir-file-b File present: AuditNonCompliant",
    "e2e-rule-audit e2e-dir-file-b File content: AuditNonCompliant",
    "e2e-rule-files e2e-dir-file-a File present: EnforceRepaired",
    "e2e-rule-files e2e-dir-file-a File content: EnforceRepaired",
    "e2e-rule-files e2e-dir-perms-a Permissions: EnforceRepaired",
    "e2e-rule-markers e2e-dir-marker-d Marker: EnforceRepaired",
    "e2e-rule-markers e2e-dir-marker-d Check: EnforceSuccess",
    "e2e-rule-markers e2e-dir-marker-e Marker: EnforceRepaired",
    "e2e-rule-markers e2e-dir-marker-e Check: EnforceSuccess",
  ]);
  assert.equal(second.compliance, 100);
  assert.deepEqual(second.complianceDetails, { successAlreadyOK: 9, auditCompliant: 2 });
  assert.deepEqual(third.complianceDetails, {
    successAlreadyOK: 8,
    successRepaired: 1,
    auditCompliant: 1,
    auditNonCompliant: 1,
  });
  assert.deepEqual(
    statuses(third).filter((s) => !s.endsWith("EnforceSuccess")),
    [
      "e2e-rule-audit e2e-dir-file-b File present: AuditCompliant",
      "e2e-rule-audit e2e-dir-file-b File content: AuditNonCompliant",
      "e2e-rule-files e2e-dir-file-a File content: EnforceRepaired",
    ],
  );
});

test("cf-agent 3.21 runs the same generated policy with the same compliance", (t) => {
  if (!existsSync(CF_AGENT)) return t.skip(`${CF_AGENT} is not installed`);
  if (spawnSync("unshare", ["-m", "true"]).status !== 0)
    return t.skip("unshare -m is not available (needs root)");
  if (!tendRuns) return t.skip("tend's runs did not happen (no ncf tree)");
  const withCfAgent = scenario(tendRuns.setup, cfAgent);
  assert.deepEqual(withCfAgent, tendRuns.runs);
});
