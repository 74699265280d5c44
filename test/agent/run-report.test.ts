import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { Ajv } from "ajv";
import { scratchDirectory } from "../scratch.js";

const schema = JSON.parse(readFileSync("schema/run-report.schema.json", "utf8")) as object;

function runJson(policy: string): unknown {
  const workdir = scratchDirectory("tend-report-");
  const result = spawnSync(process.execPath, ["bin/tend.js", "agent", "-K", "--json", "-f", policy], {
    env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: workdir },
    encoding: "utf8",
  });
  assert.equal(result.status, 0, result.stderr);
  return JSON.parse(result.stdout);
}

test("tend agent --json produces a report valid against the shipped schema", () => {
  const report = runJson("./test/fixtures/agent/report.cf") as {
    promises: { type: string; promiser: string; classes: string[]; pass: number }[];
    classes: string[];
  };
  const validate = new Ajv({ allErrors: true }).compile(schema);
  assert.ok(validate(report), JSON.stringify(validate.errors, null, 2));
  const reports = report.promises.filter((p) => p.type === "reports").map((p) => p.promiser);
  assert.deepEqual(reports, ["helper a", "helper b", "item a", "item b"]);
  const methods = report.promises.filter((p) => p.type === "methods");
  assert.deepEqual(
    methods.map((p) => p.classes),
    [["called_kept"], ["called_kept"]],
  );
  assert.ok(report.classes.includes("called_kept"));
});
