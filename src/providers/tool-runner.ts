/**
 * How providers run the system's tools: an
 * argument vector, never a shell; the result is data whatever happened (a
 * program that cannot start has a null status and its error in `stderr`).
 * Tests inject a fake; the default runs the program with the environment
 * the Debian tools want for unattended use.
 */
import { spawnSync } from "node:child_process";

export interface CommandOutput {
  /** Exit status; null when the program could not start or was killed. */
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export type ToolRunner = (argv: readonly string[]) => CommandOutput;

/** Never ask a question, never page a changelog. */
const UNATTENDED: Readonly<Record<string, string>> = {
  DEBIAN_FRONTEND: "noninteractive",
  APT_LISTBUGS_FRONTEND: "none",
  APT_LISTCHANGES_FRONTEND: "none",
};

/** Runs `argv` with `env` added to this process's environment. */
export function systemRunner(env: Readonly<Record<string, string>> = UNATTENDED): ToolRunner {
  return (argv) => {
    const [program = "", ...args] = argv;
    const result = spawnSync(program, args, {
      env: { ...process.env, ...env },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 1 << 28,
    });
    const stderr = result.error ? `${result.error.message}\n${result.stderr ?? ""}` : (result.stderr ?? "");
    return { status: result.error ? null : result.status, stdout: result.stdout ?? "", stderr };
  };
}

/** The command line as one text, for messages. */
export function commandText(argv: readonly string[]): string {
  return argv.map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word}'`)).join(" ");
}

/**
 * A failed command as one line, worded as Puppet words it: the command (or
 * `shown`, the text the user gave), its status, the last line it wrote.
 */
export function commandFailure(argv: readonly string[], output: CommandOutput, shown?: string): string {
  const said = (output.stderr.trim() || output.stdout.trim()).split("\n").at(-1) ?? "";
  const status = output.status === null ? "could not run" : `returned ${output.status}`;
  return `Execution of '${shown ?? commandText(argv)}' ${status}: ${said}`;
}
