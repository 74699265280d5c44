/**
 * What a subcommand may touch of its process: output streams, environment
 * and working directory. Injected so that commands can run inside tests.
 */
import { fstatSync, writeSync } from "node:fs";

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
  const stdout = writerTo(1, () => process.stdout);
  return {
    stdout,
    stdoutBytes: stdout,
    stderr: writerTo(2, () => process.stderr),
    get stdoutIsTTY() {
      return !writtenDirectly(1) && process.stdout.isTTY === true;
    },
    get stderrIsTTY() {
      return !writtenDirectly(2) && process.stderr.isTTY === true;
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

/** Whether each descriptor is written to directly (undefined: not looked at yet). */
const direct: (boolean | undefined)[] = [];

/**
 * Whether output to `fd` is written with write(2) itself: a pipe, a
 * socket (what Node and libuv give a child for a pipe) or a regular
 * file, which Node's own stream writes synchronously too on Linux. Making
 * that stream costs ~3.5 ms of CPU for a pipe (node:net, its streams, a
 * libuv handle): what each run of tend under another program spent on
 * it. A terminal and anything else get Node's stream.
 */
function writtenDirectly(fd: number): boolean {
  let known = direct[fd];
  if (known === undefined) {
    try {
      const stats = fstatSync(fd);
      known = stats.isFIFO() || stats.isSocket() || stats.isFile();
    } catch {
      known = false;
    }
    direct[fd] = known;
  }
  return known;
}

/**
 * Writes to `fd` directly (writtenDirectly), else to a stream made on first
 * use. A reader that goes away (`tend agent -v | head`) closes the pipe: the
 * rest of the output is dropped and the run goes on, instead of dying on an
 * unhandled EPIPE. A pipe someone made non-blocking (EAGAIN) is handed to
 * the stream, which waits for it, from then on.
 */
function writerTo(fd: number, stream: () => NodeJS.WriteStream): (data: string | Uint8Array) => void {
  let closed = false;
  let watched = false;
  return (text) => {
    if (closed) return;
    let rest: string | Uint8Array = text;
    if (writtenDirectly(fd)) {
      const bytes = typeof text === "string" ? Buffer.from(text, "utf8") : text;
      let done = 0;
      try {
        while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
        return;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "EPIPE") {
          closed = true;
          return;
        }
        if (code !== "EAGAIN") throw error;
        direct[fd] = false;
        rest = bytes.subarray(done);
      }
    }
    const out = stream();
    if (!watched) {
      watched = true;
      written.push(out);
      out.on("error", (error: NodeJS.ErrnoException) => {
        if (error.code !== "EPIPE") throw error;
        closed = true;
      });
    }
    // A caller may reuse its buffer once the call returns (the catalog's
    // JSON does): the stream, which may write it later, is given a copy.
    out.write(typeof rest === "string" ? rest : Buffer.from(rest));
  };
}

/** A usage problem: a bad option or a missing argument. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}
