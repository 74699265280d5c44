/**
 * Running contained commands (process.ts) through each way of starting
 * them (the Python runner, the perl runner, the Node spawn worker): output
 * in the order written through one real pipe, umask, time limits that end
 * the whole process group, cfengine-die, and failures as results.
 * Everything runs in a temporary directory.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test as nodeTest } from "node:test";
import {
  type ContainSpec,
  finishBackgroundCommands,
  runContained,
  runContainedInBackground,
} from "../../../src/promises/commands/process.js";

const dir = mkdtempSync(join(tmpdir(), "tend-process-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const SPAWNERS = [
  ["python", "/usr/bin/python3"],
  ["perl", "/usr/bin/perl"],
  ["node", undefined],
] as const;
let spawner = "";

/** Runs the command with the spawner of the test. */
function contained(spec: ContainSpec) {
  const previous = process.env.TEND_SPAWNER;
  process.env.TEND_SPAWNER = spawner;
  try {
    return runContained(spec);
  } finally {
    if (previous === undefined) delete process.env.TEND_SPAWNER;
    else process.env.TEND_SPAWNER = previous;
  }
}

function run(commandLine: string, more: Partial<ContainSpec> = {}) {
  return contained({ commandLine, shell: "useshell", umask: 0o077, ...more });
}

/** Whether a process runs (a zombie waiting for its parent to reap it does not). */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

for (const [name, interpreter] of SPAWNERS) {
  const skip = interpreter !== undefined && !existsSync(interpreter) ? `no ${interpreter}` : false;
  const test = (title: string, more: { skip?: boolean } | (() => void), body?: () => void) => {
    const fn = typeof more === "function" ? more : body!;
    const skipped = skip || (typeof more === "object" && more.skip ? "not root" : false);
    nodeTest(title, { skip: skipped }, () => {
      spawner = name;
      fn();
    });
  };

  test(`${name}: standard output and standard error share one pipe, in the order written`, () => {
    const result = run("echo one; echo two >&2; echo three >/dev/stderr; echo four >/dev/stdout");
    assert.equal(result.exitCode, 0);
    assert.equal(result.output.toString(), "one\ntwo\nthree\nfour\n");
  });

  test(`${name}: a command writing more than a pipe holds is read to its end`, () => {
    const result = run("head -c 1000000 /dev/zero | tr '\\0' x; echo; echo end");
    assert.equal(result.exitCode, 0);
    assert.equal(result.output.length, 1_000_000 + 1 + 4);
  });

  test(`${name}: the command gets the umask asked for, and the agent keeps its own`, () => {
    const before = process.umask();
    assert.equal(run("umask", { umask: 0o022 }).output.toString(), "0022\n");
    assert.equal(run("umask", { umask: 0o027 }).output.toString(), "0027\n");
    assert.equal(process.umask(), before);
  });

  test(`${name}: the exit status, and a signal as no status`, () => {
    assert.equal(run("exit 3").exitCode, 3);
    const killed = run("kill -TERM $$");
    assert.equal(killed.exitCode, null);
    assert.equal(killed.signal, "SIGTERM");
  });

  test(`${name}: at the time limit the whole process group ends, even what holds the pipe`, () => {
    const pidFile = join(dir, "sleeper.pid");
    // The background sleep keeps the pipe open: without the group kill the output would never end.
    const result = run(`sleep 300 & echo $! > ${pidFile}; echo started; wait`, { timeoutSeconds: 1 });
    assert.equal(result.timedOut, true);
    assert.equal(result.exitCode, null);
    assert.equal(result.output.toString(), "started\n");
    const sleeper = Number(readFileSync(pidFile, "utf8"));
    assert.equal(isRunning(sleeper), false, "the background sleep was killed");
    // The next command is not disturbed by the one that timed out.
    assert.equal(run("echo next").output.toString(), "next\n");
  });

  test(`${name}: reading stops at cfengine-die: writing more kills the command with SIGPIPE`, () => {
    const result = run("echo a; echo cfengine-die; sleep 1; echo b");
    assert.equal(result.signal, "SIGPIPE");
    assert.equal(result.exitCode, null);
    assert.match(result.output.toString(), /^a\ncfengine-die\n/);
    assert.equal(run("echo after die").output.toString(), "after die\n");
  });

  test(`${name}: a program without the shell, with its arguments as 3.21 splits them`, () => {
    const result = contained({ commandLine: "/bin/echo 'a  b' c", shell: "noshell", umask: 0o077 });
    assert.equal(result.output.toString(), "a  b c\n");
  });

  test(`${name}: a directory that cannot be entered fails the way 3.21's child reports it`, () => {
    const missing = join(dir, "missing");
    const result = run("pwd", { cwd: missing });
    assert.equal(result.exitCode, 1);
    assert.equal(
      result.output.toString(),
      `   error: Couldn't chdir to '${missing}'. (chdir: No such file or directory)\n`,
    );
    assert.equal(run("pwd", { cwd: dir }).output.toString(), `${dir}\n`);
  });

  test(`${name}: a program that cannot start is a result with the reason`, () => {
    const result = contained({ commandLine: join(dir, "nothing-here"), shell: "noshell", umask: 0o077 });
    assert.equal(result.exitCode, null);
    assert.ok(result.error);
  });

  test(`${name}: programs get the agent's environment as it is`, () => {
    const expected = `${process.env.LC_CTYPE ?? "unset"} ${process.env.HOME ?? "unset"}\n`;
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell expands these.
    assert.equal(run('echo "${LC_CTYPE-unset} ${HOME-unset}"').output.toString(), expected);
  });

  test(`${name}: programs start with no signal ignored (SIGPIPE, SIGXFSZ) and none blocked`, () => {
    const status = run("grep -E '^Sig(Ign|Blk)' /proc/self/status").output.toString();
    const mask = (field: string) =>
      BigInt(`0x${status.match(new RegExp(`${field}:\\s*([0-9a-f]+)`))?.[1] ?? "0"}`);
    // Signals 32 and 33 are glibc's own, which its posix_spawn leaves ignored; libc sets them up again.
    assert.equal(mask("SigIgn") & ~0x180000000n, 0n);
    assert.equal(mask("SigBlk"), 0n);
  });

  test(`${name}: a relative directory and program name, as the agent's process sees them`, () => {
    const result = contained({ commandLine: "./ls -d .", shell: "noshell", umask: 0o077, cwd: "/bin" });
    assert.equal(result.output.toString(), ".\n");
    assert.equal(run("pwd").output.toString(), `${process.cwd()}\n`);
  });

  test(`${name}: background programs run alongside and are collected at the end`, () => {
    const results: string[] = [];
    const spec = (commandLine: string): ContainSpec => ({ commandLine, shell: "useshell", umask: 0o022 });
    process.env.TEND_SPAWNER = spawner;
    try {
      runContainedInBackground(spec("sleep 0.3; echo slow"), (r) => results.push(r.output.toString()));
      runContainedInBackground(spec("echo fast; exit 2"), (r) => results.push(`${r.output}${r.exitCode}`));
      assert.equal(run("echo meanwhile").output.toString(), "meanwhile\n");
      finishBackgroundCommands();
    } finally {
      delete process.env.TEND_SPAWNER;
    }
    assert.deepEqual(results, ["fast\n2", "slow\n"]);
  });

  test(`${name}: a user and group to run as (root only)`, { skip: process.getuid?.() !== 0 }, () => {
    const result = run("id -u; id -g; umask", { uid: 65534, gid: 65534, umask: 0o027 });
    assert.equal(result.output.toString(), "65534\n65534\n0027\n");
  });
}
