/**
 * Talking to a package module (API version 1): the module is started with
 * the request's name as its last argument, reads `key=value` lines on its
 * standard input and answers with lines on its standard output. Its
 * standard error goes where the agent's goes, as with cf-agent.
 *
 * A module that cannot start, or that exits non-zero, is a failed exchange
 * (`undefined`); its answer is then ignored, as 3.21 ignores it.
 */
import { accessSync, constants } from "node:fs";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { posix } from "node:path";
import type { Logger } from "../../system/logger.js";
import { splitCommand } from "../../eval/functions/exec.js";
import type { PackageModuleBody } from "./module-body.js";

/** 3.21 gives a module four hours per request. */
const MODULE_TIMEOUT_MS = 4 * 3600 * 1000;

/** How a module is started: the program, then the arguments before the request name. */
export interface ModuleCommand {
  readonly name: string;
  readonly program: string;
  readonly leadingArgs: readonly string[];
  readonly body: PackageModuleBody;
}

/** Where the module is and what runs it (its interpreter, if the body names one). */
export function moduleCommand(body: PackageModuleBody, workdir: string): ModuleCommand {
  const path = body.modulePath ?? posix.join(workdir, "modules", "packages", body.name);
  if (body.interpreter === undefined) return { name: body.name, program: path, leadingArgs: [], body };
  const [program = body.interpreter, ...options] = body.interpreter.includes(" ")
    ? splitCommand(body.interpreter)
    : [body.interpreter];
  return { name: body.name, program, leadingArgs: [...options, path], body };
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
export function checkModuleRunnable(command: ModuleCommand, log: Logger): boolean {
  if (command.body.interpreter !== undefined) {
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
  command: ModuleCommand,
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
