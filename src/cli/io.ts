/**
 * What a subcommand may touch of its process: output streams, environment
 * and working directory. Injected so that commands can run inside tests.
 */
export interface CliIo {
  /** Results: policy output, JSON. */
  readonly stdout: (text: string) => void;
  /** Bytes for stdout as they are (a file `tend net get -o -` fetched); stdout's text writer when absent. */
  readonly stdoutBytes?: (data: Uint8Array) => void;
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
  const stdout = writerTo(() => process.stdout);
  return {
    stdout,
    stdoutBytes: stdout,
    stderr: writerTo(() => process.stderr),
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

/** The process's streams written to (processIo's writers), to know when all is out. */
const written: NodeJS.WriteStream[] = [];

/** Whether everything written to stdout and stderr has been handed to the system. */
export function outputFlushed(): boolean {
  return written.every((stream) => stream.writableLength === 0);
}

/**
 * Writes to a stream made on first use. A reader that goes away (`tend
 * agent -v | head`) closes the pipe: the rest of the output is dropped and
 * the run goes on, instead of dying on an unhandled EPIPE.
 */
function writerTo(stream: () => NodeJS.WriteStream): (data: string | Uint8Array) => void {
  let closed = false;
  let watched = false;
  return (text) => {
    if (closed) return;
    const out = stream();
    if (!watched) {
      watched = true;
      written.push(out);
      out.on("error", (error: NodeJS.ErrnoException) => {
        if (error.code !== "EPIPE") throw error;
        closed = true;
      });
    }
    out.write(text);
  };
}

/** A usage problem: a bad option or a missing argument. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}
