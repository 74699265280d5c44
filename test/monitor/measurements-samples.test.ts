/**
 * Must-show 2 of issue 15 over several samples: cf-monitord 3.21 was run on
 * the measurements promises of samples-policy.ts while the file they read
 * changed before each sample (scripts/record-monitord-samples.ts recorded
 * test/fixtures/monitor/samples.json). tend's monitor takes the same
 * samples of the same data at the recorded times, with an injected clock
 * and timer, and must leave the same measurement lines in env_data (values,
 * weekly averages and deviations, counters) and the same log after each.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { startMonitor } from "../../src/monitor/daemon.js";
import { Logger } from "../../src/system/logger.js";
import { DATA_PLACEHOLDER, samplesPolicy } from "./samples-policy.js";

interface RecordedSample {
  readonly data: string;
  readonly writtenAt: number;
  readonly slot: string | null;
  readonly envData: readonly string[];
  readonly log: readonly string[];
}

const FIXTURE = fileURLToPath(new URL("../../../test/fixtures/monitor/samples.json", import.meta.url));
const MEASURED = /^(value|av|dev)_(temp_now|temp_weekly|errors|error_codes|echoed)=|^temp_weekly_/;

test("measurements over several samples, as cf-monitord 3.21 recorded them", async (t) => {
  const recorded = JSON.parse(readFileSync(FIXTURE, "utf8")) as { samples: RecordedSample[] };
  const root = mkdtempSync(join(tmpdir(), "tend-monitord-samples-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const work = join(root, "work");
  for (const sub of ["inputs", "state"]) mkdirSync(join(work, sub), { recursive: true });
  const data = join(root, "data.txt");
  writeFileSync(join(work, "inputs/promises.cf"), samplesPolicy().replaceAll(DATA_PLACEHOLDER, data));

  const samples = recorded.samples;
  let clock = new Date((samples[0] as RecordedSample).writtenAt);
  let tick: (() => void) | undefined;
  writeFileSync(data, (samples[0] as RecordedSample).data);
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
  const measured = () =>
    readFileSync(join(work, "state/env_data"), "utf8")
      .split("\n")
      .filter((l) => MEASURED.test(l));
  const logged = () =>
    readFileSync(join(work, "state/logged_measure.log"), "utf8")
      .trim()
      .split("\n")
      .map((l) => l.replace(/^[^,]*,\d+,/, ""));

  samples.forEach((sample, i) => {
    if (i > 0) {
      writeFileSync(data, sample.data);
      clock = new Date(sample.writtenAt);
      tick?.();
    }
    assert.deepEqual(measured(), sample.envData, `env_data after sample ${i + 1} (${sample.slot})`);
    assert.deepEqual(logged(), sample.log, `the log after sample ${i + 1}`);
  });
});
