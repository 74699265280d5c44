/**
 * How Puppet 7.23's exec providers run a command, on the command provider
 * (src/providers/commands): `posix` runs an argument vector directly, and
 * a string as Ruby's `Kernel.exec` does (through `/bin/sh -c` when it holds
 * shell syntax, else split on blanks); `shell` always hands the string to
 * `/bin/sh -c`. The program must be found first (Puppet's `checkexe`):
 * qualified and executable, or along `path`. The environment is the
 * agent's without HOME, USER and LOGNAME, with PATH from `path` and the
 * `environment` entries; standard output and error are read together.
 *
 * A command that cannot be found, a missing working directory and a
 * command the shell cannot find (exit 127) are errors with Puppet's words;
 * a time limit reached says so. Nothing throws.
 */
import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import {
  type CommandLine,
  type CommandResult,
  findExecutable,
  readGroup,
  readOwner,
  runCommand,
} from "../../providers/commands/index.js";
import type { Logger } from "../../system/logger.js";
import { type ExecCommand, type ExecParams, extractExe } from "./exec-params.js";

export type ExecRun =
  | { readonly kind: "ran"; readonly status: string; readonly output: string }
  | { readonly kind: "timeout" }
  | { readonly kind: "error"; readonly message: string };

/** Characters that make Ruby's Kernel.exec hand a string to the shell. */
const SHELL_META = /[*?{}[\]<>()~&|\\$;'`"\n#]/;

/** Words Ruby sends to the shell when a command starts with them (reserved words, special built-ins). */
const SHELL_WORDS = new Set(
  "case do done elif else esac fi for if in then until while ! . : break continue eval exec exit export readonly return set shift times trap unset".split(
    " ",
  ),
);

/** The program to start for a string command, as Kernel.exec splits it; undefined: through the shell. */
function directWords(cmd: string): string[] | undefined {
  if (SHELL_META.test(cmd)) return undefined;
  const words = cmd.split(/[ \t]+/).filter((w) => w !== "");
  const first = words[0];
  if (first === undefined || SHELL_WORDS.has(first) || first.includes("=")) return undefined;
  return words;
}

/** Puppet's `checkexe`: the problem with the command's program, if any. */
function checkExe(cmd: ExecCommand, params: ExecParams): string | undefined {
  const exe = params.provider === "shell" ? "/bin/sh" : extractExe(cmd);
  if (isAbsolute(exe)) {
    let isFile: boolean;
    try {
      isFile = statSync(exe).isFile();
    } catch {
      return `Could not find command '${exe}'`;
    }
    if (!isFile) return `'${exe}' is a directory, not a file`;
    return findExecutable(exe, []) === undefined ? `'${exe}' is not executable` : undefined;
  }
  if (params.path && findExecutable(exe, params.path) !== undefined) return undefined;
  return `Could not find command '${exe}'`;
}

/** The command line to start: a program found along `path` for a direct run. */
function commandLine(cmd: ExecCommand, params: ExecParams): CommandLine {
  if (params.provider === "shell") return { shell: typeof cmd === "string" ? cmd : cmd.join(" ") };
  const words =
    typeof cmd === "string" ? directWords(cmd) : cmd.length === 1 ? directWords(cmd[0]) : [...cmd];
  if (words === undefined) return { shell: typeof cmd === "string" ? cmd : cmd[0] };
  const program = findExecutable(words[0], params.path ?? [], params.cwd) ?? words[0];
  return { argv: [program, ...words.slice(1)] };
}

/** The variables set for the command (Puppet's provider `environment`), warning as Puppet does. */
export function commandEnvironment(params: ExecParams, logger: Logger): Record<string, string | null> {
  const env: Record<string, string | null> = { HOME: null, USER: null, LOGNAME: null };
  const set = new Set<string>();
  if (params.path !== undefined) {
    env.PATH = params.path.join(":");
    set.add("PATH");
  }
  for (const setting of params.environment) {
    const match = /^(\w+)=([\s\S]*)$/.exec(setting);
    if (!match) {
      logger.warning(`Cannot understand environment setting ${JSON.stringify(setting)}`);
      continue;
    }
    const [, name, value] = match as unknown as [string, string, string];
    if (set.has(name)) logger.warning(`Overriding environment setting '${name}' with '${value}'`);
    env[name] = value;
    set.add(name);
  }
  return env;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The uid/gid to run as; an unknown name is an error, as Puppet's privilege change fails. */
function identity(params: ExecParams): { uid?: number; gid?: number } | string {
  const user = readOwner(params.user);
  if (user.unknown !== undefined) return `Invalid user: ${user.unknown}`;
  const group = readGroup(params.group);
  if (group.unknown !== undefined) return `Invalid group: ${group.unknown}`;
  return { uid: user.id, gid: group.id };
}

function fromResult(result: CommandResult): ExecRun {
  if (result.timedOut) return { kind: "timeout" };
  if (result.error !== undefined) return { kind: "error", message: result.error };
  const output = result.output.toString("utf8");
  // Puppet raises the output itself when the shell could not find the program.
  if (result.exitCode === 127) return { kind: "error", message: output };
  return { kind: "ran", status: result.exitCode === null ? "" : String(result.exitCode), output };
}

/** Runs one command of the exec (its command, a check, or its refresh) as Puppet's provider does. */
export function runExecCommand(cmd: ExecCommand, params: ExecParams, logger: Logger): ExecRun {
  const missing = checkExe(cmd, params);
  if (missing !== undefined) return { kind: "error", message: missing };
  if (params.cwd !== undefined && !isDirectory(params.cwd)) {
    return { kind: "error", message: `Working directory ${params.cwd} does not exist!` };
  }
  const ids = identity(params);
  if (typeof ids === "string") return { kind: "error", message: ids };
  const result = runCommand({
    command: commandLine(cmd, params),
    env: commandEnvironment(params, logger),
    cwd: params.cwd,
    ...ids,
    umask: params.umask,
    timeoutMs: params.timeout > 0 ? params.timeout * 1000 : undefined,
  });
  return fromResult(result);
}

/** A command as Puppet interpolates it in messages: the string, or the vector as Ruby shows an array. */
export function commandText(cmd: ExecCommand): string {
  return typeof cmd === "string" ? cmd : `[${cmd.map((word) => JSON.stringify(word)).join(", ")}]`;
}
