/**
 * String functions against the results cf-agent 3.21 gave for the same
 * calls (test/fixtures/functions/strings.json), plus a few behaviours the
 * recording cannot show.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { expandRval } from "../../../src/eval/expand.js";
import { collectedFunctionMessages } from "../../../src/eval/functions/messages.js";
import { intFromString } from "../../../src/eval/functions/strings.js";
import { strftime } from "../../../src/eval/functions/strftime.js";
import { scalar } from "../../../src/eval/values.js";
import { rval } from "../helpers.js";
import { comparable, expected, loadRecorded, recordedContext } from "./strings-fixture.js";

const fixture = loadRecorded();
const ctx = recordedContext(fixture);
const cases = fixture.cases.filter((c) => c.family === "strings");

test("the recording has enough string cases", () => {
  assert.ok(cases.length >= 200, `${cases.length} cases`);
});

for (const c of cases) {
  // Calls cf-agent aborted on have literal arguments outside the function's
  // declared range: tend's validator rejects them before evaluation.
  if (c.aborts) continue;
  test(`strings: ${c.call}`, () => {
    const got = comparable(expandRval(ctx, rval(c.call)), c);
    assert.deepEqual(got, expected(c));
  });
}

test("failures are logged", () => {
  expandRval(ctx, rval('regex_replace("abc", "(", "x", "g")'));
  const messages = collectedFunctionMessages(ctx).filter((m) => m.fn === "regex_replace");
  assert.ok(messages.some((m) => m.level === "error" && m.message.includes("missing )")));
});

test("intFromString reads integers as 3.21 does", () => {
  const table: [string, number][] = [
    ["12", 12],
    [" 7", 7],
    ["1k", 1000],
    ["2K", 2048],
    ["3m", 3e6],
    ["1M", 1024 ** 2],
    ["1g", 1e9],
    ["1G", 1024 ** 3],
    ["inf", 999999999],
    ["12abc", -678],
    ["abc", -678],
    ["50%", -50],
    ["", -678],
  ];
  for (const [raw, want] of table) assert.equal(intFromString(raw), want, raw);
  assert.equal(
    intFromString("now", () => 42),
    42,
  );
});

test("strftime in the local zone follows the process time zone", () => {
  const local = strftime("%H:%M %z", 0, false) ?? "";
  const date = new Date(0);
  const hours = String(date.getHours()).padStart(2, "0");
  assert.ok(local.startsWith(`${hours}:`), local);
  assert.equal(strftime("%Z|%z", 0, true), "GMT|+0000");
});

test("string_mustache without data uses the variables and classes", () => {
  const got = expandRval(
    ctx,
    rval('string_mustache("{{vars.main.s}}|{{#classes.myclass_one}}yes{{/classes.myclass_one}}")'),
  );
  assert.deepEqual(got, scalar("hello world|yes"));
});
