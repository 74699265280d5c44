/**
 * System functions: execresult, execresult_as_data, returnszero, getenv,
 * users and groups (getuid, getgid, getuserinfo, getusers, userexists,
 * groupexists), hostinnetgroup and registryvalue. Process, sysctl and
 * package functions are in system-tables.ts.
 */
import { hostname } from "node:os";
import { secondsSetting } from "../tend-settings.js";
import { type JsonValue, type Value, data, list, scalar } from "../values.js";
import { classResult, text } from "./args.js";
import {
  DEFAULT_COMMAND_TIMEOUT_MS,
  OUTPUT_LIMIT,
  type OutputSelect,
  type ShellMode,
  commandArg0,
  commandSucceeds,
  runCommand,
} from "./exec.js";
import { isExecutable } from "./file-stat.js";
import { emitFunctionMessage } from "./messages.js";
import { intFromString } from "./numbers.js";
import { type BuiltinFunction, type FunctionContext, defineFunction } from "./types.js";
import {
  type PasswdEntry,
  findGroup,
  findUser,
  findUserById,
  listUsers,
} from "../../providers/commands/user-lookup.js";

function shellMode(value: Value | undefined): ShellMode {
  const mode = text(value);
  return mode === "useshell" || mode === "powershell" ? mode : "noshell";
}

/**
 * The checks 3.21 makes before running a command: a command without a shell
 * needs an absolute path, and an absolute program must be executable.
 */
function checkCommand(fc: FunctionContext, command: string, shell: ShellMode): boolean {
  const name = fc.call.name;
  // A quoted program (`"/path with spaces/cmd" args`, as in $(sys.cf_agent)) counts by its path.
  if (!commandArg0(command).startsWith("/")) {
    if (shell !== "noshell") return true;
    emitFunctionMessage(fc.ctx, "error", name, `${name} '${command}' does not have an absolute path`);
    return false;
  }
  const report = (message: string) => emitFunctionMessage(fc.ctx, "error", name, message);
  if (isExecutable(commandArg0(command), report)) return true;
  emitFunctionMessage(fc.ctx, "error", name, `${name} '${command}' is assumed to be executable but isn't`);
  return false;
}

/**
 * `tend_control.function_timeout` (seconds): how long a command a function
 * runs may take. A value that is not a positive number is reported and
 * the default used.
 */
function functionTimeoutMs(fc: FunctionContext): number {
  const fallback = DEFAULT_COMMAND_TIMEOUT_MS / 1000;
  const setting = secondsSetting(fc.ctx, "function_timeout", fallback);
  if (setting?.invalid) {
    const message = `${setting.invalid} is not a number of seconds; using ${fallback}`;
    emitFunctionMessage(fc.ctx, "error", fc.call.name, message);
  }
  return (setting?.seconds ?? fallback) * 1000;
}

function execResult(asData: boolean): BuiltinFunction["evaluate"] {
  return ([commandArg, shellArg, outputArg], fc) => {
    const command = text(commandArg);
    const shell = shellMode(shellArg);
    if (command === undefined || !checkCommand(fc, command, shell)) return undefined;
    const select = (text(outputArg) ?? "both") as OutputSelect;
    const result = runCommand(command, shell, select, functionTimeoutMs(fc));
    if (result.error) {
      emitFunctionMessage(fc.ctx, "error", fc.call.name, `could not run '${command}': ${result.error}`);
      return undefined;
    }
    if (result.truncated) {
      const limit = `${OUTPUT_LIMIT / 1024 / 1024} MiB`;
      emitFunctionMessage(fc.ctx, "warning", fc.call.name, `output of '${command}' cut at ${limit}`);
    }
    if (!asData) return scalar(result.output);
    return data({ exit_code: result.exitCode, output: result.output });
  };
}

function returnsZero([commandArg, shellArg]: readonly Value[], fc: FunctionContext): Value | undefined {
  const command = text(commandArg);
  const shell = shellMode(shellArg);
  if (command === undefined) return undefined;
  // Unlike execresult, a command that may not run is "false", not a failure.
  if (!checkCommand(fc, command, shell)) return classResult(false);
  const result = commandSucceeds(command, shell, functionTimeoutMs(fc));
  if (result.error) emitFunctionMessage(fc.ctx, "error", "returnszero", `'${command}' ${result.error}`);
  if (result.passthrough !== "") {
    const level = result.informOnly ? "output-info" : "output";
    emitFunctionMessage(fc.ctx, level, "returnszero", result.passthrough);
  }
  return classResult(result.succeeded);
}

function getEnv([nameArg, limitArg]: readonly Value[]): Value | undefined {
  const value = process.env[text(nameArg) ?? ""];
  if (value === undefined) return scalar("");
  const limit = intFromString(text(limitArg) ?? "") ?? -678n;
  // 3.21 builds the format `%.<limit>s`; glibc prints a negative one back as text.
  if (limit < 0n) return scalar(`%.0${limit}s`);
  return scalar(
    Buffer.from(value)
      .subarray(0, Math.min(Number(limit), 4095))
      .toString("utf8"),
  );
}

function currentUid(): number {
  return process.getuid?.() ?? 0;
}

function userInfo(entry: PasswdEntry): JsonValue {
  return {
    description: entry.gecos,
    gid: entry.gid,
    home_dir: entry.home,
    shell: entry.shell,
    uid: entry.uid,
    username: entry.name,
  };
}

function getUserInfo([who]: readonly Value[]): Value | undefined {
  const arg = text(who);
  const found = arg === undefined ? undefined : /^\d+$/.test(arg) ? findUserById(Number(arg)) : findUser(arg);
  // 3.21 describes the current user when the one asked for does not exist.
  const entry = found ?? findUserById(currentUid());
  return entry ? data(userInfo(entry)) : undefined;
}

function getUsers([names, uids]: readonly Value[]): Value {
  const exceptNames = new Set((text(names) ?? "").split(","));
  const exceptUids = new Set((text(uids) ?? "").split(","));
  const out = new Set<string>();
  for (const user of listUsers()) {
    if (!exceptNames.has(user.name) && !exceptUids.has(String(user.uid))) out.add(user.name);
  }
  return list([...out]);
}

function idLookup(name: string, what: "user" | "group", find: (key: string) => number | undefined) {
  return defineFunction(name, 1, 1, ([key], fc) => {
    const id = find(text(key) ?? "");
    if (id !== undefined) return scalar(String(id), "int");
    const message =
      what === "user"
        ? `Could not get UID for user '${text(key)}', (getpwnam: not found)`
        : `Could not get GID for group '${text(key)}', (getgrnam: not found)`;
    emitFunctionMessage(fc.ctx, "error", name, message);
    return undefined;
  });
}

/** Whether this host is in a netgroup: a triple with an empty host or this host's name. */
function hostInNetgroup([group]: readonly Value[]): Value | undefined {
  const name = text(group);
  if (name === undefined) return undefined;
  const result = runCommand(`getent netgroup ${name.replace(/[^\w.-]/g, "")}`, "useshell", "stdout", 30_000);
  const fqhost = hostname();
  const uqhost = fqhost.split(".")[0];
  const hosts = [...result.output.matchAll(/\(\s*([^,]*),/g)].map((m) => m[1].trim());
  return classResult(hosts.some((h) => h === "" || h === fqhost || h === uqhost));
}

export const systemFunctions: readonly BuiltinFunction[] = [
  defineFunction("execresult", 2, 3, execResult(false)),
  defineFunction("execresult_as_data", 2, 3, execResult(true)),
  defineFunction("returnszero", 2, 2, returnsZero),
  defineFunction("getenv", 2, 2, getEnv),
  idLookup("getuid", "user", (k) => findUser(k)?.uid),
  idLookup("getgid", "group", (k) => findGroup(k)?.gid),
  defineFunction("getuserinfo", 0, 1, getUserInfo),
  defineFunction("getusers", 2, 2, getUsers),
  defineFunction("userexists", 1, 1, ([who]) => classResult(findUser(text(who) ?? "") !== undefined)),
  defineFunction("groupexists", 1, 1, ([who]) => classResult(findGroup(text(who) ?? "") !== undefined)),
  defineFunction("hostinnetgroup", 1, 1, hostInNetgroup),
  // The Windows registry does not exist elsewhere: 3.21 fails the call.
  defineFunction("registryvalue", 2, 2, () => undefined),
];
