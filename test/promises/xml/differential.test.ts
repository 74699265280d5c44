/**
 * edit_xml through tend, compared case by case with what cf-agent 3.21 did
 * with the same files and bundles (test/fixtures/xml-edits/recorded.json):
 * the files after a first and a second run, byte for byte, and the lines
 * logged at `-I` for each case.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import type { RecordedRun, Recording } from "./cases.js";
import { runCases } from "./run-cases.js";

const recorded = JSON.parse(readFileSync("test/fixtures/xml-edits/recorded.json", "utf8")) as Recording;

/**
 * Lines tend adds on purpose: why a document could not be read (cf-agent
 * leaves that to libxml2, on stderr).
 */
function comparable(lines: readonly string[]): string[] {
  return lines.filter((line) => !/^ {3}error: XML document '.*' could not be parsed: /.test(line));
}

function compareRuns(which: string, tend: RecordedRun, cfagent: RecordedRun): void {
  for (const [name, lines] of Object.entries(cfagent.logs)) {
    assert.deepEqual(comparable(tend.logs[name] ?? []), lines, `${which} run, log of case ${name}`);
  }
  for (const [file, content] of Object.entries(cfagent.files)) {
    assert.equal(tend.files[file], content, `${which} run, file ${file}`);
  }
  assert.deepEqual(Object.keys(tend.files).sort(), Object.keys(cfagent.files).sort(), `${which} run, files`);
}

test("edit_xml: files and log lines as cf-agent 3.21, in a first and a second run", () => {
  const tend = runCases("tend");
  compareRuns("first", tend.first, recorded.first);
  compareRuns("second", tend.second, recorded.second);
});
