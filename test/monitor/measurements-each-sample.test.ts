/**
 * Each sample evaluates the monitor bundles again, as cf-monitord 3.21
 * does: a measurement guarded by a class that appears later (a time class,
 * a class promised on a file the host shows) starts being taken at the
 * sample where its class holds.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { startMonitor } from "../../src/monitor/daemon.js";
import { Logger } from "../../src/system/logger.js";

test("classes are evaluated again at every sample and decide the measurements taken", async (t) => {
  const root = mkdtempSync(join(tmpdir(), "tend-monitord-each-sample-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const work = join(root, "work");
  for (const sub of ["inputs", "state"]) mkdirSync(join(work, sub), { recursive: true });
  const data = join(root, "data.txt");
  const flag = join(root, "flag");
  writeFileSync(data, "temp=42\n");
  writeFileSync(
    join(work, "inputs/promises.cf"),
    `body common control { bundlesequence => { "main" }; }
bundle monitor watch {
  vars:
    "file" string => "${data}";
  classes:
    "flagged" expression => fileexists("${flag}");
  measurements:
    GMT_Hr07::
      "$(file)" handle => "at_seven", stream_type => "file", data_type => "int", history_type => "scalar",
        match_value => extract;
    flagged::
      "$(file)" handle => "when_flagged", stream_type => "file", data_type => "int", history_type => "scalar",
        match_value => extract;
}
body match_value extract { select_line_matching => "temp=.*"; extraction_regex => "temp=([0-9]+)"; }
bundle agent main {
}
`,
  );
  let clock = new Date("2026-11-27T06:57:30Z");
  let tick: (() => void) | undefined;
  const daemon = await startMonitor({
    file: join(work, "inputs/promises.cf"),
    workdir: work,
    inputdir: join(work, "inputs"),
    statedir: join(work, "state"),
    logger: new Logger(() => {}, "error"),
    now: () => clock,
    random: () => 0,
    every: (fn) => {
      tick = fn;
      return () => {
        tick = undefined;
      };
    },
  });
  t.after(() => daemon.stop());
  const values = () =>
    readFileSync(join(work, "state/env_data"), "utf8")
      .split("\n")
      .filter((l) => l.startsWith("value_at_seven=") || l.startsWith("value_when_flagged="))
      .sort();
  assert.deepEqual(values(), [], "06:57, no flag: neither measurement");

  clock = new Date("2026-11-27T07:00:00Z");
  tick?.();
  assert.deepEqual(values(), ["value_at_seven=42"], "07:00: the Hr07 measurement");

  writeFileSync(flag, "");
  writeFileSync(data, "temp=43\n");
  clock = new Date("2026-11-27T07:02:30Z");
  tick?.();
  assert.deepEqual(values(), ["value_at_seven=43", "value_when_flagged=43"], "the flag appeared");
});
