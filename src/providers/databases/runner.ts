/**
 * How the databases provider runs its client program: an injected function
 * from argv (and extra environment) to the process's result. The default
 * runs the program directly (no shell) and waits for it.
 */
import { spawnSync } from "node:child_process";

export interface ProgramResult {
  /** The exit status; null when the program could not start or was killed. */
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export type ProgramRunner = (argv: readonly string[], env: Readonly<Record<string, string>>) => ProgramResult;

/** Runs argv[0] with the rest as its arguments, no shell; a program that cannot start is status null. */
export const runProgram: ProgramRunner = (argv, env) => {
  const [command = "", ...args] = argv;
  const run = spawnSync(command, args, {
    encoding: "utf8",
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  });
  const stderr = run.error ? `${run.stderr ?? ""}${run.error.message}` : (run.stderr ?? "");
  return { status: run.error ? null : run.status, stdout: run.stdout ?? "", stderr };
};
