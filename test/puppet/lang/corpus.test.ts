import assert from "node:assert/strict";
import { test } from "node:test";
import { judge, judgeValidation, loadRecorded, type Verdict } from "./corpus.js";

test("tend parses the Puppet language corpus as Puppet 7.23 does", () => {
  const recorded = loadRecorded();
  const verdicts: Verdict[] = Object.entries(recorded).map(([input, r]) => judge(input, r));
  const failed = verdicts.filter((v) => v.status === "fail");
  const passed = verdicts.filter((v) => v.status === "pass").length;
  assert.ok(verdicts.length > 1000, `the corpus has ${verdicts.length} inputs`);
  assert.deepEqual(
    failed.map((f) =>
      f.status === "fail" ? `${f.input}\n  puppet: ${f.expected}\n  tend:   ${f.actual}` : "",
    ),
    [],
    `${passed} of ${verdicts.length - (verdicts.length - passed - failed.length)} inputs pass`,
  );
});

test("every group of the corpus is present", () => {
  const groups = new Set(Object.keys(loadRecorded()).map((k) => k.split("/")[0]));
  for (const g of [
    "modules",
    "puppet-repo",
    "spec-snippets",
    "specifications",
    "handwritten",
    "errors",
    "epp",
  ]) {
    assert.ok(groups.has(g), g);
  }
});

test("at least 30 recorded syntax errors, each matched by message and position", () => {
  const recorded = loadRecorded();
  const errors = Object.entries(recorded).filter(([, r]) => r.syntax_error !== undefined);
  assert.ok(errors.length >= 30);
  for (const [input, r] of errors) assert.equal(judge(input, r).status, "pass", input);
});

test("tend validates the corpus as Puppet 7.23's checker does: every diagnostic, in order", () => {
  const recorded = loadRecorded();
  const verdicts = Object.entries(recorded).map(([input, r]) => judgeValidation(input, r));
  const failed = verdicts.filter((v) => v.status === "fail");
  const passed = verdicts.filter((v) => v.status === "pass").length;
  assert.ok(passed > 1400, `${passed} inputs compared`);
  assert.deepEqual(
    failed.map((f) =>
      f.status === "fail" ? `${f.input}\n  puppet: ${f.expected}\n  tend:   ${f.actual}` : "",
    ),
    [],
    `${passed} of ${passed + failed.length} inputs pass`,
  );
});

test("the corpus holds inputs Puppet's checker rejects, warns about and deprecates", () => {
  const recorded = Object.values(loadRecorded());
  const severities = new Set(recorded.flatMap((r) => (r.diagnostics ?? []).map((d) => d.severity)));
  for (const s of ["error", "warning", "deprecation"]) assert.ok(severities.has(s), s);
  const codes = new Set(recorded.flatMap((r) => (r.diagnostics ?? []).map((d) => d.code)));
  assert.ok(codes.size >= 35, `${codes.size} issue codes`);
  assert.ok(recorded.filter((r) => r.validation !== undefined).length >= 140);
});
