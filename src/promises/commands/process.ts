/**
 * Running a command the way a `commands` promise contains it: without or
 * through `/bin/sh`, with a umask, user, group, directory and time limit.
 * Standard output and standard error go into one real pipe (a FIFO), so
 * their lines keep the order they were written in and `/dev/stderr` can be
 * reopened, as with 3.21's pipe. A tiny `/bin/sh` wrapper makes the FIFO,
 * starts `cat` to read it, and then becomes the command.
 *
 * A command that cannot run, dies from a signal or runs out of time is a
 * result like any other, with `exitCode` null and the reason set.
 */
import { type SpawnSyncOptions, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { splitCommand } from "../../eval/functions/exec.js";

/** `$1` is a fresh directory for the FIFO; the command follows. */
const JOIN_OUTPUT = 'f="$1/out"; shift; mkfifo "$f" || exit 126; cat "$f" & exec "$@" >"$f" 2>&1';

/** More output than this ends the command (Node's limit on what spawnSync collects). */
const MAX_OUTPUT = 1 << 30;

export interface ContainSpec {
  readonly commandLine: string;
  readonly shell: "noshell" | "useshell";
  readonly umask: number;
  readonly uid?: number;
  readonly gid?: number;
  readonly cwd?: string;
  readonly chroot?: string;
  /** Seconds; undefined waits as long as the command runs. */
  readonly timeoutSeconds?: number;
}

export interface ProcessResult {
  /** The exit status; null when the command did not exit by itself. */
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  /** Everything the command wrote to standard output and standard error. */
  readonly output: Buffer;
  /** Why the command could not be started. */
  readonly error?: string;
}

/** The program and its arguments, as 3.21 splits them (or hands them to the shell). */
export function commandArgv(spec: ContainSpec): string[] {
  const argv =
    spec.shell === "useshell" ? ["/bin/sh", "-c", spec.commandLine] : splitCommand(spec.commandLine);
  // A program named without a slash runs from the current directory, as execv would.
  if (argv[0] !== undefined && !argv[0].includes("/")) argv[0] = `./${argv[0]}`;
  return spec.chroot ? ["/usr/sbin/chroot", spec.chroot, ...argv] : argv;
}

/** Runs the command to its end (or its time limit) and collects its output. */
export function runContained(spec: ContainSpec): ProcessResult {
  const [program, ...args] = commandArgv(spec);
  if (program === undefined) {
    return { exitCode: null, signal: null, timedOut: false, output: Buffer.alloc(0), error: "empty command" };
  }
  const dir = mkdtempSync(join(tmpdir(), "tend-commands-"));
  const previousUmask = process.umask(spec.umask);
  try {
    const options: SpawnSyncOptions & { detached: boolean } = {
      stdio: ["ignore", "pipe", "inherit"],
      maxBuffer: MAX_OUTPUT,
      cwd: spec.cwd,
      uid: spec.uid,
      gid: spec.gid,
      // Its own process group, so that a time-out ends everything it started
      // (Node honours `detached` in spawnSync, though its types leave it out).
      detached: true,
      timeout: spec.timeoutSeconds === undefined ? undefined : spec.timeoutSeconds * 1000,
      killSignal: "SIGTERM",
    };
    const run = spawnSync("/bin/sh", ["-c", JOIN_OUTPUT, "tend-commands", dir, program, ...args], options);
    const timedOut = (run.error as NodeJS.ErrnoException | undefined)?.code === "ETIMEDOUT";
    if (timedOut && run.pid) killGroup(run.pid);
    const started = run.pid !== undefined && run.pid > 0 && !(run.error && !timedOut);
    return {
      exitCode: run.status,
      signal: run.signal,
      timedOut,
      output: Buffer.isBuffer(run.stdout) ? run.stdout : Buffer.alloc(0),
      ...(started ? {} : { error: run.error?.message ?? "the command could not be started" }),
    };
  } finally {
    process.umask(previousUmask);
    rmSync(dir, { recursive: true, force: true });
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // The group is already gone.
  }
}
