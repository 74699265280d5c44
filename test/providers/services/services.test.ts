/**
 * The services providers with fake runners and process tables: systemd's
 * systemctl calls, init scripts and their status by command or by the
 * process table, enabling, noop, refresh and failures. (The init-script
 * provider runs real scripts in test/puppet/sandboxed/.)
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { commandServiceBackend, findPid } from "../../../src/providers/services/init-script.js";
import { ensureService, restartService } from "../../../src/providers/services/service.js";
import { systemdBackend } from "../../../src/providers/services/systemd.js";
import type { CommandOutput } from "../../../src/providers/tool-runner.js";
import { scratchDirectory } from "../../scratch.js";

/** A runner whose answers are keyed by the start of the command line. */
function fake(answers: Record<string, Partial<CommandOutput>>) {
  const calls: string[] = [];
  const run = (argv: readonly string[]): CommandOutput => {
    const line = argv.join(" ");
    calls.push(line);
    const key = Object.keys(answers).find((k) => line.startsWith(k));
    return { status: 0, stdout: "", stderr: "", ...(key ? answers[key] : {}) };
  };
  return { run, calls };
}

test("systemd: start and enable an inactive, disabled unit", () => {
  const f = fake({
    "systemctl is-active": { status: 3 },
    "systemctl is-enabled": { status: 1, stdout: "disabled\n" },
  });
  const result = ensureService(systemdBackend("web", { run: f.run }), {
    ensure: "running",
    enable: true,
    noop: false,
  });
  assert.equal(result.status, "changed");
  assert.deepEqual(
    result.changes.map((c) => [c.property, c.old, c.new, c.applied]),
    [
      ["ensure", "stopped", "running", true],
      ["enable", "false", "true", true],
    ],
  );
  assert.deepEqual(
    f.calls.filter((c) => !/is-|show/.test(c)),
    [
      "systemctl unmask -- web",
      "systemctl start -- web",
      "systemctl unmask -- web",
      "systemctl enable -- web",
    ],
  );
});

test("systemd: static units need no enabling; a unit file changed is reloaded before restart", () => {
  const f = fake({
    "systemctl --root=/r is-active": { status: 0 },
    "systemctl --root=/r is-enabled": { status: 0, stdout: "static\n" },
    "systemctl --root=/r show": { stdout: "NeedDaemonReload=yes\n" },
  });
  const backend = systemdBackend("web", { run: f.run, root: "/r" });
  assert.equal(ensureService(backend, { ensure: "running", enable: false, noop: false }).status, "unchanged");
  assert.equal(restartService(backend, false).status, "changed");
  assert.ok(f.calls.includes("systemctl --root=/r daemon-reload"));
  assert.ok(f.calls.includes("systemctl --root=/r restart -- web"));
});

test("init scripts: found in the path, status/start/stop/restart through them", () => {
  const dir = scratchDirectory("tend-init-");
  mkdirSync(join(dir, "init.d"));
  writeFileSync(join(dir, "init.d", "web.sh"), "");
  const script = join(dir, "init.d", "web.sh");
  const f = fake({ [`${script} status`]: { status: 3 } });
  const backend = commandServiceBackend(
    { name: "web", flavour: "init", path: [join(dir, "init.d")] },
    { run: f.run },
  );
  ensureService(backend, { ensure: "running", noop: false });
  restartService(
    commandServiceBackend(
      { name: "web", flavour: "init", hasrestart: true, path: [join(dir, "init.d")] },
      { run: fake({}).run },
    ),
    false,
  );
  assert.deepEqual(f.calls, [`${script} status`, `${script} start`]);
  const missing = commandServiceBackend(
    { name: "nope", flavour: "init", path: [dir] },
    { run: f.run },
  ).status();
  assert.deepEqual(missing, { error: "Could not find init script for 'nope'" });
});

test("hasstatus false: the process table decides; base stops by killing the pid", () => {
  const table = () => [
    "UID PID PPID C STIME TTY TIME CMD",
    "root 4242 1 0 10:00 ? 00:00:00 /usr/sbin/webd -f",
  ];
  assert.equal(findPid(table(), "webd"), "4242");
  const f = fake({});
  const base = commandServiceBackend(
    { name: "web", flavour: "base", binary: "/usr/sbin/webd" },
    { run: f.run, processTable: table },
  );
  const result = ensureService(base, { ensure: "stopped", noop: false });
  assert.equal(result.found, "running");
  assert.deepEqual(f.calls, ["kill 4242"]);
  const none = commandServiceBackend(
    { name: "web", flavour: "debian", hasstatus: false },
    { run: f.run, processTable: () => [] },
  );
  assert.equal(none.status(), "stopped");
  assert.equal(
    commandServiceBackend({ name: "web", flavour: "base" }, { run: f.run, processTable: () => [] }).start(),
    "Services must specify a start command or a binary",
  );
});

test("given commands run through the shell; a failed start stops there", () => {
  const f = fake({
    "/bin/sh -c start-web": { status: 1, stderr: "no\n" },
    "/bin/sh -c check-web": { status: 1 },
  });
  const backend = commandServiceBackend(
    { name: "web", flavour: "debian", commands: { start: "start-web", status: "check-web" } },
    { run: f.run },
  );
  const result = ensureService(backend, { ensure: "running", enable: true, noop: false });
  assert.equal(result.status, "failed");
  assert.equal(result.error, "Execution of 'start-web' returned 1: no");
  assert.equal(result.changes.length, 1);
  assert.ok(!f.calls.some((c) => c.includes("update-rc.d")));
});

test("noop and refresh: nothing runs; a stopped service is not restarted", () => {
  const f = fake({ "/bin/sh -c st": { status: 3 } });
  const backend = commandServiceBackend(
    { name: "web", flavour: "base", commands: { status: "st", start: "go" } },
    { run: f.run },
  );
  const noop = ensureService(backend, { ensure: "running", noop: true });
  assert.equal(noop.changes[0]?.applied, false);
  assert.deepEqual(restartService(backend, false), { status: "unchanged", changes: [], found: "stopped" });
  assert.deepEqual(f.calls, ["/bin/sh -c st", "/bin/sh -c st"]);
});
