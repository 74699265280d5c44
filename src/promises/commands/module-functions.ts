/**
 * The functions that apply the module protocol, as 3.21 has them:
 *
 * - `usemodule(name, args)` runs `$(sys.workdir)/modules/<name> <args>`
 *   (without a shell, standard error joined to standard output) and
 *   applies its output; true once it ran, whatever its exit status.
 * - `read_module_protocol(file)` applies the lines of a file (a module's
 *   cached output); false when the file cannot be opened.
 *
 * What they define goes through the evaluation context; their messages go
 * to the function message sink, and persistent classes to the agent's
 * persister when there is one.
 */
import { readFileSync, statSync } from "node:fs";
import type { LogLevel } from "../../system/logger.js";
import { classPersister } from "../../eval/functions/class-persistence.js";
import { commandArg0 } from "../../eval/functions/exec.js";
import { type FunctionLogLevel, emitFunctionMessage } from "../../eval/functions/messages.js";
import { type BuiltinFunction, type FunctionContext, defineFunction } from "../../eval/functions/types.js";
import { type Value, scalar } from "../../eval/values.js";
import { asText } from "../values.js";
import { type ModuleEcho, type ModuleHost, ModuleSession } from "./module-session.js";
import { runContained } from "./process.js";

/** The agent's own umask, which 3.21's modules inherit. */
const AGENT_UMASK = 0o077;

const FUNCTION_LEVELS: Readonly<Record<LogLevel, FunctionLogLevel>> = {
  critical: "error",
  error: "error",
  warning: "warning",
  notice: "info",
  info: "info",
  verbose: "verbose",
  debug: "verbose",
};

function functionHost(fc: FunctionContext, fn: string): ModuleHost {
  const { ctx } = fc;
  return {
    ctx,
    log: (level, message) => emitFunctionMessage(ctx, FUNCTION_LEVELS[level], fn, message),
    defineClass: (name, minutes, meta) => {
      ctx.defineClass(name, false, meta);
      if (minutes !== undefined) classPersister(ctx)?.(name, minutes, meta.tags ?? []);
    },
    fatal: (message) => emitFunctionMessage(ctx, "error", fn, message),
  };
}

function applyLines(host: ModuleHost, source: string, lines: readonly string[], echo: ModuleEcho): void {
  const session = new ModuleSession(host, source, echo);
  for (const line of lines) session.accept(line);
}

/** Lines as 3.21 reads them: split at newlines, each cut at a NUL. */
function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.map((line) => line.split("\0")[0]);
}

function sysWorkdir(fc: FunctionContext): string {
  const value = fc.ctx.getVariable({ ns: "default", scope: "sys", name: "workdir", indices: [] });
  return (value && asText(value)) ?? "";
}

function useModule([name, args]: readonly Value[], fc: FunctionContext): Value | undefined {
  const host = functionHost(fc, "usemodule");
  const module = `"${sysWorkdir(fc)}/modules/${asText(name) ?? ""}"`;
  let owner: number;
  try {
    owner = statSync(commandArg0(module)).uid;
  } catch {
    host.log("error", `Plug-in module '${module}' not found`);
    return undefined;
  }
  const uid = process.getuid?.() ?? 0;
  if (owner !== 0 && owner !== uid) {
    host.log("error", `Module '${module}' was not owned by uid ${uid} who is executing agent`);
    return undefined;
  }
  const command = `${module} ${asText(args) ?? ""}`;
  host.log("verbose", `Executing and using module [${command}]`);
  const result = runContained({ commandLine: command, shell: "noshell", umask: AGENT_UMASK });
  // 3.21's child reports a program it cannot run into the output, as the module's own line.
  const output = result.error
    ? `   error: Couldn't run '${commandArg0(module)}'. (execv: ${describeSpawnError(result.error)})\n`
    : result.output.toString("utf8");
  applyLines(host, command, splitLines(output), "non-blank");
  return scalar("any");
}

/** The system's words for why a program could not start (`spawn X EACCES` → Permission denied). */
function describeSpawnError(error: string): string {
  // The perl spawner says which step failed ("exec: Permission denied"); Node names the errno.
  const step = /^(?:exec|chdir|setgid|setuid|stdin|stdout|stderr): (.*)$/.exec(error);
  if (step) return step[1];
  if (error.includes("EACCES")) return "Permission denied";
  if (error.includes("ENOENT")) return "No such file or directory";
  if (error.includes("ENOEXEC")) return "Exec format error";
  return error;
}

function readModuleProtocol([file]: readonly Value[], fc: FunctionContext): Value | undefined {
  const path = asText(file) ?? "";
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return scalar("!any");
  }
  applyLines(functionHost(fc, "read_module_protocol"), path, splitLines(text), "none");
  return scalar("any");
}

export const moduleFunctions: readonly BuiltinFunction[] = [
  defineFunction("usemodule", 2, 2, useModule),
  defineFunction("read_module_protocol", 1, 1, readModuleProtocol),
];
