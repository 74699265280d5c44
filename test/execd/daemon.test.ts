/**
 * What tend execd must show: it runs the agent on the schedule (a fake
 * clock), keeps and rotates the outputs, kills an agent that hangs past
 * agent_expireafter with its whole process group, survives a policy
 * change; and on the same policy, `--once` keeps the same output file
 * (name and content) and `previous` link as real cf-execd 3.21.
 */
import assert from "node:assert/strict";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { type TestContext, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Executor } from "../../src/execd/daemon.js";
import { Logger } from "../../src/system/logger.js";
import { main } from "../../src/cli/app.js";
import type { CliIo } from "../../src/cli/io.js";
import { runInHost, skipReason, spawnInHost } from "../net/hosts.js";
import { scratchDirectory } from "../scratch.js";

function workdir(policy: string): string {
  const dir = scratchDirectory("tend-execd-");
  mkdirSync(join(dir, "inputs"));
  writeFileSync(join(dir, "inputs", "promises.cf"), policy);
  return dir;
}

function control(body: string): string {
  return `body common control { bundlesequence => { "main" }; }
body executor control {
${body}
}
bundle agent main { reports: "x"; }
`;
}

function outputs(dir: string): string[] {
  const out = join(dir, "outputs");
  return existsSync(out)
    ? readdirSync(out)
        .filter((n) => n.startsWith("cf_"))
        .sort()
    : [];
}

/** An executor on a fake clock: each sleep moves the clock on and returns at once. */
function fakeExecutor(
  t: TestContext,
  dir: string,
  start: Date,
  onPulse: (pulse: number, executor: Executor) => void | Promise<void>,
  extra: Partial<ConstructorParameters<typeof Executor>[0]> = {},
) {
  let now = start.getTime();
  let pulse = 0;
  const log: string[] = [];
  const executor: Executor = new Executor({
    file: "promises.cf",
    workdir: dir,
    logger: new Logger((r) => log.push(`${r.level}: ${r.message}`), "verbose"),
    tendCommand: ["false"],
    fqname: "host.example.org",
    clock: () => new Date(now),
    sleep: async (ms) => {
      now += ms;
      pulse++;
      // Let the run started at this pulse finish before the next one (deterministic order).
      await executor.idle();
      await onPulse(pulse, executor);
    },
    ...extra,
  });
  t.after(() => executor.stop());
  return { executor, log };
}

test("runs the agent on the schedule, at the pulses whose time classes match", async (t) => {
  const dir = workdir(
    control(`schedule => { "Min02", "Min04" }; splaytime => "0"; exec_command => "/bin/echo ran";`),
  );
  const { executor, log } = fakeExecutor(t, dir, new Date(2026, 0, 5, 12, 0, 10), (pulse, e) => {
    if (pulse >= 6) e.stop();
  });
  assert.ok(executor.start().ok);
  await executor.loop();
  await executor.idle();
  // Pulses at 12:00 .. 12:05: the runs at 12:02 and 12:04.
  assert.equal(executor.results.length, 2);
  assert.deepEqual(
    log.filter((l) => l.includes("Waking up the agent")).map((l) => l.replace(/.* ~ /, "")),
    ["Min02", "Min04"],
  );
  assert.equal(log.filter((l) => l.includes("Nothing to do at")).length, 4);
  const names = outputs(dir);
  assert.equal(names.length, 2);
  for (const name of names)
    assert.match(name, /^cf_host_example_org__\d+_Mon_Jan__5_12_0[24]_10_2026_0x[0-9a-f]+$/);
  assert.equal(readFileSync(join(dir, "outputs", names[0] as string), "utf8"), "ran\n");
  // The second run's output is the same as the first's: previous points to it.
  assert.equal(executor.results[1]?.changed, false);
  assert.equal(readlinkSync(join(dir, "outputs", "previous")), executor.results[1]?.file);
});

test("keeps each run's output, compares it with the previous one, and rotates with a limit", async (t) => {
  const counter = join(scratchDirectory("tend-execd-counter-"), "n");
  writeFileSync(counter, "0");
  const command = `/bin/sh -c 'n=$(cat ${counter}); echo $((n+1)) > ${counter}; echo same; echo run $((n / 2))'`;
  const dir = workdir(
    control(`schedule => { "any" }; splaytime => "0"; exec_command => "${command.replace(/"/g, '\\"')}";`),
  );
  const { executor } = fakeExecutor(
    t,
    dir,
    new Date(2026, 0, 5, 12, 0, 0),
    (pulse, e) => {
      if (pulse >= 5) e.stop();
    },
    { maxOutputs: 3 },
  );
  assert.ok(executor.start().ok);
  await executor.loop();
  await executor.idle();
  // Five runs: outputs "run 0", "run 0", "run 1", "run 1", "run 2".
  assert.deepEqual(
    executor.results.map((r) => r.changed),
    [true, false, true, false, true],
  );
  const names = outputs(dir);
  assert.equal(names.length, 3, "the oldest two outputs were rotated away");
  const previous = join(dir, "outputs", "previous");
  assert.ok(lstatSync(previous).isSymbolicLink());
  assert.equal(readFileSync(previous, "utf8"), "same\nrun 2\n");
});

test("a run without output leaves no file, as cf-execd removes it", async (t) => {
  const dir = workdir(control(`exec_command => "/bin/true";`));
  const { executor } = fakeExecutor(t, dir, new Date(), () => undefined);
  assert.ok(executor.start().ok);
  const result = await executor.runOnce(false);
  assert.equal(result?.file, undefined);
  assert.deepEqual(outputs(dir), []);
});

test("kills an agent that hangs past agent_expireafter, with its whole process group", async (t) => {
  const scratch = scratchDirectory("tend-execd-hang-");
  const pidFile = join(scratch, "pid");
  const command = `/bin/sh -c 'echo started; sleep 1000 & echo $! > ${pidFile}; wait'`;
  const dir = workdir(
    control(`agent_expireafter => "1"; exec_command => "${command.replace(/"/g, '\\"')}";`),
  );
  const { executor, log } = fakeExecutor(t, dir, new Date(), () => undefined, {
    expireAfterMs: 300,
    killGraceMs: [100, 100],
  });
  assert.ok(executor.start().ok);
  const result = await executor.runOnce(true);
  assert.ok(result);
  assert.equal(result.killed, true);
  assert.equal(result.complete, false);
  const text = readFileSync(result.file as string, "utf8");
  assert.equal(
    text,
    "started\ncf-execd: timeout waiting for output from agent (agent_expireafter=1) - terminating it\n",
  );
  assert.ok(
    log.includes(
      "notice: cf-execd: timeout waiting for output from agent (agent_expireafter=1) - terminating it",
    ),
  );
  const grandchild = Number(readFileSync(pidFile, "utf8"));
  // Dead, or a zombie waiting for an init that does not reap (as in some containers).
  let alive = false;
  try {
    alive = !/^\d+ \([^)]*\) Z/.test(readFileSync(`/proc/${grandchild}/stat`, "utf8"));
  } catch {
    alive = false;
  }
  if (alive) process.kill(grandchild, "SIGKILL");
  assert.equal(alive, false, "the agent's own child was killed with the group");
});

test("survives a policy change: the new schedule and command from the next pulse; a broken one is ignored", async (t) => {
  const dir = workdir(control(`schedule => { "Min01" }; exec_command => "/bin/echo old";`));
  const file = join(dir, "inputs", "promises.cf");
  const { executor, log } = fakeExecutor(t, dir, new Date(2026, 0, 5, 12, 0, 0), (pulse, e) => {
    if (pulse === 2) {
      writeFileSync(file, control(`schedule => { "Min03" }; exec_command => "/bin/echo new";`));
    }
    if (pulse === 4) writeFileSync(file, "body executor control { schedule => { ");
    if (pulse >= 6) e.stop();
  });
  assert.ok(executor.start().ok);
  await executor.loop();
  await executor.idle();
  const texts = executor.results.map((r) => readFileSync(r.file as string, "utf8"));
  // 12:01 old schedule; 12:03 the new one; the broken file at 12:04 is ignored, Min03 stays.
  assert.deepEqual(texts, ["old\n", "new\n"]);
  assert.ok(log.some((l) => l.startsWith("info: Re-reading promise file")));
  assert.ok(log.includes("info: New promises file contains syntax errors -- ignoring"));
  assert.deepEqual(executor.executorControl?.schedule, ["Min03"]);
});

test("a reload can be asked for (SIGHUP)", async (t) => {
  const dir = workdir(control(`schedule => { "Min01" };`));
  const { executor, log } = fakeExecutor(t, dir, new Date(2026, 0, 5, 12, 0, 0), () => undefined);
  assert.ok(executor.start().ok);
  executor.requestReload();
  executor.scheduleRun();
  assert.ok(log.includes("verbose: Force reload of inputs files..."));
});

test("executorfacility is applied at start and at each reload, LOG_USER when absent (as cf-execd)", async (t) => {
  const dir = workdir(control(`schedule => { "Min01" }; executorfacility => "LOG_LOCAL6";`));
  const file = join(dir, "inputs", "promises.cf");
  const facilities: string[] = [];
  const { executor } = fakeExecutor(t, dir, new Date(2026, 0, 5, 12, 0, 0), () => undefined, {
    onControl: (c) => facilities.push(c.executorFacility),
  });
  assert.ok(executor.start().ok);
  writeFileSync(file, control(`schedule => { "Min01" }; executorfacility => "LOG_DAEMON";`));
  executor.requestReload();
  executor.scheduleRun();
  writeFileSync(file, control(`schedule => { "Min01" };`));
  executor.requestReload();
  executor.scheduleRun();
  assert.deepEqual(facilities, ["LOG_LOCAL6", "LOG_DAEMON", "LOG_USER"]);
});

function cliIo(dir: string): { io: CliIo; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: {
      stdout: (s: string) => out.push(s),
      stderr: (s: string) => err.push(s),
      stdoutIsTTY: false,
      stderrIsTTY: false,
      env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: dir },
      cwd: dir,
    },
    out,
    err,
  };
}

const ONCE_POLICY = control(
  `exec_command => "/bin/sh -c 'echo hello from agent; echo; echo \\"R: 2026-01-01T00:00:00+0000 notice: x\\"'";
  schedule => { "Min00_05" };
  splaytime => "0";`,
);

test("tend execd --once runs the agent now and keeps its output", async () => {
  const dir = workdir(ONCE_POLICY);
  const { io, out } = cliIo(dir);
  const code = await main(["execd", "--once", "-I", "-w", dir], io);
  assert.equal(code, 0);
  assert.deepEqual(
    out
      .join("")
      .split("\n")
      .filter((l) => l.includes("info: ")),
    ["    info: hello from agent", "    info: R: 2026-01-01T00:00:00+0000 notice: x"],
  );
  const names = outputs(dir);
  assert.equal(names.length, 1);
  assert.equal(
    readFileSync(join(dir, "outputs", names[0] as string), "utf8"),
    "hello from agent\nR: 2026-01-01T00:00:00+0000 notice: x\n",
  );
});

test("tend execd refuses a broken policy with cf-execd's message", async () => {
  const dir = workdir("body executor control { schedule => ");
  const { io, out, err } = cliIo(dir);
  const code = await main(["execd", "--once", "-w", dir], io);
  assert.equal(code, 1);
  assert.ok(out.join("").includes("error: Error reading CFEngine policy. Exiting..."));
  assert.ok(err.join("").includes("promises.cf"));
});

test("on the same policy, --once keeps the output as real cf-execd 3.21 does", async (t) => {
  const reason = skipReason("cf-execd");
  if (reason) return t.skip(reason);
  const ref = workdir(ONCE_POLICY);
  const done = runInHost(ref, ["cf-execd", "--once"]);
  assert.equal(done.status, 0, done.stderr);
  const mine = workdir(ONCE_POLICY);
  const { io } = cliIo(mine);
  assert.equal(await main(["execd", "--once", "-w", mine], io), 0);
  const [theirs] = outputs(ref);
  const [ours] = outputs(mine);
  assert.ok(theirs && ours);
  // cf_<fqhost>__<epoch>_<ctime>_0x<id>: the same shape; the host part identical.
  const shape =
    /^cf_([A-Za-z0-9_]+)__(\d+)_([A-Z][a-z]{2}_[A-Z][a-z]{2}_[_0-9]\d_\d\d_\d\d_\d\d_\d{4})_0x[0-9a-f]+$/;
  const a = shape.exec(theirs);
  const b = shape.exec(ours);
  assert.ok(a, theirs);
  assert.ok(b, ours);
  assert.equal(b[1], a[1]);
  assert.equal(
    readFileSync(join(mine, "outputs", ours), "utf8"),
    readFileSync(join(ref, "outputs", theirs), "utf8"),
  );
  // previous: a symbolic link to the run's file (cf-execd's target is under /var/lib/cfengine3).
  assert.equal(readlinkSync(join(ref, "outputs", "previous")), `/var/lib/cfengine3/outputs/${theirs}`);
  assert.equal(readlinkSync(join(mine, "outputs", "previous")), join(mine, "outputs", ours));
});

const TEND = fileURLToPath(new URL("../../../bin/tend.js", import.meta.url));

test("the daemon runs tend agent with the default command, writes its pid, and stops on SIGTERM", async (t) => {
  const dir = workdir(
    'body common control { bundlesequence => { "main" }; }\n' +
      'body executor control { schedule => { "any" }; }\n' +
      'bundle agent main {\nreports:\n  from_cfexecd.scheduled_run::\n    "promises ran from execd";\n}\n',
  );
  writeFileSync(join(dir, "inputs", "failsafe.cf"), 'bundle agent main { reports: "failsafe ran"; }\n');
  const child = spawn(process.execPath, [TEND, "execd", "-F", "-I", "-w", dir], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: "" },
  });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  let stdout = "";
  child.stdout.on("data", (c: Buffer) => {
    stdout += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const previous = join(dir, "outputs", "previous");
  // The first pulse comes at once; wait for its run to finish (bounded, not timed).
  for (let i = 0; i < 600 && !stdout.includes("promises ran from execd"); i++)
    await new Promise((r) => setTimeout(r, 100));
  for (let i = 0; i < 100 && !existsSync(previous); i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal(readFileSync(previous, "utf8"), "R: failsafe ran\nR: promises ran from execd\n");
  assert.equal(readFileSync(join(dir, "cf-execd.pid"), "utf8"), `${child.pid}\n`);
  assert.ok(stdout.includes("    info: R: failsafe ran\n"), stdout);
  // A second instance ends the first, as cf-execd's start does, and keeps the pid file.
  const second = spawn(process.execPath, [TEND, "execd", "-F", "-w", dir], { stdio: "ignore" });
  t.after(() => {
    if (second.exitCode === null && second.signalCode === null) second.kill("SIGKILL");
  });
  const secondExited = new Promise<number | null>((resolve) => second.on("exit", (code) => resolve(code)));
  assert.equal(await exited, 0);
  for (let i = 0; i < 100 && readFileSync(join(dir, "cf-execd.pid"), "utf8") !== `${second.pid}\n`; i++)
    await new Promise((r) => setTimeout(r, 100));
  assert.equal(readFileSync(join(dir, "cf-execd.pid"), "utf8"), `${second.pid}\n`);
  second.kill("SIGTERM");
  assert.equal(await secondExited, 0);
  assert.equal(existsSync(join(dir, "cf-execd.pid")), false);
});

test("a scheduled pulse logs the lines cf-execd 3.21 -F -v logs, in its order", async (t) => {
  const policy = control(
    `exec_command => "/bin/echo hello"; schedule => { "nosuch", "any" }; splaytime => "0";`,
  );
  const mine = workdir(policy);
  const log: string[] = [];
  const e: Executor = new Executor({
    file: "promises.cf",
    workdir: mine,
    logger: new Logger((r) => log.push(`${r.level.padStart(8)}: ${r.message}`), "verbose"),
    tendCommand: ["false"],
    sleep: async () => {
      await e.idle();
      e.stop();
    },
  });
  assert.ok(e.start().ok);
  await e.loop();
  await e.idle();
  // The forked child's last line is logged once its run's promise settles.
  await new Promise((r) => setImmediate(r));
  const reason = skipReason("cf-execd");
  if (reason) return t.skip(reason);
  const ref = workdir(policy);
  const child = spawnInHost(t, ref, ["cf-execd", "-F", "-v"]);
  let stdout = "";
  child.stdout?.on("data", (c: Buffer) => {
    stdout += c.toString();
  });
  for (let i = 0; i < 600 && !stdout.includes("terminating the forked process"); i++)
    await new Promise((r) => setTimeout(r, 100));
  child.kill("SIGKILL");
  const normalize = (lines: string[]): string[] => {
    const from = lines.findIndex((l) => l.includes("Waking up the agent"));
    const to = lines.findIndex((l) => l.includes("terminating the forked process"));
    return lines
      .slice(from, to + 1)
      .map((l) =>
        l
          .replace(/[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}/g, "CTIME")
          .replace(/\S*\/outputs\/(previous|cf_\S+)/g, (_m, f: string) =>
            f === "previous" ? "PREV" : "FILE",
          ),
      );
  };
  // cf-execd's parent logs its pulse sleep while the forked child runs: where that line falls
  // among the child's is a race in 3.21, so it is compared apart.
  const pulse = " verbose: Sleeping for pulse time 60 seconds";
  const theirs = normalize(stdout.split("\n"));
  const ours = normalize(log);
  assert.ok(theirs.length > 5, stdout);
  assert.ok(theirs.includes(pulse) && ours.includes(pulse));
  assert.deepEqual(
    ours.filter((l) => l !== pulse),
    theirs.filter((l) => l !== pulse),
  );
});
