import assert from "node:assert/strict";
import { test } from "node:test";
import { expandRval } from "../../../src/eval/expand.js";
import { evaluateMath } from "../../../src/eval/functions/math-expression.js";
import { itemLess } from "../../../src/eval/functions/math.js";
import {
  doubleFromString,
  formatDouble,
  intFromString,
  truncateToInt64,
} from "../../../src/eval/functions/numbers.js";
import { scalar } from "../../../src/eval/values.js";
import { makeContext, rval } from "../helpers.js";
import { caseCount, replayFamily } from "./system-fixture.js";

const call = (text: string) => expandRval(makeContext({ l: ["3", "1", "2"] }), rval(text));

test("math functions match cf-agent 3.21 on the recorded cases", () => {
  assert.ok(caseCount("math") > 120);
  assert.deepEqual(replayFamily("math"), []);
});

test("IntFromString: units, inf, garbage and the no-integer marker", () => {
  const table: [string, bigint | undefined][] = [
    ["42", 42n],
    ["-7", -7n],
    ["  12", 12n],
    ["12 ", 12n],
    ["2k", 2000n],
    ["2K", 2048n],
    ["3m", 3_000_000n],
    ["1G", 1024n ** 3n],
    ["50%", -50n],
    ["150%", undefined],
    ["12x", 12n],
    ["12xy", undefined],
    ["12 k", undefined],
    ["abc", undefined],
    ["", undefined],
    ["inf", 999_999_999n],
    ["-678", undefined],
    ["99999999999999999999", 9_223_372_036_854_775_807n],
  ];
  for (const [raw, expected] of table) assert.equal(intFromString(raw), expected, raw);
  assert.equal(intFromString("now", 1234), 1234n);
});

test("DoubleFromString and %lf printing", () => {
  const reals: [string, number | undefined][] = [
    ["1.5", 1.5],
    ["1e3", 1000],
    ["2k", 2000],
    ["0x10", 16],
    [".5", 0.5],
    ["-123.45", undefined],
    ["abc", undefined],
    ["1.5xy", undefined],
  ];
  for (const [raw, expected] of reals) assert.equal(doubleFromString(raw), expected, raw);
  const printed: [number, string][] = [
    [1, "1.000000"],
    [-0, "-0.000000"],
    [1 / 3, "0.333333"],
    [1e21, "1000000000000000000000.000000"],
    [Number.POSITIVE_INFINITY, "inf"],
    [Number.NEGATIVE_INFINITY, "-inf"],
    [Number.NaN, "-nan"],
  ];
  for (const [value, expected] of printed) assert.equal(formatDouble(value), expected, String(value));
  assert.equal(truncateToInt64(1e30), -9_223_372_036_854_775_808n);
  assert.equal(truncateToInt64(-2.7), -2n);
});

test("the infix grammar: precedence, junk after a valid prefix, failures", () => {
  const table: [string, number | "error"][] = [
    ["1+2*3", 7],
    ["2*3^2", 36],
    ["1 < 2 + 1", 2],
    ["2 + 1 < 2", 0],
    ["(1 < 2) + 1", 2],
    ["10 % 4", 2],
    ["5 - 3 - 1", 1],
    ["sqrt(9)*2", 6],
    ["log2e", Math.LOG2E],
    ["2 kb", 2000],
    ["1_pi", 1],
    ["ceil(", "error"],
    ["*2", "error"],
  ];
  for (const [input, expected] of table) {
    const result = evaluateMath(input);
    if (expected === "error") assert.equal(result.ok, false, input);
    else assert.deepEqual(result, { ok: true, value: expected }, input);
  }
});

test("sort orders used by max() and min()", () => {
  assert.equal(itemLess("int", "9", "10"), true);
  assert.equal(itemLess("lex", "9", "10"), false);
  assert.equal(itemLess("real", "1.5", "1.25"), false);
  assert.equal(itemLess("IP", "10.0.0.2", "10.0.0.10"), true);
  assert.equal(itemLess("ip", "x", "10.0.0.1"), true);
  assert.equal(itemLess("MAC", "00:00:00:00:00:02", "00:00:00:00:00:10"), true);
  assert.equal(itemLess("int", "abc", "1"), true);
});

test("folds over inline JSON and variables", () => {
  assert.deepEqual(call('max("[1, 20, 3]", "int")'), scalar("20"));
  assert.deepEqual(call('min(l, "int")'), scalar("1"));
  assert.deepEqual(call("sum(l)"), scalar("6.000000", "real"));
  assert.deepEqual(call("mean('[1, 2]')"), scalar("1.500000", "real"));
  assert.equal(call('max("no_such_var", "int")'), undefined);
});

test("randomint stays within [low, high)", () => {
  for (let i = 0; i < 50; i++) {
    const value = Number((call('randomint("-3", "4")') as { value: string }).value);
    assert.ok(value >= -3 && value < 4, String(value));
  }
});
