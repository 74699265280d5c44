/**
 * Running a command the way a `commands` promise contains it: without or
 * through `/bin/sh`, with a umask, user, group, directory, root and time
 * limit. Standard output and standard error share one real pipe, read in
 * the order written, as with 3.21's pipe (see spawn-worker.ts).
 *
 * A command that cannot run, dies from a signal or runs out of time is a
 * result like any other, with `exitCode` null and the reason set.
 */
import { splitCommand } from "../../eval/functions/exec.js";
import { chrootCommand, findSetupFailure } from "./child-setup.js";
import type { SpawnReply } from "../../providers/commands/spawn-protocol.js";
import {
  type SpawnOrder,
  finishBackground,
  spawnAndWait,
  spawnInBackground,
} from "../../providers/commands/spawn-client.js";

/** Output past this is not read: the pipe is closed (the program gets SIGPIPE if it writes on). */
const MAX_OUTPUT = 1 << 30;

/** 3.21 stops reading a command's output at a line holding this. */
export const STOP_READING = "cfengine-die";

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
  return argv;
}

type Prepared = { readonly order: SpawnOrder } | { readonly result: ProcessResult };

/** What to start for the spec, or its result already when it cannot start as asked. */
function prepare(spec: ContainSpec): Prepared {
  const argv = commandArgv(spec);
  if (argv.length === 0) {
    return {
      result: {
        exitCode: null,
        signal: null,
        timedOut: false,
        output: Buffer.alloc(0),
        error: "empty command",
      },
    };
  }
  const failure = findSetupFailure(spec);
  if (failure) {
    const output = Buffer.from(`${failure.line}\n`);
    return { result: { exitCode: failure.exitCode, signal: null, timedOut: false, output } };
  }
  return {
    order: {
      ...placement(spec, argv),
      umask: spec.umask,
      timeoutMs: spec.timeoutSeconds === undefined ? undefined : spec.timeoutSeconds * 1000,
      maxOutput: MAX_OUTPUT,
      stopAt: STOP_READING,
    },
  };
}

function toResult(reply: SpawnReply): ProcessResult {
  const output = Buffer.from(reply.output.buffer, reply.output.byteOffset, reply.output.byteLength);
  return { ...reply, output };
}

/** Runs the command to its end (or its time limit) and collects its output. */
export function runContained(spec: ContainSpec): ProcessResult {
  const prepared = prepare(spec);
  if ("result" in prepared) return prepared.result;
  return toResult(spawnAndWait(prepared.order));
}

/** Results of background commands that could not start, handed over with the others. */
const notStarted: (() => void)[] = [];

/**
 * Starts the command and returns at once (action `background`); `collect`
 * gets its result in finishBackgroundCommands().
 */
export function runContainedInBackground(spec: ContainSpec, collect: (result: ProcessResult) => void): void {
  const prepared = prepare(spec);
  if ("result" in prepared) {
    notStarted.push(() => collect(prepared.result));
    return;
  }
  spawnInBackground(prepared.order, (reply) => collect(toResult(reply)));
}

/** Waits for every background command of the run and hands over their results. */
export function finishBackgroundCommands(): void {
  for (const collect of notStarted.splice(0)) collect();
  finishBackground();
}

/** The program to start, where, and as whom; in a chroot its helper does the rest. */
function placement(spec: ContainSpec, argv: string[]): Pick<SpawnOrder, "argv" | "cwd" | "uid" | "gid"> {
  if (spec.chroot) return { argv: chrootCommand({ ...spec, chroot: spec.chroot }, argv) };
  return { argv, cwd: spec.cwd, uid: spec.uid, gid: spec.gid };
}
