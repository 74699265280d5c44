/**
 * The daemon loop with an injected clock and timer over a fake /proc: the
 * first sample at start, one more per 2.5-minute period, the statistics
 * learned in each 5-minute slot, and the persistent classes kept in the
 * work directory for 10 minutes.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { startMonitor } from "../../src/monitor/daemon.js";
import { rootsUnder } from "../../src/monitor/probes.js";
import { Logger } from "../../src/system/logger.js";

function put(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

test("samples at start and every 2.5 minutes; anomalies become persistent classes", async (t) => {
  const root = mkdtempSync(join(tmpdir(), "tend-monitord-loop-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const work = join(root, "work");
  put(
    root,
    "work/inputs/promises.cf",
    'body common control { bundlesequence => { "main" }; }\nbody monitor control { forgetrate => "0.9"; }\nbundle agent main { reports: "x"; }\n',
  );
  // A database older than two weeks of samples leans on experience.
  put(root, "work/state/tend-monitor/age.json", '{"age":5000}\n');
  put(root, "host/etc/passwd", "root:x:0:0::/root:/bin/sh\n");
  put(root, "host/proc/1/status", "Uid:\t0\t0\t0\t0\n");
  put(root, "host/proc/loadavg", "1.00 1.00 1.00 1/1 1\n");
  put(
    root,
    "host/proc/net/tcp",
    "  sl  local_address rem_address   st\n   0: 0100007F:0016 0200007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 3\n",
  );
  let clock = new Date("2026-11-26T15:55:00Z");
  let tick: (() => void) | undefined;
  let period = 0;
  const lines: string[] = [];
  const daemon = await startMonitor({
    file: join(work, "inputs/promises.cf"),
    workdir: work,
    inputdir: join(work, "inputs"),
    statedir: join(work, "state"),
    logger: new Logger((r) => lines.push(r.message), "info"),
    roots: rootsUnder(join(root, "host")),
    now: () => clock,
    random: () => 0,
    every: (fn, ms) => {
      tick = fn;
      period = ms;
      return () => {
        tick = undefined;
      };
    },
  });
  assert.equal(period, 150_000);
  const env = () => readFileSync(join(work, "state/env_data"), "utf8").split("\n");
  assert.ok(env().includes("value_loadavg=1.00"));
  assert.ok(env().includes("av_loadavg=0.10"), "an old database, forget rate 0.9: 0.1 on the new value");
  const age = () => JSON.parse(readFileSync(join(work, "state/tend-monitor/age.json"), "utf8")).age;
  assert.equal(age(), 5001);
  assert.ok(env().includes("entropy_ssh_in_low"));
  assert.equal(readFileSync(join(work, "state/cf_incoming.ssh"), "utf8").split("\n").length, 2);
  for (let i = 0; i < 3; i++) {
    clock = new Date(clock.getTime() + 150_000);
    tick?.();
  }
  assert.equal(age(), 5004);
  assert.ok(
    !env().includes("entropy_ssh_in_low"),
    "the same connections within 40 minutes: 3.21 keeps the old list and sets no class",
  );

  // Load jumps from 1 to 40: far above both averages.
  put(root, "host/proc/loadavg", "40.00 1.00 1.00 1/1 1\n");
  clock = new Date(clock.getTime() + 150_000);
  tick?.();
  const after = env();
  assert.ok(after.includes("value_loadavg=40.00"), after.join("\n"));
  assert.ok(after.includes("loadavg_high_anomaly"), after.filter((l) => l.startsWith("loadavg")).join("\n"));
  const persistent = JSON.parse(readFileSync(join(work, "state/persistent-classes.json"), "utf8"));
  assert.ok(persistent.loadavg_high_anomaly, JSON.stringify(persistent));
  assert.equal(persistent.loadavg_high_anomaly.expires, clock.getTime() + 10 * 60_000);
  daemon.stop();
  assert.equal(tick, undefined);
});
