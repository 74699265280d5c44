/**
 * Talking to a package module (API version 1): the module is started with
 * the request's name as its last argument, reads `key=value` lines on its
 * standard input and answers with lines on its standard output. Its
 * standard error goes where the agent's goes, as with cf-agent.
 *
 * A module that cannot start, or that exits non-zero, is a failed exchange
 * (`undefined`); its answer is then ignored, as 3.21 ignores it.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync } from "node:fs";
import type { Logger } from "../../system/logger.js";

/** 3.21 gives a module four hours per request. */
const MODULE_TIMEOUT_MS = 4 * 3600 * 1000;

/**
 * How a module is started: the program, then the arguments before the
 * request name. With an interpreter, `program` is the interpreter and the
 * module's script is the last of `leadingArgs`.
 */
export interface PackageModule {
  /** The module's name: its caches are named after it. */
  readonly name: string;
  readonly program: string;
  readonly leadingArgs: readonly string[];
  readonly interpreted: boolean;
}

function accessible(path: string, mode: number): string | undefined {
  try {
    accessSync(path, mode);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT"
      ? "No such file or directory"
      : "Permission denied";
  }
}

/** Checks that the module (and its interpreter) can run; logs why not as 3.21 does. */
export function checkModuleRunnable(command: PackageModule, log: Logger): boolean {
  if (command.interpreted) {
    const program = accessible(command.program, constants.X_OK);
    if (program) {
      log.error(
        `Cannot find package module interpreter at location '${command.program}' or access to the file is restricted: ${program}`,
      );
      return false;
    }
    const script = command.leadingArgs.at(-1) ?? "";
    const readable = accessible(script, constants.R_OK);
    if (readable) {
      log.error(
        `Cannot find package module script at location '${script}' or access to the file is restricted: ${readable}`,
      );
      return false;
    }
    return true;
  }
  const problem = accessible(command.program, constants.X_OK);
  if (!problem) return true;
  log.error(
    `Cannot find package module at location '${command.program}' or access to file is restricted: ${problem}`,
  );
  return false;
}

/** The answer's lines as 3.21 splits them (no line after a final newline). */
export function splitAnswer(output: string): string[] {
  if (output === "") return [];
  const lines = output.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/**
 * Sends one request; returns the answer's lines, or undefined when the
 * module could not run or exited with a non-zero status.
 */
export function askModule(
  command: PackageModule,
  request: string,
  input: string,
  log: Logger,
  cwd?: string,
): string[] | undefined {
  const argv = [...command.leadingArgs, request];
  log.debug(`Running package module '${command.program} ${argv.join(" ")}'`);
  // In the agent's current directory, which cf-agent moves to each files
  // promise's directory: a module's relative paths (ncf's test_db) land there.
  const result = spawnSync(command.program, argv, {
    input,
    cwd: cwd !== undefined && existsSync(cwd) ? cwd : undefined,
    stdio: ["pipe", "pipe", "inherit"],
    timeout: MODULE_TIMEOUT_MS,
    maxBuffer: 1 << 30,
  });
  if (result.error || result.status !== 0) {
    const code = result.status ?? -1;
    log.verbose(`Command '${command.program} ${argv.join(" ")}' returned with non zero return code: ${code}`);
    return undefined;
  }
  return splitAnswer(result.stdout.toString("utf8"));
}

/**
 * Asks a runnable module its API version, as 3.21 sets up a module wrapper
 * (for a promise and for the inventory alike): true for version 1, else
 * false with 3.21's messages.
 */
export function speaksApiVersion1(command: PackageModule, log: Logger, cwd?: string): boolean {
  const answer = askModule(command, "supports-api-version", "", log, cwd);
  let version = -1;
  if (answer === undefined) log.info("Error occurred while getting supported API version.");
  else if (answer.length === 1) version = Number.parseInt(answer[0] ?? "", 10) || 0;
  if (version === 1) return true;
  log.error(`Unsupported package module wrapper API version: ${version}`);
  return false;
}
