/**
 * Regex functions against the results cf-agent 3.21 gave for the same calls
 * (test/fixtures/functions/strings.json, family "regex"): PCRE's dialect
 * through regcmp, captures through (data_)regextract, and the list and class
 * matching functions.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { expandRval } from "../../../src/eval/expand.js";
import { scalar } from "../../../src/eval/values.js";
import { parseVarRef } from "../../../src/eval/var-ref.js";
import { rval } from "../helpers.js";
import { comparable, expected, loadRecorded, recordedContext } from "./strings-fixture.js";

const fixture = loadRecorded();
const ctx = recordedContext(fixture);
const cases = fixture.cases.filter((c) => c.family === "regex");

test("the recording has enough regex cases", () => {
  assert.ok(cases.length >= 120, `${cases.length} cases`);
});

/**
 * Constructs tend's translator refuses (JavaScript has no equivalent); the
 * pattern counts as invalid, so regcmp() is false where cf-agent matched.
 */
const UNSUPPORTED: ReadonlyMap<string, string> = new Map([
  ['regcmp("\\\\Ga", "a")', "!any"],
  ['regcmp("(?|a)", "a")', "!any"],
]);

for (const c of cases) {
  if (c.aborts) continue;
  test(`regex: ${c.call}`, () => {
    const got = comparable(expandRval(ctx, rval(c.call)), c);
    assert.deepEqual(got, UNSUPPORTED.get(c.call) ?? expected(c));
  });
}

test("regextract stores the captures in a classic array of the bundle", () => {
  assert.deepEqual(
    expandRval(ctx, rval('regextract("(?<k>\\\\w+)=(\\\\d+)", "a x=42 b", "m")')),
    scalar("any"),
  );
  assert.deepEqual(ctx.getVariable(parseVarRef("m[0]")), scalar("x=42"));
  assert.deepEqual(ctx.getVariable(parseVarRef("m[k]")), scalar("x"));
  assert.deepEqual(ctx.getVariable(parseVarRef("m[2]")), scalar("42"));
  assert.equal(ctx.getVariable(parseVarRef("m[1]")), undefined);
});

test("regline matches whole lines of a file", () => {
  const dir = mkdtempSync(join(tmpdir(), "tend-regline-"));
  try {
    const file = join(dir, "f.txt");
    writeFileSync(file, "alpha\nport=80\n\nlast");
    const call = (pattern: string, path = file) => expandRval(ctx, rval(`regline("${pattern}", "${path}")`));
    assert.deepEqual(call("port=\\\\d+"), scalar("any"));
    assert.deepEqual(call("port"), scalar("!any"));
    assert.deepEqual(call(""), scalar("any"));
    assert.deepEqual(call("last"), scalar("any"));
    assert.deepEqual(call("a.*", join(dir, "missing")), scalar("!any"));
    assert.equal(call("("), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
