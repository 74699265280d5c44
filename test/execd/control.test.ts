/**
 * `body executor control` as cf-execd 3.21 reads it, the splay, the
 * schedule's classes, the output files' names and the comparison with the
 * previous output.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  DEFAULT_SCHEDULE,
  defaultExecCommand,
  defaultExecutorControl,
  splayFraction,
  splaySeconds,
} from "../../src/execd/control.js";
import { loadExecdPolicy } from "../../src/execd/policy.js";
import { canonify, ctimeText, outputFileName, sameAsPrevious } from "../../src/execd/runner.js";
import { scheduleClasses, scheduledBy } from "../../src/execd/schedule.js";
import { Logger } from "../../src/system/logger.js";
import { scratchDirectory } from "../scratch.js";

function policyDir(text: string): string {
  const dir = scratchDirectory("tend-execd-control-");
  mkdirSync(join(dir, "inputs"));
  writeFileSync(join(dir, "inputs", "promises.cf"), text);
  return dir;
}

function load(dir: string, log: string[] = []) {
  return loadExecdPolicy({
    file: "promises.cf",
    workdir: dir,
    logger: new Logger((r) => log.push(`${r.level}: ${r.message}`), "debug"),
    uid: 0,
  });
}

test("without body executor control, 3.21's defaults", () => {
  const dir = policyDir('bundle agent main { reports: "x"; }\n');
  const loaded = load(dir);
  assert.ok(loaded.ok);
  assert.deepEqual(loaded.control, defaultExecutorControl());
  assert.deepEqual(loaded.control.schedule, [
    "Min00",
    "Min05",
    "Min10",
    "Min15",
    "Min20",
    "Min25",
    "Min30",
    "Min35",
    "Min40",
    "Min45",
    "Min50",
    "Min55",
  ]);
  assert.equal(loaded.control.agentExpireAfter, 120);
  assert.equal(loaded.control.executorFacility, "LOG_USER");
  assert.equal(loaded.control.mailMaxLines, 30);
});

test("body executor control's attributes, guarded ones only when their class holds", () => {
  const dir = policyDir(`
body executor control {
  schedule => { "Min01", "Hr12.Min30" };
  splaytime => "0";
  exec_command => "/bin/echo hi";
  agent_expireafter => "5";
  executorfacility => "LOG_LOCAL3";
  mailto => "root@example.org";
  smtpserver => "mail.example.org";
  mailmaxlines => "10";
  mailfilter_exclude => { ".*ignored.*" };
  any::
    mailfrom => "cf@example.org";
  nosuchclass::
    mailsubject => "never";
}
bundle agent main { reports: "x"; }
`);
  const loaded = load(dir);
  assert.ok(loaded.ok);
  const c = loaded.control;
  assert.deepEqual(c.schedule, ["Min01", "Hr12.Min30"]);
  assert.equal(c.splaySeconds, 0);
  assert.equal(c.execCommand, "/bin/echo hi");
  assert.equal(c.agentExpireAfter, 5);
  assert.equal(c.executorFacility, "LOG_LOCAL3");
  assert.equal(c.mailTo, "root@example.org");
  assert.equal(c.smtpServer, "mail.example.org");
  assert.equal(c.mailMaxLines, 10);
  assert.deepEqual(c.mailFilterExclude, [".*ignored.*"]);
  assert.equal(c.mailFrom, "cf@example.org");
  assert.equal(c.mailSubject, "");
});

test("an invalid policy comes back as diagnostics", () => {
  const dir = policyDir('body executor control { schedule => { "Min01" ; }\n');
  const loaded = load(dir);
  assert.equal(loaded.ok, false);
  assert.ok(loaded.diagnostics.length > 0);
});

test("the splay: splaytime minutes times the host's hash fraction, as 3.21's GetSplay", () => {
  const id = { fqname: "host.example.org", ipAddress: "192.0.2.10", uid: 0 };
  const f = splayFraction(id);
  assert.ok(f >= 0 && f < 1);
  assert.equal(splaySeconds(0, id), 0);
  assert.equal(splaySeconds(10, id), Math.trunc(600 * f));
  assert.ok(splaySeconds(10, id) < 600);
  // Another host, another splay; the same host, the same one.
  assert.notEqual(splayFraction({ ...id, fqname: "other.example.org" }), f);
  assert.equal(splayFraction({ ...id }), f);
});

test("the default command is tend's equivalent of cf-execd's failsafe-then-promises", () => {
  assert.equal(
    defaultExecCommand(["/usr/bin/node", "/opt/tend/bin/tend"], "/var/lib/tend", true),
    '"/usr/bin/node" "/opt/tend/bin/tend" "agent" "-w" "/var/lib/tend" -f failsafe.cf && ' +
      '"/usr/bin/node" "/opt/tend/bin/tend" "agent" "-w" "/var/lib/tend" -Dfrom_cfexecd,scheduled_run',
  );
  assert.match(defaultExecCommand(["tend"], "/w", false), /-Dfrom_cfexecd$/);
});

test("the schedule sees the time classes of the clock given", () => {
  const at = (h: number, m: number) => scheduleClasses(new Date(2026, 0, 5, h, m, 30));
  assert.equal(scheduledBy(DEFAULT_SCHEDULE, at(12, 0)), "Min00");
  assert.equal(scheduledBy(DEFAULT_SCHEDULE, at(12, 7)), undefined);
  assert.equal(scheduledBy(DEFAULT_SCHEDULE, at(12, 10)), "Min10");
  assert.equal(scheduledBy(["Hr12.Min30", "Monday.Hr13"], at(12, 30)), "Hr12.Min30");
  assert.equal(scheduledBy(["Hr12.Min30", "Monday.Hr13"], at(13, 59)), "Monday.Hr13");
  assert.equal(scheduledBy(["Hr12.Min30"], at(11, 30)), undefined);
  // The executor's own hard class, and classes given with -D.
  assert.equal(scheduledBy(["executor.Min00"], at(12, 0)), "executor.Min00");
  assert.equal(scheduledBy(["extra"], scheduleClasses(new Date(), ["extra"])), "extra");
});

test("output files are named as 3.21 names them", () => {
  const start = new Date(2026, 10, 7, 5, 8, 52);
  assert.equal(ctimeText(start), "Sat Nov  7 05:08:52 2026");
  assert.equal(canonify("host.example-1"), "host_example_1");
  const epoch = Math.floor(start.getTime() / 1000);
  assert.equal(
    outputFileName("host.example.org", start, 0x7f48),
    `cf_host_example_org__${epoch}_Sat_Nov__7_05_08_52_2026_0x7f48`,
  );
});

test("comparison with the previous output ignores timestamps and filtered lines", () => {
  const c = { ...defaultExecutorControl(), mailFilterExclude: [".*noise.*"] };
  assert.equal(sameAsPrevious(c, undefined, "a\n"), false);
  assert.equal(sameAsPrevious(c, "a\nb\n", "a\nb\n"), true);
  assert.equal(sameAsPrevious(c, "a\nb\n", "a\nc\n"), false);
  assert.equal(sameAsPrevious(c, "a\n", "a\nb\n"), false);
  assert.equal(
    sameAsPrevious(c, "2026-01-01T00:00:00+0000   notice: x\n", "2026-11-27T05:08:52+0000   notice: x\n"),
    true,
  );
  assert.equal(sameAsPrevious(c, "a\nnoise 1\n", "a\nnoise 2\n"), true);
  // Nothing but filtered lines: equal (3.21 sends no empty mail).
  assert.equal(sameAsPrevious(c, "a\n", "noise\n"), true);
});
