/**
 * guest_environments scenarios (scenarios.ts) through tend, compared with
 * what Debian's cf-agent 3.21 did with them
 * (test/fixtures/guest-environments/cf-agent.json, recorded by
 * scripts/record-guest-environments.ts): the same info and higher lines,
 * verbose lines about environments, and outcome classes.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { type GuestResult, runTend } from "./harness.js";
import { guestScenarios } from "./scenarios.js";

const fixture = new URL("../../../../test/fixtures/guest-environments/cf-agent.json", import.meta.url);
const recorded = new Map(
  (JSON.parse(readFileSync(fixture, "utf8")) as GuestResult[]).map((r) => [r.name, r]),
);

for (const scenario of guestScenarios) {
  const expected = recorded.get(scenario.name);
  test(`guest_environments scenario ${scenario.name}`, { skip: expected ? false : "not recorded" }, () => {
    assert.deepEqual(runTend(scenario).lines, expected?.lines);
  });
}
