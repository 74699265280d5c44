/**
 * A short version of scripts/crash-safety.ts: tend agent killed with
 * SIGKILL at random moments while it rewrites files (edit_line, edit_xml,
 * content, copy_from, a recursive copy) and its state; each file must
 * always be as before the run or as promised, the state whole, and a run
 * after the kills must recover.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runCrashSafety } from "../../scripts/crash-safety.js";

test("files are old or new after every SIGKILL of the agent (20 kills)", async () => {
  const report = await runCrashSafety({ kills: 20, files: 2, size: 100_000 });
  assert.equal(report.violation, undefined);
  assert.equal(report.kills, 20);
  assert.equal(report.old + report.new, report.checks);
});
