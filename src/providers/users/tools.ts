/**
 * The shadow tools the users provider runs (useradd, usermod, userdel,
 * chpasswd), never through a shell: each command is an argument vector,
 * with the text cf-agent 3.21 shows for it in its messages (it builds one
 * shell string with double-quoted values; tend shows the same text but
 * passes the values as they are, so quotes or `$` in a description reach
 * the files unchanged).
 */
import { spawnSync } from "node:child_process";

/** What a tool did: its exit status (null when it could not start or was killed), its output. */
export interface ToolResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Why the program could not be started, when it could not. */
  readonly error?: string;
}

/** Runs a program (argv[0] is its path) with `input` on its standard input; no shell. */
export type ToolRunner = (argv: readonly string[], input?: string) => ToolResult;

/** The runner for real systems: node:child_process, synchronously. */
export const runTool: ToolRunner = (argv, input) => {
  const run = spawnSync(argv[0] as string, argv.slice(1), { input: input ?? "", encoding: "utf8" });
  return {
    status: run.status,
    stdout: run.stdout ?? "",
    stderr: run.stderr ?? "",
    error: run.error ? run.error.message : undefined,
  };
};

export const USERADD = "/usr/sbin/useradd";
export const USERMOD = "/usr/sbin/usermod";
export const USERDEL = "/usr/sbin/userdel";
export const CHPASSWD = "/usr/sbin/chpasswd";
export const GROUPADD = "/usr/sbin/groupadd";
export const GROUPMOD = "/usr/sbin/groupmod";
export const GROUPDEL = "/usr/sbin/groupdel";

/** A command: its argument vector and the text messages show (cf-agent's). */
export class ToolCommand {
  readonly argv: string[];
  text: string;

  constructor(program: string, root: string) {
    this.argv = [program];
    this.text = program;
    // Another root: the tools work on its files (useradd, usermod and userdel take a prefix).
    if (root !== "/") this.argv.push("-P", root);
  }

  /** ` -x "value"`, as cf-agent writes an option with a value. */
  option(flag: string, value: string): this {
    this.argv.push(flag, value);
    this.text += ` ${flag} "${value}"`;
    return this;
  }

  /** A bare word (` -M`, the user name). */
  word(word: string): this {
    this.argv.push(word);
    this.text += ` ${word}`;
    return this;
  }

  /** Text shown but not passed (cf-agent's stray spaces). */
  shown(text: string): this {
    this.text += text;
    return this;
  }
}

/** Whether the tool failed, and how to say it. */
export function toolFailed(result: ToolResult): boolean {
  return result.status !== 0;
}

/** Every line a tool printed, for the log (cf-agent lets them through to its own output). */
export function toolOutput(result: ToolResult): string[] {
  const lines = `${result.stdout}${result.stderr}`.split("\n").filter((line) => line !== "");
  return result.error === undefined ? lines : [...lines, result.error];
}
