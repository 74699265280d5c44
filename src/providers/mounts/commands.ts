/**
 * Running mount(8) and umount(8): the provider takes a runner (argv to
 * a result, no shell) so a front end or a test can give its own; the
 * default runs the program with node:child_process, standard error joined
 * to standard output as the agents read them.
 */
import { spawnSync } from "node:child_process";

/** What a program did; a program that could not be started has `status` null and `error`. */
export interface CommandResult {
  readonly status: number | null;
  /** Standard output then standard error. */
  readonly output: string;
  readonly error?: string;
}

export type CommandRunner = (argv: readonly string[], timeoutSeconds?: number) => CommandResult;

export const MOUNT_COMMAND = "/bin/mount";
export const UMOUNT_COMMAND = "/bin/umount";

/** Runs `argv` without a shell; the result whatever happens (never throws). */
export const runCommand: CommandRunner = (argv, timeoutSeconds) => {
  const [program, ...args] = argv;
  if (program === undefined) return { status: null, output: "", error: "no command" };
  const run = spawnSync(program, args, {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: timeoutSeconds === undefined ? undefined : timeoutSeconds * 1000,
    maxBuffer: 16 * 1024 * 1024,
  });
  const output = `${run.stdout ?? ""}${run.stderr ?? ""}`;
  if (run.error) return { status: run.status, output, error: run.error.message };
  return { status: run.status, output };
};

/** The first line of a program's output, or undefined when it printed nothing. */
export function firstLine(output: string): string | undefined {
  if (output === "") return undefined;
  const end = output.indexOf("\n");
  return end < 0 ? output : output.slice(0, end);
}

/** Whether mount or umount said the device or mount point is busy. */
export function saysBusy(line: string): boolean {
  return line.includes("busy") || line.includes("Busy");
}

/** A mount of `source` on `target` as argv: `-t` only when a type is given, `-o` only with options. */
export function mountArgv(
  source: string,
  target: string,
  options: readonly string[],
  fstype?: string,
  command = MOUNT_COMMAND,
): string[] {
  const argv = [command];
  if (fstype !== undefined) argv.push("-t", fstype);
  if (options.length > 0) argv.push("-o", options.join(","));
  argv.push(source, target);
  return argv;
}
