/**
 * Running a command the way a `commands` promise contains it, on the
 * command provider (src/providers/commands): without or through `/bin/sh`,
 * with a umask, user, group, directory, root and time limit. Standard
 * output and standard error share one real pipe, read in the order
 * written, as with 3.21's pipe.
 *
 * What is 3.21's here: the command line split as ArgSplitCommand splits
 * it, a bare program run from the current directory, reading stopped at
 * `cfengine-die`, and a child whose setup fails printing its error line
 * and exiting 1. A command that cannot run, dies from a signal or runs out
 * of time is a result like any other, with `exitCode` null and the reason set.
 */
import { splitCommand } from "../../eval/functions/exec.js";
import { findSetupFailure } from "../../providers/commands/child-setup.js";
import {
  type CommandResult,
  type CommandSpec,
  finishBackgroundCommands as finishProviderBackground,
  runCommand,
  runCommandInBackground,
} from "../../providers/commands/index.js";

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

export type ProcessResult = Pick<CommandResult, "exitCode" | "signal" | "timedOut" | "output" | "error">;

/** The uid 3.21 names when asked for the login groups of no user at all. */
const NO_USER = 0xffffffff;

/** The program and its arguments, as 3.21 splits them (or hands them to the shell). */
export function commandArgv(spec: ContainSpec): string[] {
  const argv =
    spec.shell === "useshell" ? ["/bin/sh", "-c", spec.commandLine] : splitCommand(spec.commandLine);
  // A program named without a slash runs from the current directory, as execv would.
  if (argv[0] !== undefined && !argv[0].includes("/")) argv[0] = `./${argv[0]}`;
  return argv;
}

function providerSpec(spec: ContainSpec): CommandSpec {
  return {
    command: { argv: commandArgv(spec) },
    umask: spec.umask,
    uid: spec.uid,
    gid: spec.gid,
    cwd: spec.cwd,
    chroot: spec.chroot,
    timeoutMs: spec.timeoutSeconds === undefined ? undefined : spec.timeoutSeconds * 1000,
    stopAt: STOP_READING,
  };
}

/** The line 3.21's child prints when a setup step fails, as the command's output with exit 1. */
function childFailure(message: string): ProcessResult {
  return { exitCode: 1, signal: null, timedOut: false, output: Buffer.from(`   error: ${message}\n`) };
}

/** A setup step of 3.21's child that fails, in its order: the result it gives instead, if any. */
function cfengineSetup(spec: ContainSpec): ProcessResult | undefined {
  if (commandArgv(spec).length === 0) return undefined;
  const failure = findSetupFailure(spec);
  if (failure) return childFailure(failure.message);
  if (spec.gid !== undefined && spec.uid === undefined) {
    // 3.21 sets the login groups of the exec_owner, and fails when there is none.
    return childFailure(
      `Unable to get login groups when dropping privilege to '${NO_USER}'. (getpwuid: Success)`,
    );
  }
  return undefined;
}

function fromProvider(result: CommandResult): ProcessResult {
  if (result.setupFailure) return childFailure(result.setupFailure.message);
  const { exitCode, signal, timedOut, output, error } = result;
  return error === undefined
    ? { exitCode, signal, timedOut, output }
    : { exitCode, signal, timedOut, output, error };
}

/** Runs the command to its end (or its time limit) and collects its output. */
export function runContained(spec: ContainSpec): ProcessResult {
  return cfengineSetup(spec) ?? fromProvider(runCommand(providerSpec(spec)));
}

/** Results of background commands 3.21's child would refuse, handed over with the others. */
const refused: (() => void)[] = [];

/**
 * Starts the command and returns at once (action `background`); `collect`
 * gets its result in finishBackgroundCommands().
 */
export function runContainedInBackground(spec: ContainSpec, collect: (result: ProcessResult) => void): void {
  const early = cfengineSetup(spec);
  if (early) {
    refused.push(() => collect(early));
    return;
  }
  runCommandInBackground(providerSpec(spec), (result) => collect(fromProvider(result)));
}

/** Waits for every background command of the run and hands over their results. */
export function finishBackgroundCommands(): void {
  for (const collect of refused.splice(0)) collect();
  finishProviderBackground();
}
