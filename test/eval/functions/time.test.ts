import assert from "node:assert/strict";
import { test } from "node:test";

// Dates are local time in 3.21; the fixture was recorded with TZ=UTC.
process.env.TZ = "UTC";

const { expandRval } = await import("../../../src/eval/expand.js");
const { scalar } = await import("../../../src/eval/values.js");
const { parseVarRef } = await import("../../../src/eval/var-ref.js");
const { makeContext, rval } = await import("../helpers.js");
const { caseCount, replayFamily } = await import("./system-fixture.js");

const call = (text: string, ctx = makeContext()) => expandRval(ctx, rval(text));
const nowSeconds = () => Math.floor(Date.now() / 1000);

test("time functions match cf-agent 3.21 on the recorded cases", () => {
  assert.ok(caseCount("time") >= 14);
  // ago() depends on the moment it runs: checked below against the clock.
  assert.deepEqual(replayFamily("time", new Set(['ago("0", "0", "0", "0", "0", "0")'])), []);
});

test("on() normalises out-of-range fields as mktime does", () => {
  const table: [string, string][] = [
    ['on("2020", "0", "0", "0", "0", "0")', "1577836800"],
    ['on("2020", "1", "28", "0", "0", "0")', "1582934400"],
    ['on("2019", "12", "0", "0", "0", "0")', "1577836800"],
    ['on("2020", "0", "0", "24", "0", "0")', "1577923200"],
    ['on("2020", "0", "0", "0", "0", "86400")', "1577923200"],
    ['on("1970", "0", "0", "0", "0", "1")', "1"],
  ];
  for (const [text, expected] of table) assert.deepEqual(call(text), scalar(expected, "int"), text);
});

test("accumulated() counts 30-day months and 365-day years", () => {
  const table: [string, string][] = [
    ['accumulated("0", "0", "1", "0", "0", "0")', "86400"],
    ['accumulated("0", "1", "0", "0", "0", "0")', String(30 * 86400)],
    ['accumulated("1", "0", "0", "0", "0", "0")', String(365 * 86400)],
    ['accumulated("0", "0", "0", "1", "1", "1")', "3661"],
  ];
  for (const [text, expected] of table) assert.deepEqual(call(text), scalar(expected, "int"), text);
});

test("ago() counts back from the current time", () => {
  const before = nowSeconds();
  const zero = Number((call('ago("0", "0", "0", "0", "0", "0")') as { value: string }).value);
  const hour = Number((call('ago("0", "0", "0", "1", "0", "0")') as { value: string }).value);
  const day = Number((call('ago("0", "0", "1", "0", "0", "0")') as { value: string }).value);
  const after = nowSeconds();
  assert.ok(zero >= before && zero <= after);
  assert.ok(Math.abs(zero - 3600 - hour) <= 1);
  assert.ok(Math.abs(zero - 86400 - day) <= 1);
  assert.deepEqual(call('ago("100", "0", "0", "0", "0", "0")'), scalar("0", "int"));
});

test("laterthan() compares with the current time (months and days from 1)", () => {
  const year = new Date().getUTCFullYear();
  assert.deepEqual(call(`laterthan("${year - 1}", "12", "31", "0", "0", "0")`), scalar("any"));
  assert.deepEqual(call(`laterthan("${year + 1}", "1", "1", "0", "0", "0")`), scalar("!any"));
});

test("now() is the run's start time (sys.systime), or the clock", () => {
  const ctx = makeContext();
  ctx.setVariable(parseVarRef("sys.systime"), scalar("1234567890", "int"));
  assert.deepEqual(call("now()", ctx), scalar("1234567890", "int"));
  const clock = Number((call("now()") as { value: string }).value);
  assert.ok(Math.abs(clock - nowSeconds()) <= 1);
});

test("time functions reject wrong arities", () => {
  assert.equal(call('on("2020", "0", "0")'), undefined);
  assert.equal(call('now("x")'), undefined);
});
