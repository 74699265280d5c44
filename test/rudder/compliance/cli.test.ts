/**
 * `tend rudder compliance`: a node's compliance from its expected reports
 * and a run's output, as text (no colour without a terminal or with
 * NO_COLOR) and as JSON; bad input gives a diagnostic and exit code 1.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { main } from "../../../src/cli/app.js";
import type { CliIo } from "../../../src/cli/io.js";
import type { NodeComplianceJson, RunComplianceJson } from "../../../src/rudder/compliance/index.js";
import { scratchDirectory } from "../../scratch.js";

const DIR = fileURLToPath(new URL("../../../../test/fixtures/rudder/compliance/cli/", import.meta.url));

async function tend(args: string[], env: NodeJS.ProcessEnv = { NO_COLOR: "1" }) {
  let out = "";
  let err = "";
  const io: CliIo = {
    stdout: (t) => {
      out += t;
    },
    stderr: (t) => {
      err += t;
    },
    stdoutIsTTY: true,
    stderrIsTTY: false,
    env,
    cwd: DIR,
  };
  const code = await main(args, io);
  return { code, out, err };
}

test("compliance as text, per rule, directive, component and value", async () => {
  const r = await tend(["rudder", "compliance", "--policy", ".", "--output", "run.log"]);
  assert.equal(r.code, 0);
  assert.equal(
    r.out,
    [
      "node node1: 33.33% compliant (successRepaired 1, auditNonCompliant 1, unexpectedMissingComponent 1)",
      "  run: ComputeCompliance at 2026-11-26T15:58:24.000Z, config cfg-1 (expected cfg-1)",
      "rule r1: 50%",
      "  directive d1: 50%",
      "    File present: repaired 100%",
      "      /tmp/x: repaired — Presence of file",
      "    Cmd: missing 0%",
      "      /bin/true: missing — Missing report",
      "rule r2: 0%",
      "  directive d2: 0%",
      "    block blk (weighted): non compliant 0%",
      "      Lines: non compliant 0%",
      "        /tmp/y: non compliant — Lines missing in /tmp/y",
      "",
    ].join("\n"),
  );
  assert.equal(
    r.err,
    "run.log:5: warning: not a Rudder report: expected 8 fields separated by '@@', found 1\n",
  );
});

test("colour on a terminal unless NO_COLOR is set", async () => {
  const plain = await tend(["rudder", "compliance", "-p", ".", "-o", "run.log"]);
  assert.doesNotMatch(plain.out, /\x1b\[/);
  const coloured = await tend(["rudder", "compliance", "-p", ".", "-o", "run.log"], {});
  assert.match(coloured.out, /\x1b\[/);
});

test("compliance as JSON", async () => {
  const r = await tend(["rudder", "compliance", "-p", "expected-reports.json", "-o", "run.log", "--json"]);
  assert.equal(r.code, 0);
  const json = JSON.parse(r.out) as RunComplianceJson;
  assert.equal(json.runAnalysis.kind, "ComputeCompliance");
  assert.deepEqual(
    json.malformedReports.map((m) => [m.line, m.text]),
    [[5, "R: @@broken"]],
  );
  assert.deepEqual(json.complianceDetails, {
    successRepaired: 1,
    auditNonCompliant: 1,
    unexpectedMissingComponent: 1,
  });
  assert.deepEqual(
    json.rules.map((rule) => [rule.ruleId, rule.compliance]),
    [
      ["r1", 50],
      ["r2", 0],
    ],
  );
});

test("a run for another configuration: everything expected is missing, its reports unexpected", async () => {
  const dir = scratchDirectory("tend-rudder-compliance-");
  const other = (await import("node:fs"))
    .readFileSync(join(DIR, "run.log"), "utf8")
    .replaceAll("cfg-1", "cfg-0");
  writeFileSync(join(dir, "run.log"), other);
  const r = await tend(["rudder", "compliance", "-p", ".", "-o", join(dir, "run.log"), "--json"]);
  const json = JSON.parse(r.out) as NodeComplianceJson;
  assert.equal(json.runAnalysis.kind, "UnexpectedUnknownVersion");
  assert.deepEqual(json.complianceDetails, { unexpectedUnknownComponent: 2, unexpectedMissingComponent: 3 });
});

test("bad expected reports: a diagnostic with the JSON path, exit 1", async () => {
  const dir = scratchDirectory("tend-rudder-compliance-");
  writeFileSync(
    join(dir, "expected-reports.json"),
    JSON.stringify({ nodeId: "n", nodeConfigId: "c", ms: {}, rs: [{ ds: [] }], os: [] }),
  );
  const r = await tend(["rudder", "compliance", "-p", dir, "-o", "run.log"]);
  assert.equal(r.code, 1);
  assert.match(r.err, /expected-reports\.json: rs\[0\]\.rid: expected a string\n/);
});

test("missing options: usage, exit 1", async () => {
  const r = await tend(["rudder", "compliance", "-p", "."]);
  assert.equal(r.code, 1);
  assert.match(r.err, /--policy and --output are needed/);
});
