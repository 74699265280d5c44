/**
 * Running commands synchronously for execresult(), returnszero() and
 * friends, the way 3.21 splits and runs them. A failure to run is a result
 * of the same shape as a run (exit code, output), with `error` set.
 */
import { spawnSync } from "node:child_process";
import { runCommand as runProgram, startRunnerEarly } from "../../providers/commands/index.js";

export type ShellMode = "noshell" | "useshell" | "powershell";
export type OutputSelect = "both" | "stdout" | "stderr";

export interface CommandResult {
  readonly command: string;
  /** The exit status, or -1 when the command died from a signal or did not run. */
  readonly exitCode: number;
  /** Output with trailing whitespace removed, as 3.21 returns it. */
  readonly output: string;
  readonly error?: string;
  /** The output went past OUTPUT_LIMIT: it was cut there and the program stopped. */
  readonly truncated?: boolean;
}

/**
 * How long a command run by a function may take: 3.21 waits forever;
 * tend kills it (and its process group, through the runner) and fails
 * the call. `tend_control.function_timeout` (seconds) sets another.
 */
export const DEFAULT_COMMAND_TIMEOUT_MS = 300_000;

/** What a function keeps of a command's output (3.21 stops reading at about 100 MB). */
export const OUTPUT_LIMIT = 64 * 1024 * 1024;

/**
 * Splits a command line into words as 3.21's `ArgSplitCommand`: blanks
 * separate words; `"`, `'` and backquote quote a word (no escapes inside).
 */
export function splitCommand(command: string): string[] {
  const words: string[] = [];
  let i = 0;
  while (i < command.length) {
    if (/\s/.test(command[i])) {
      i++;
      continue;
    }
    const quote = "\"'`".includes(command[i]) ? command[i] : undefined;
    const start = quote ? i + 1 : i;
    let end = quote ? command.indexOf(quote, start) : command.slice(start).search(/[ \f\n\r\t\v]/);
    if (!quote && end !== -1) end += start;
    if (end === -1) {
      words.push(command.slice(start));
      break;
    }
    words.push(command.slice(start, end));
    i = quote ? end + 1 : end;
  }
  return words;
}

/** The program part of a command line: up to the first blank, or the first quoted word. */
export function commandArg0(command: string): string {
  if (command.startsWith('"')) {
    const close = command.indexOf('"', 1);
    return close === -1 ? command.slice(1) : command.slice(1, close);
  }
  const space = command.indexOf(" ");
  return space === -1 ? command : command.slice(0, space);
}

/** Joins lines as 3.21 reads them (each cut at a NUL) and chops trailing whitespace. */
export function cleanOutput(raw: string): string {
  const lines = raw.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const joined = lines.map((line) => line.split("\0")[0]).join("\n");
  // By hand: a regex would backtrack once per line ending of a long output.
  let end = joined.length;
  while (end > 0 && TRAILING_BLANKS.has(joined.charCodeAt(end - 1))) end--;
  return joined.slice(0, end);
}

/** Space, tab, newline, vertical tab, form feed, carriage return. */
const TRAILING_BLANKS: ReadonlySet<number> = new Set([32, 9, 10, 11, 12, 13]);

/**
 * Starting a program from Node (spawnSync forks the whole Node process)
 * costs milliseconds; the commands runner (spawn-client.ts) starts one far
 * more cheaply, but is a process of its own to start. A policy that calls
 * execresult() or returnszero() many times (and cf-promises' evaluation of
 * it before the agent's: commands uncached) gets the runner from its third
 * command on; it is started at the first, to be ready by then.
 */
const DIRECT_COMMANDS = 2;
let commandsStarted = 0;

/** Whether this command goes through the runner: it runs argv as given, stdout and stderr merged. */
function throughRunner(shell: ShellMode, select: OutputSelect): boolean {
  commandsStarted++;
  if (commandsStarted === 1) startRunnerEarly();
  return commandsStarted > DIRECT_COMMANDS && shell === "noshell" && select === "both";
}

function runThroughRunner(argv: readonly string[], timeoutMs: number) {
  // As spawnSync would: this process's directory and umask at the call.
  const reply = runProgram({ command: { argv }, cwd: process.cwd(), timeoutMs, maxOutput: OUTPUT_LIMIT });
  return { reply, output: reply.output.toString("utf8") };
}

/**
 * Runs a command and captures the selected output. `both` interleaves stdout
 * and stderr in write order (they share one pipe, as in 3.21).
 */
export function runCommand(
  command: string,
  shell: ShellMode,
  select: OutputSelect = "both",
  timeoutMs = DEFAULT_COMMAND_TIMEOUT_MS,
): CommandResult {
  if (shell === "powershell") {
    return { command, exitCode: -1, output: "", error: "Powershell is only supported on Windows" };
  }
  const [program, ...args] = shell === "useshell" ? ["/bin/sh", "-c", command] : splitCommand(command);
  if (program === undefined) return { command, exitCode: -1, output: "", error: "empty command" };
  if (throughRunner(shell, select)) {
    const { reply, output } = runThroughRunner([program, ...args], timeoutMs);
    const exitCode = reply.exitCode ?? -1;
    const cleaned = cleanOutput(output);
    if (reply.error) return { command, exitCode, output: cleaned, error: reply.error };
    if (reply.timedOut) return { command, exitCode, output: cleaned, error: timedOut(timeoutMs) };
    if (reply.truncated) return { command, exitCode, output: cleaned, truncated: true };
    return { command, exitCode, output: cleaned };
  }
  // With a shell, `sh` as its $0 (as 3.21 names it in its messages).
  const argv = shell === "useshell" ? [program, ...args, "sh"] : [program, ...args];
  const run = spawnSync("/bin/sh", directArgs(argv, select), {
    argv0: "sh",
    stdio: ["ignore", "pipe", "ignore"],
    timeout: timeoutMs,
    killSignal: "SIGKILL",
    maxBuffer: OUTPUT_LIMIT,
  });
  const bytes = run.stdout instanceof Buffer ? run.stdout.subarray(0, OUTPUT_LIMIT) : Buffer.alloc(0);
  const output = cleanOutput(bytes.toString("utf8"));
  const exitCode = run.status ?? -1;
  const code = (run.error as NodeJS.ErrnoException | undefined)?.code;
  // Past the limit the program is stopped and its output so far kept, as 3.21 stops reading.
  if (code === "ENOBUFS") return { command, exitCode, output, truncated: true };
  if (code === "ETIMEDOUT") return { command, exitCode, output, error: timedOut(timeoutMs) };
  return run.error ? { command, exitCode, output, error: run.error.message } : { command, exitCode, output };
}

/**
 * How `/bin/sh` starts `argv` with its stdout and stderr on one pipe (so
 * "both" keeps their write order, as 3.21's one pipe does), or only the
 * selected one on it. The shell execs the program: no process is added.
 */
function directArgs(argv: readonly string[], select: OutputSelect): string[] {
  const redirect = select === "both" ? "2>&1" : select === "stderr" ? "2>&1 >/dev/null" : "2>/dev/null";
  return ["-c", `exec "$0" "$@" ${redirect}`, ...argv];
}

function timedOut(timeoutMs: number): string {
  return `killed after ${timeoutMs / 1000} s (tend_control.function_timeout)`;
}

/** The outcome of a command run for its exit status. */
export interface StatusResult {
  readonly succeeded: boolean;
  /**
   * What the command printed. 3.21 lets it through to the agent's own
   * output: always through a shell; without one only when the agent logs
   * at info level or more (`informOnly`), else it goes to /dev/null.
   */
  readonly passthrough: string;
  readonly informOnly: boolean;
  /** Why the command was stopped (its time limit), if it was. */
  readonly error?: string;
}

/** Runs a command for its exit status only. */
export function commandSucceeds(
  command: string,
  shell: ShellMode,
  timeoutMs = DEFAULT_COMMAND_TIMEOUT_MS,
): StatusResult {
  const informOnly = shell !== "useshell";
  if (shell === "powershell") return { succeeded: false, passthrough: "", informOnly };
  const [program, ...args] = shell === "useshell" ? ["/bin/sh", "-c", command] : splitCommand(command);
  if (program === undefined) return { succeeded: false, passthrough: "", informOnly };
  if (throughRunner(shell, "both")) {
    const { reply, output } = runThroughRunner([program, ...args], timeoutMs);
    const error = reply.timedOut ? timedOut(timeoutMs) : undefined;
    return { succeeded: reply.exitCode === 0, passthrough: output, informOnly, error };
  }
  const run = spawnSync(program, args, {
    argv0: shell === "useshell" ? "sh" : program,
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    timeout: timeoutMs,
    killSignal: "SIGKILL",
    maxBuffer: OUTPUT_LIMIT,
  });
  const passthrough = `${run.stdout ?? ""}${run.stderr ?? ""}`;
  const late = (run.error as NodeJS.ErrnoException | undefined)?.code === "ETIMEDOUT";
  return {
    succeeded: run.status === 0,
    passthrough,
    informOnly,
    error: late ? timedOut(timeoutMs) : undefined,
  };
}
