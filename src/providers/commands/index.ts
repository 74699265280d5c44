/**
 * The command provider: one way for every front end to run a program.
 * CFEngine's `commands` promises and exec functions, Puppet's `exec` and
 * the recipes all come through here, onto the one runner of this folder
 * (spawn-client.ts: a Python or perl runner process, else the spawn
 * worker).
 *
 * A command is an argument vector (no shell) or, only when asked, a shell
 * command line run by `/bin/sh -c`. It runs with the agent's environment
 * plus `env`, in `cwd`, as `uid`/`gid`, with `umask`, optionally inside a
 * chroot, with its standard input from `stdin` (else /dev/null).
 * Standard output and standard error share one pipe, in the order
 * written; `output` keeps only one of them instead. At `timeoutMs` the
 * program's process group gets SIGTERM, then SIGKILL, and the result says
 * `timedOut`.
 *
 * Nothing here throws for a command that fails: a program that cannot
 * start, a setup step that fails (chroot, directory), a signal or a time
 * limit is a result of the same shape as a success, with `error` set when
 * the program never ran.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chrootCommand, findSetupFailure, type SetupFailure } from "./child-setup.js";
import { type SpawnOrder, finishBackground, spawnAndWait, spawnInBackground } from "./spawn-client.js";
import type { SpawnReply } from "./spawn-protocol.js";

export { executableProblem, findExecutable, type ExecutableProblem } from "./executable.js";
export { readGroup, readOwner, UNKNOWN_ID, type Identity } from "./identity.js";
export { startRunnerEarly } from "./spawn-client.js";

/** An argument vector run as it stands, or a command line for `/bin/sh -c`. */
export type CommandLine = { readonly argv: readonly string[] } | { readonly shell: string };

/** Which output is kept: both streams on one pipe in write order, or one of them. */
export type OutputStreams = "combined" | "stdout" | "stderr";

export interface CommandSpec {
  readonly command: CommandLine;
  /** Variables added to, or replacing those of, the agent's environment; null removes one. */
  readonly env?: Readonly<Record<string, string | null>>;
  /** The working directory (inside the chroot, when there is one). */
  readonly cwd?: string;
  /** A directory the program runs chrooted in (needs root). */
  readonly chroot?: string;
  readonly uid?: number;
  readonly gid?: number;
  /** The program's umask; the agent's when absent. */
  readonly umask?: number;
  /** Milliseconds before the program's process group is killed; none when absent. */
  readonly timeoutMs?: number;
  /** What the program reads on its standard input; /dev/null when absent. */
  readonly stdin?: string | Uint8Array;
  /** Which output to keep (default `combined`). */
  readonly output?: OutputStreams;
  /** Bytes of output kept; past them the pipe is closed (default 1 GiB). */
  readonly maxOutput?: number;
  /** Stop reading at the first line holding this text (CFEngine's `cfengine-die`). */
  readonly stopAt?: string;
}

export interface CommandResult {
  /** The exit status; null when the program did not exit by itself (signal, time limit, never ran). */
  readonly exitCode: number | null;
  /** The signal that ended it (`SIGTERM`...), or null. */
  readonly signal: string | null;
  /** It ran past `timeoutMs` and was killed. */
  readonly timedOut: boolean;
  /** The output kept (see `output`). */
  readonly output: Buffer;
  /** Why the program did not run (or did not end after SIGKILL). */
  readonly error?: string;
  /** A setup step that failed before the program could start (error says which). */
  readonly setupFailure?: SetupFailure;
  /** The output reached `maxOutput` and was cut there. */
  readonly truncated: boolean;
}

export type { SetupFailure } from "./child-setup.js";

const DEFAULT_MAX_OUTPUT = 1 << 30;

/** Runs a command to its end (or its time limit) and returns what happened. */
export function runCommand(spec: CommandSpec): CommandResult {
  const prepared = prepare(spec);
  if ("result" in prepared) return prepared.result;
  try {
    return toResult(spawnAndWait(prepared.order), prepared.order.maxOutput);
  } finally {
    prepared.cleanUp();
  }
}

/** Results of background commands that could not start, handed over with the others. */
const notStarted: (() => void)[] = [];

/**
 * Starts a command and returns once it runs; `collect` gets its result in
 * finishBackgroundCommands(), which the run calls before it ends.
 */
export function runCommandInBackground(spec: CommandSpec, collect: (result: CommandResult) => void): void {
  const prepared = prepare(spec);
  if ("result" in prepared) {
    notStarted.push(() => collect(prepared.result));
    return;
  }
  spawnInBackground(prepared.order, (reply) => {
    prepared.cleanUp();
    collect(toResult(reply, prepared.order.maxOutput));
  });
}

/** Waits for every background command and hands over their results, in the order they end. */
export function finishBackgroundCommands(): void {
  for (const collect of notStarted.splice(0)) collect();
  finishBackground();
}

type Prepared =
  | { readonly order: SpawnOrder & { readonly maxOutput: number }; cleanUp(): void }
  | { readonly result: CommandResult };

function failed(error: string, setupFailure?: SetupFailure): { result: CommandResult } {
  const result = { exitCode: null, signal: null, timedOut: false, output: Buffer.alloc(0), truncated: false };
  return { result: { ...result, error, setupFailure } };
}

/** What to start for the spec, or its result already when it cannot start as asked. */
function prepare(spec: CommandSpec): Prepared {
  const argv = selectOutput(commandArgv(spec.command), spec.output ?? "combined");
  if (argv.length === 0 || argv[0] === "") return failed("empty command");
  const setupFailure = findSetupFailure(spec);
  if (setupFailure) return failed(setupFailure.message, setupFailure);
  const input = stdinFile(spec.stdin);
  const order = {
    ...placement(spec, argv),
    umask: spec.umask ?? process.umask(),
    timeoutMs: spec.timeoutMs,
    maxOutput: spec.maxOutput ?? DEFAULT_MAX_OUTPUT,
    stopAt: spec.stopAt,
    env: spec.env,
    stdinPath: input?.path,
  };
  return { order, cleanUp: () => input?.remove() };
}

function commandArgv(command: CommandLine): string[] {
  return "shell" in command ? ["/bin/sh", "-c", command.shell] : [...command.argv];
}

/** One stream only: `/bin/sh` redirects the other away, then execs the program (no process added). */
function selectOutput(argv: string[], streams: OutputStreams): string[] {
  if (streams === "combined" || argv.length === 0) return argv;
  const redirect = streams === "stderr" ? "2>&1 >/dev/null" : "2>/dev/null";
  return ["/bin/sh", "-c", `exec "$0" "$@" ${redirect}`, ...argv];
}

/** The program to start, where, and as whom; in a chroot its helper does the rest. */
function placement(spec: CommandSpec, argv: string[]): Pick<SpawnOrder, "argv" | "cwd" | "uid" | "gid"> {
  if (spec.chroot) return { argv: chrootCommand({ ...spec, chroot: spec.chroot }, argv) };
  return { argv, cwd: spec.cwd, uid: spec.uid, gid: spec.gid };
}

/** Standard input written to a private file the program opens; removed after the run. */
function stdinFile(data: string | Uint8Array | undefined): { path: string; remove(): void } | undefined {
  if (data === undefined) return undefined;
  const dir = mkdtempSync(join(tmpdir(), "tend-stdin-"));
  const path = join(dir, "stdin");
  writeFileSync(path, data, { mode: 0o600 });
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

function toResult(reply: SpawnReply, maxOutput: number): CommandResult {
  const output = Buffer.from(reply.output.buffer, reply.output.byteOffset, reply.output.byteLength);
  return { ...reply, output, truncated: output.length >= maxOutput };
}
