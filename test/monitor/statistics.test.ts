/**
 * cf-monitord 3.21's statistics with fixed inputs: the weighted average,
 * the anomaly damping, learning a sample, the classes and the time key.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  classify,
  emptyStat,
  entropyClass,
  learn,
  newLearner,
  rejectAnomaly,
  timeKey,
  weightedAverage,
} from "../../src/monitor/statistics.js";

const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-9, `${a} ≉ ${b}`);

test("the weighted average learns eagerly while young, then leans on experience", () => {
  close(weightedAverage(10, 0, 0, 0.7), 7);
  close(weightedAverage(10, 20, 1.9, 0.7), 13);
  close(weightedAverage(10, 20, 2, 0.7), 17);
  // A forget rate outside 0.1-0.9 is 0.6.
  close(weightedAverage(10, 20, 0, 0.95), 14);
  assert.equal(weightedAverage(0, 0, 5, 0.7), 0);
  assert.equal(weightedAverage(5, 1e8, 5, 0.7), 5, "a corrupt old value is dropped");
  assert.equal(weightedAverage(1e8, 5, 5, 0.7), 5);
  assert.equal(weightedAverage(1e8, 1e8, 5, 0.7), 0);
});

test("anomalies are damped before they are learned", () => {
  assert.equal(
    rejectAnomaly(50, 0, 0, 0, 0, () => 0.9),
    50,
    "no average yet",
  );
  assert.equal(
    rejectAnomaly(5e6, 10, 1, 10, 1, () => 0.9),
    0,
  );
  assert.equal(
    rejectAnomaly(2e6, 10, 1, 10, 1, () => 0.9),
    10,
  );
  assert.equal(
    rejectAnomaly(14, 10, 1, 10, 1, () => 0.9),
    14,
    "within the noise threshold",
  );
  assert.equal(
    rejectAnomaly(100, 10, 1, 10, 1, () => 0.1),
    100,
    "kept 7 times in 10",
  );
  close(
    rejectAnomaly(100, 10, 1, 10, 1, () => 0.9),
    10 + 2 * Math.SQRT2,
  );
  close(
    rejectAnomaly(-100, 10, 1, 10, 1, () => 0.9),
    10 - 2 * Math.SQRT2,
  );
});

test("a first sample on a new database: 70% of the value expected, 49% of its square as variance", () => {
  const learner = newLearner(2);
  const stats = learn(learner, [10, 0], [emptyStat(), emptyStat()], 0.7, () => 0);
  close(stats[0]?.expect ?? NaN, 7);
  close(stats[0]?.var ?? NaN, 70);
  close(learner.local[0]?.expect ?? NaN, 4.9);
  close(learner.local[0]?.var ?? NaN, 49);
  assert.deepEqual(stats[1], { q: 0, expect: 0, var: 0, dq: 0 });
  assert.equal(learner.age, 1);
  // A variance more than twice the new squared deviation is reset to it.
  const next = learn(learner, [7], [{ q: 10, expect: 7, var: 70, dq: 0 }], 0.7, () => 0);
  assert.equal(next[0]?.var, 0);
});

test("the classes: high/low/normal, then _normal/_dev1, _dev2 and _anomaly (persistent)", () => {
  const stat = (expect: number, variance: number) => ({ q: 0, expect, var: variance, dq: 0 });
  assert.deepEqual(classify("x", 5, stat(0, 0), stat(0, 1)), { classes: [], sigma: 1, noVariation: true });
  // Within the noise threshold: only the direction.
  assert.deepEqual(
    classify("loadavg", 3, stat(1, 4), stat(1, 4)).classes.map((c) => c.name),
    ["loadavg_high"],
  );
  assert.deepEqual(classify("loadavg", 4, stat(1, 0.01), stat(0.5, 0.01)).classes, [
    { name: "loadavg_high", persistent: false },
    { name: "loadavg_high_microanomaly", persistent: true },
  ]);
  assert.deepEqual(
    classify("users", 10, stat(20, 100), stat(20, 100)).classes.map((c) => c.name),
    ["users_low_normal"],
  );
  assert.deepEqual(
    classify("users", 30, stat(20, 16), stat(20, 16)).classes.map((c) => c.name),
    ["users_high_dev1", "users_high_dev2"],
  );
  const big = classify("rootprocs", 100, stat(20, 4), stat(20, 4));
  assert.deepEqual(big.classes, [
    { name: "rootprocs_high_dev1", persistent: false },
    { name: "rootprocs_high_dev2", persistent: true },
    { name: "rootprocs_high_anomaly", persistent: true },
  ]);
  close(big.sigma, Math.sqrt(8));
  assert.deepEqual(
    classify("cpu", 30, stat(20, 1), stat(40, 1)).classes.map((c) => c.name),
    ["cpu_normal_dev1", "cpu_normal_dev2", "cpu_normal_anomaly"],
  );
});

test("entropy classes and time keys", () => {
  assert.equal(entropyClass("ssh", "in", []), "entropy_ssh_in_low");
  assert.equal(entropyClass("ssh", "in", ["a", "a"]), "entropy_ssh_in_low");
  assert.equal(entropyClass("ssh", "in", ["a", "b"]), "entropy_ssh_in_high");
  assert.equal(
    entropyClass("ssh", "out", ["a", "a", "a", "a", "a", "a", "a", "a", "a", "b"]),
    "entropy_ssh_out_medium",
  );
  assert.equal(timeKey(new Date("2026-11-26T15:58:07Z")), "Thu:Hr15:Min55_00");
  assert.equal(timeKey(new Date("2026-11-29T00:03:00Z")), "Sun:Hr00:Min00_05");
});

test("leap detection: a jump after a full window of 10 samples, and numerical errors dropped", async () => {
  const { leapClass, leapDetection, newLeapState } = await import("../../src/monitor/statistics.js");
  const state = newLeapState(1);
  const steady: string[] = [];
  for (let i = 0; i < 12; i++) {
    const values = [2];
    leapDetection(state, values);
    const c = leapClass(state, 0, "x", values[0] as number, 2);
    if (c) steady.push(c);
  }
  assert.equal(state.full, true);
  const jump = [20];
  leapDetection(state, jump);
  assert.equal(leapClass(state, 0, "x", 20, 2), "x_high_ldt");
  const error = [5e6];
  leapDetection(state, error);
  assert.deepEqual(error, [20], "more than 1000 times the last sample is an error: the last value stands");
  assert.deepEqual(steady, [], "a steady value makes no leap class");
});

test("entropy keys as 3.21 cuts them from /proc/net lines", async () => {
  const { entropyKey } = await import("../../src/monitor/statistics.js");
  assert.equal(entropyKey("   2: 0100007F:0016 0200007F:D431 01 00000000:00000000"), "0100007F");
  assert.equal(entropyKey("   3: 0100007F:3B84 0300007F:14BC 01"), "0100007F:3");
});
