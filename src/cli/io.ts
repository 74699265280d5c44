/**
 * What a subcommand may touch of its process: output streams, environment
 * and working directory. Injected so that commands can run inside tests.
 */
export interface CliIo {
  /** Results: policy output, JSON. */
  readonly stdout: (text: string) => void;
  /** Diagnostics and logs. */
  readonly stderr: (text: string) => void;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
}

/** A subcommand: parses its own arguments and returns the exit code. */
export interface Command {
  run(args: readonly string[], io: CliIo): Promise<number>;
}

/** Exit codes, as cf-promises uses them: 0 for success, 1 for any failure. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;

/**
 * The I/O of the running process. Node makes process.stdout and stderr on
 * first use, which costs startup time: a run that prints nothing never does.
 */
export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    get stdoutIsTTY() {
      return process.stdout.isTTY === true;
    },
    get stderrIsTTY() {
      return process.stderr.isTTY === true;
    },
    env: process.env,
    cwd: process.cwd(),
  };
}

/** A usage problem: a bad option or a missing argument. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}
