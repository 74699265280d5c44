/**
 * Compliance percentages as Rudder rounds them: the cases of rudder-core's
 * TestComplianceLevel.scala (branch 8.3), inputs and expected results
 * copied as data.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  complianceWithoutPending,
  computePercent,
  levelFromArray,
  sortLevels,
  withoutPending,
} from "../../../src/rudder/compliance/compliance-level.js";

test("sort smallest first", () => {
  const c = levelFromArray([12, 1, 3, 4, 9, 11, 0, 8, 5, 2, 6, 13, 10, 7]);
  assert.deepEqual(
    sortLevels(c).map((p) => p[0]),
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13],
  );
});

test("sort equals in order of worse last", () => {
  const c = levelFromArray([4, 4, 4, 4, 9, 11, 1, 4, 5, 2, 6, 13, 10, 7]);
  assert.deepEqual(sortLevels(c), [
    [1, 6],
    [2, 9],
    [4, 7],
    [4, 1],
    [4, 0],
    [4, 2],
    [4, 3],
    [5, 8],
    [6, 10],
    [7, 13],
    [9, 4],
    [10, 12],
    [11, 5],
    [13, 11],
  ]);
});

test("sort error after missing", () => {
  const c = levelFromArray([0, 2, 0, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0]);
  assert.deepEqual(sortLevels(c), [
    [0, 7],
    [0, 10],
    [0, 9],
    [0, 0],
    [0, 8],
    [0, 6],
    [0, 2],
    [0, 11],
    [0, 12],
    [0, 4],
    [0, 13],
    [2, 1],
    [2, 5],
    [2, 3],
  ]);
});

/** [name, counters in field order, precision, ignore pending, expected percents, expected compliance] */
const ROUNDING: ReadonlyArray<
  readonly [string, number[], number, boolean, Record<string, number>, number | undefined]
> = [
  [
    "never below precision: 0.01 by default",
    [0, 1, 0, 100000],
    2,
    false,
    { repaired: 0, success: 0.01, error: 99.99 },
    undefined,
  ],
  [
    "never below precision: can be 0 digits",
    [0, 1, 0, 100000],
    0,
    false,
    { repaired: 0, success: 1, error: 99 },
    undefined,
  ],
  [
    "never below precision: or 5 digits",
    [0, 1, 0, 1000000000],
    5,
    false,
    { repaired: 0, success: 0.00001, error: 99.99999 },
    undefined,
  ],
  [
    "sum to 100 with default precision",
    [0, 1, 1, 1],
    2,
    false,
    { success: 33.33, repaired: 33.33, error: 33.34 },
    66.66,
  ],
  [
    "sum to 100 ignoring pending",
    [12, 1, 1, 1],
    2,
    true,
    { success: 33.33, repaired: 33.33, error: 33.34 },
    66.66,
  ],
  ["sum to 100 with 0 digits", [0, 1, 1, 1], 0, false, { success: 33, repaired: 33, error: 34 }, 66],
  [
    "sum to 100 with 0 digits ignoring pending",
    [5, 1, 1, 1],
    0,
    true,
    { success: 33, repaired: 33, error: 34 },
    66,
  ],
  [
    "0 digits, ignoring pending, small error",
    [5, 1000, 1000, 1],
    0,
    true,
    { success: 49, repaired: 50, error: 1 },
    99,
  ],
  [
    "0 digits keeps ordering",
    [0, 200, 199, 1, 1, 1, 1],
    0,
    true,
    { success: 49, repaired: 47, error: 1, unexpected: 1, missing: 1 },
    96,
  ],
];

for (const [name, counters, precision, ignorePending, percents, compliance] of ROUNDING) {
  test(`percent: ${name}`, () => {
    const level = levelFromArray(counters);
    const pc = computePercent(ignorePending ? withoutPending(level) : level, precision);
    for (const [counter, value] of Object.entries(percents))
      assert.equal(pc[counter as keyof typeof pc], value, counter);
    if (compliance !== undefined) assert.equal(complianceWithoutPending(level, precision), compliance);
  });
}

/** [name, counters, ignore pending, expected compliance share] */
const COMPLIANCE: ReadonlyArray<readonly [string, number[], boolean, number]> = [
  ["66.66 with default precision", [0, 1, 1, 1], false, 66.66],
  ["error not rounded up", [0, 1, 1, 4], false, 33.32],
  ["error not rounded up, ignoring pending", [1, 2, 2, 8], true, 33.32],
  ["error not rounded up, ignoring pending, direct", [1, 2, 2, 8], true, 33.32],
];

for (const [name, counters, ignorePending, expected] of COMPLIANCE) {
  test(`compliance: ${name}`, () => {
    const level = levelFromArray(counters);
    assert.equal(computePercent(ignorePending ? withoutPending(level) : level).compliance, expected);
  });
}
