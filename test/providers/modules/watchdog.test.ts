/**
 * The watchdog (src/promises/custom/watchdog.ts) ends an exchange with a
 * module that does not answer by its deadline, whichever watches: the perl
 * timer process, the thread, or the thread standing in for a timer that
 * could not start; and a wake that comes between exchanges harms nobody.
 * The modules are one-line shell scripts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ExchangeResult } from "../../../src/providers/modules/exchange.js";
import { ModuleChannel } from "../../../src/providers/modules/module-channel.js";
import { sleep } from "../../../src/providers/modules/module-process.js";
import { TimerProcess } from "../../../src/providers/modules/timer-process.js";
import { ModuleWatchdog } from "../../../src/providers/modules/watchdog.js";

const LIMITS = { timeout: 30_000 };
/** A module that answers "ok" to every request. */
const ANSWERING = 'while read -r line; do [ -z "$line" ] && printf "ok\\n\\n"; done';

const watchdogs: Record<string, () => ModuleWatchdog> = {
  // Started and watching before the exchange: only the timer can end a blocked read.
  "the timer process": () => {
    const timer = TimerProcess.start();
    assert.ok(timer?.ready(), "the timer did not start");
    return new ModuleWatchdog(timer);
  },
  "the thread": () => new ModuleWatchdog(undefined),
  "the thread, the timer having failed": () =>
    new ModuleWatchdog(TimerProcess.start([], ["/bin/sh", "-c", "exit 3"])),
};

/** Runs `script` as a module and asks it once, with a limit of `timeoutMs`. */
function exchangeWith(watchdog: ModuleWatchdog, script: string, timeoutMs: number) {
  const channel = ModuleChannel.start(watchdog, ["/bin/sh", "-c", script]);
  if (typeof channel === "string") assert.fail(channel);
  const started = Date.now();
  const result = channel.exchange("request\n\n", timeoutMs, 1024);
  return { result, ms: Date.now() - started };
}

for (const [name, make] of Object.entries(watchdogs)) {
  test(`${name}: a module that never answers is killed at the deadline`, LIMITS, () => {
    const watchdog = make();
    try {
      const { result, ms } = exchangeWith(watchdog, "read -r line; exec sleep 60", 300);
      assert.equal(result.status, "timeout");
      assert.equal(result.signal, "SIGKILL");
      assert.ok(ms >= 290 && ms < 5_000, `${ms} ms`);
    } finally {
      watchdog.shutdown();
    }
  });

  test(`${name}: the read ends even when a process outside the group holds the output open`, LIMITS, () => {
    const watchdog = make();
    try {
      const { result, ms } = exchangeWith(watchdog, "setsid sleep 5 & read -r line; exec sleep 60", 300);
      assert.equal(result.status, "timeout");
      assert.ok(ms < 4_000, `${ms} ms`);
    } finally {
      watchdog.shutdown();
    }
  });

  test(
    `${name}: a module that stops reading its input cannot hold the agent past the deadline`,
    LIMITS,
    () => {
      const watchdog = make();
      try {
        const channel = ModuleChannel.start(watchdog, ["/bin/sh", "-c", "exec sleep 60"]);
        if (typeof channel === "string") assert.fail(channel);
        const started = Date.now();
        // Far more than a pipe holds.
        const result = channel.exchange(`${"x".repeat(1024 * 1024)}\n\n`, 300, 1024);
        const ms = Date.now() - started;
        assert.equal(result.status, "timeout");
        assert.ok(ms >= 290 && ms < 5_000, `${ms} ms`);
      } finally {
        watchdog.shutdown();
      }
    },
  );

  test(`${name}: a wake that comes between exchanges leaves the module alone`, LIMITS, () => {
    const watchdog = make();
    try {
      const channel = ModuleChannel.start(watchdog, ["/bin/sh", "-c", ANSWERING]);
      if (typeof channel === "string") assert.fail(channel);
      assert.equal(channel.exchange("request\n\n", 50, 1024).status, "ok");
      // Idle well past that exchange's deadline: the watchdog wakes a read nobody is doing.
      sleep(300);
      for (let i = 0; i < 3; i++) {
        const answer: ExchangeResult = channel.exchange("request\n\n", 5_000, 1024);
        assert.deepEqual([answer.status, answer.lines], ["ok", ["ok"]]);
      }
      channel.close(1_000);
    } finally {
      watchdog.shutdown();
    }
  });

  test(`${name}: answers in time pass, one exchange after another`, LIMITS, () => {
    const watchdog = make();
    try {
      const channel = ModuleChannel.start(watchdog, ["/bin/sh", "-c", ANSWERING]);
      if (typeof channel === "string") assert.fail(channel);
      for (let i = 0; i < 50; i++) {
        const answer: ExchangeResult = channel.exchange("request\n\n", 5_000, 1024);
        assert.deepEqual([answer.status, answer.lines], ["ok", ["ok"]]);
      }
      channel.close(1_000);
    } finally {
      watchdog.shutdown();
    }
  });
}

test("a timer killed during the run gives way to the thread: a silent module is still killed", LIMITS, () => {
  const timer = TimerProcess.start();
  if (!timer?.ready()) assert.fail("the timer did not start");
  const watchdog = new ModuleWatchdog(timer);
  const channel = ModuleChannel.start(watchdog, ["/bin/sh", "-c", ANSWERING]);
  try {
    if (typeof channel === "string") assert.fail(channel);
    assert.equal(channel.exchange("request\n\n", 5_000, 1024).status, "ok");
    process.kill(timer.pid, "SIGKILL");
    // Dead by the time the next read blocks (the agent looks before blocking, at most every 100 ms).
    for (let i = 0; i < 2_000 && timer.alive(); i++) sleep(1);
    sleep(150);
    const { result, ms } = exchangeWith(watchdog, "read -r line; exec sleep 60", 300);
    assert.equal(result.status, "timeout");
    assert.ok(ms >= 290 && ms < 5_000, `${ms} ms`);
  } finally {
    if (typeof channel !== "string") channel.kill();
    watchdog.shutdown();
  }
});

test("the timer process makes the FIFOs it is given, then watches", LIMITS, async () => {
  const { mkdtempSync, rmSync, statSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const dir = mkdtempSync(join(tmpdir(), "tend-timer-test-"));
  const fifos = [join(dir, "a"), join(dir, "b")];
  const timer = TimerProcess.start(fifos);
  try {
    assert.ok(timer?.ready());
    for (const fifo of fifos) assert.ok(statSync(fifo).isFIFO());
  } finally {
    timer?.shutdown();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A timer process that takes `seconds` to start. */
function slowTimer(seconds: number): TimerProcess | undefined {
  return TimerProcess.start([], ["/bin/sh", "-c", `sleep ${seconds}; exec /usr/bin/perl -e "$0"`]);
}

test("a module that answers while the timer is starting is not kept waiting for it", LIMITS, () => {
  const watchdog = new ModuleWatchdog(slowTimer(2));
  try {
    const channel = ModuleChannel.start(watchdog, ["/bin/sh", "-c", ANSWERING]);
    if (typeof channel === "string") assert.fail(channel);
    const started = Date.now();
    for (let i = 0; i < 3; i++) assert.equal(channel.exchange("request\n\n", 5_000, 1024).status, "ok");
    assert.ok(Date.now() - started < 1_500, `${Date.now() - started} ms`);
    channel.close(1_000);
  } finally {
    watchdog.shutdown();
  }
});

test("a module silent while the timer is starting is killed at its deadline all the same", LIMITS, () => {
  const watchdog = new ModuleWatchdog(slowTimer(3));
  try {
    const { result, ms } = exchangeWith(watchdog, "read -r line; exec sleep 60", 300);
    assert.equal(result.status, "timeout");
    assert.equal(result.signal, "SIGKILL");
    assert.ok(ms >= 290 && ms < 2_500, `${ms} ms`);
  } finally {
    watchdog.shutdown();
  }
});
