/**
 * `commands` promises: run the promiser (with `args` and `arglist`) as
 * the `contain` body says, show its output as quoted lines, and judge
 * the outcome by its exit status, as cf-agent 3.21 does. Exit 0 is
 * repaired and anything else failed, unless the `classes` body lists
 * kept/repaired/failed return codes. With `module => "true"` the output
 * speaks the module protocol instead.
 *
 * A dry run (or `action_policy => "warn"`) runs nothing and warns, except
 * `preview` commands, which run in dry runs too.
 */
import { isAbsolute } from "node:path";
import type { Outcome } from "../outcome.js";
import { commandArg0 } from "../../eval/functions/exec.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "../contract.js";
import { asBoolean, asText } from "../values.js";
import { type CommandAttributes, readCommandAttributes } from "./attributes.js";
import { commandPrefix } from "./command-line.js";
import { registerFunctions } from "../../eval/functions/registry.js";
import { moduleFunctions } from "./module-functions.js";
import { ModuleSession, promiseModuleHost } from "./module-session.js";
import { logPromiseRef } from "./promise-ref.js";
import {
  type ContainSpec,
  type ProcessResult,
  STOP_READING,
  runContained,
  runContainedInBackground,
} from "./process.js";
import { QuotedOutput } from "./quoted-output.js";
import { type RecordVerdict, judgeExit, promiseVerdicts, readReturnCodes } from "./verdict.js";
import { isExecutable } from "./executable.js";

function evaluateCommand(promise: ActivePromise, env: PromiseEnvironment): Outcome {
  const attrs = readCommandAttributes(promise);
  const refused = refusal(promise, env, attrs);
  if (refused) return refused;
  const level = attrs.inform ? "info" : "verbose";
  env.log.log(level, `Executing '${limits(attrs)}' ... '${attrs.commandLine}'`);
  if (env.dryRun && !attrs.preview) {
    env.log.warning(`Would execute script '${attrs.commandLine}'`);
    return "warn";
  }
  if (asText(promise.bodyValue("action", "action_policy")) === "warn") {
    env.log.warning(`Command '${attrs.commandLine}' needs to be executed, but only warning was promised`);
    return "warn";
  }
  if (attrs.shell === "powershell") {
    env.log.error("Powershell is only supported on Windows");
    return "failed";
  }
  const background = asBoolean(promise.bodyValue("action", "background"), false);
  const outcome = background ? executeInBackground(promise, env, attrs) : execute(promise, env, attrs);
  env.log.log(level, `Completed execution of '${attrs.commandLine}'`);
  return outcome;
}

/** Why the promise cannot be acted on at all: broken, or its program is not executable. */
function refusal(
  promise: ActivePromise,
  env: PromiseEnvironment,
  attrs: CommandAttributes,
): Outcome | undefined {
  if (attrs.noOutput && attrs.preview) {
    env.log.error("no_output and preview are mutually exclusive (broken promise)");
    logPromiseRef("error", promise, env);
    return "failed";
  }
  const program = commandArg0(promise.promiser);
  if ((isAbsolute(program) || attrs.shell === "noshell") && !isExecutable(program, env)) {
    env.log.error(`'${promise.promiser}' promises to be executable but isn't`);
    return "failed";
  }
  return undefined;
}

function limits(attrs: CommandAttributes): string {
  const timeout = attrs.timeoutSeconds === undefined ? "no timeout" : `timeout=${attrs.timeoutSeconds}s`;
  const uid = attrs.uid === undefined ? "" : `,uid=${attrs.uid}`;
  const gid = attrs.gid === undefined ? "" : `,gid=${attrs.gid}`;
  return `${timeout}${uid}${gid}`;
}

function containSpec(attrs: CommandAttributes): ContainSpec {
  return {
    commandLine: attrs.commandLine,
    shell: attrs.shell === "useshell" ? "useshell" : "noshell",
    umask: attrs.umask,
    uid: attrs.uid,
    gid: attrs.gid,
    cwd: attrs.chdir,
    chroot: attrs.chroot,
    timeoutSeconds: attrs.timeoutSeconds,
  };
}

function execute(promise: ActivePromise, env: PromiseEnvironment, attrs: CommandAttributes): Outcome {
  env.log.verbose(`Setting umask to ${attrs.umask.toString(8)}`);
  const result = runContained(containSpec(attrs));
  const session = attrs.module
    ? new ModuleSession(promiseModuleHost(env), attrs.commandLine, attrs.noOutput ? "none" : "all")
    : undefined;
  const judge = (exitCode: number | null) =>
    judgeExit(
      promiseVerdicts(promise, env),
      promise.promiser,
      exitCode,
      attrs.inform,
      readReturnCodes(promise),
    );
  return reportResult(env, attrs, result, judge, session);
}

/**
 * `background` in the action body: 3.21 forks, and the child runs the
 * command and logs its output and verdict while the agent goes on. The
 * agent itself judges nothing (no outcome, no classes), and what a module
 * would define stays in the child. tend starts the command and logs the
 * child's part when the run ends, after waiting for it.
 */
function executeInBackground(
  promise: ActivePromise,
  env: PromiseEnvironment,
  attrs: CommandAttributes,
): Outcome {
  env.log.verbose(`Backgrounding job '${attrs.commandLine}'`);
  const codes = readReturnCodes(promise);
  const who = promise.promiser;
  const logOnly: RecordVerdict = (level, outcome, message) => {
    env.log.log(level, message);
    return outcome;
  };
  const childLevel = attrs.inform ? "info" : "verbose";
  runContainedInBackground(containSpec(attrs), (result) => {
    env.log.verbose(`Setting umask to ${attrs.umask.toString(8)}`);
    reportResult(env, attrs, result, (exitCode) => judgeExit(logOnly, who, exitCode, attrs.inform, codes));
    env.log.log(childLevel, `Completed execution of '${attrs.commandLine}'`);
  });
  return "skipped";
}

/** Shows a command's output as 3.21 does and judges it; a command that did not start failed. */
function reportResult(
  env: PromiseEnvironment,
  attrs: CommandAttributes,
  result: ProcessResult,
  judge: (exitCode: number | null) => Outcome,
  session?: ModuleSession,
): Outcome {
  if (result.error !== undefined) {
    env.log.error(`Couldn't open pipe to command '${attrs.commandLine}'. (${result.error})`);
    return "failed";
  }
  if (result.timedOut) env.log.verbose(`Time out of command '${attrs.commandLine}'`);
  const quoted = new QuotedOutput(env.log, commandPrefix(attrs.commandLine));
  readOutput(outputLines(result.output), env, attrs, quoted, session);
  const outcome = judge(result.exitCode);
  quoted.flush();
  if (quoted.count > 0) {
    env.log.info(`Last ${quoted.count} quoted lines were generated by promiser '${attrs.commandLine}'`);
  }
  return outcome;
}

/**
 * A command's output as 3.21 reads it: each line cut at a NUL; reading
 * stops before a line holding `cfengine-die`.
 */
export function outputLines(output: Buffer): string[] {
  const all = output.toString("utf8").split("\n");
  if (all.at(-1) === "") all.pop();
  const die = all.findIndex((line) => line.includes(STOP_READING));
  return (die === -1 ? all : all.slice(0, die)).map((line) => line.split("\0")[0]);
}

const PREVIEW_PREFIXES = [":silent:", ":inform:", ":verbose:", ":editverbose:", ":error:", ":logonly:"];

function readOutput(
  lines: readonly string[],
  env: PromiseEnvironment,
  attrs: CommandAttributes,
  quoted: QuotedOutput,
  session: ModuleSession | undefined,
): void {
  for (const line of lines) {
    if (attrs.preview) {
      const prefix = PREVIEW_PREFIXES.find((p) => line.startsWith(p)) ?? "";
      env.log.verbose(`'${line.slice(prefix.length)}', preview of '${attrs.commandLine}'`);
    }
    session?.accept(line);
    if (!attrs.noOutput && line !== "") quoted.add(line);
  }
}

/** What 3.21 notes each time it reads the attributes, in every pass: owners and groups not found. */
function noteUnknownIdentities(promise: ActivePromise, env: PromiseEnvironment): void {
  const attrs = readCommandAttributes(promise);
  if (attrs.unknownOwner !== undefined) {
    env.log.info(`Could not get UID for user '${attrs.unknownOwner}', (getpwnam: not found)`);
    logPromiseRef("info", promise, env);
  }
  if (attrs.unknownGroup !== undefined) {
    env.log.info(`Could not get GID for group '${attrs.unknownGroup}', (getgrnam: not found)`);
    logPromiseRef("info", promise, env);
  }
}

// usemodule() and read_module_protocol() speak the module protocol too: they
// join the built-in functions wherever commands promises are loaded.
registerFunctions(moduleFunctions);

export const commandsPromiseType: PromiseType = {
  name: "commands",
  everyPass: noteUnknownIdentities,
  // 3.21 runs a command in the first pass even with unresolved references.
  waitsForResolution: false,
  oncePerRun: true,
  evaluate: evaluateCommand,
};
