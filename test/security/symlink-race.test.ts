/**
 * A short version of scripts/symlink-race.ts: nobody swaps its own
 * directory and a link to root's at the path the agent acts on, in a
 * tight loop, while tend runs copy_from, perms, edit_line and delete
 * there; root's directory never changes. (The script runs 500 runs per
 * kind; the numbers are in the README's security section.)
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runSymlinkRace } from "../../scripts/symlink-race.js";
import { attackSkipReason } from "./attack.js";

test("a live directory/link swap never lets a change through (5 runs per kind)", {
  skip: attackSkipReason(),
}, () => {
  const report = runSymlinkRace({ runs: 5, agent: "tend" });
  assert.equal(report.violation, undefined, report.violation);
  assert.equal(report.runs, 20);
});
