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
import { accessSync, constants, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { Outcome } from "../../agent/outcome.js";
import { commandArg0 } from "../../eval/functions/exec.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "../contract.js";
import { asText } from "../values.js";
import { type CommandAttributes, readCommandAttributes } from "./attributes.js";
import { commandPrefix } from "./command-line.js";
import { ModuleSession } from "./module-session.js";
import { runContained } from "./process.js";
import { QuotedOutput } from "./quoted-output.js";
import { judgeExit } from "./verdict.js";

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
  const outcome = execute(promise, env, attrs);
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
    const line = asText(env.ctx.currentFrame().thisVars.get("promise_linenumber")) ?? "0";
    env.log.error(
      `Promise belongs to bundle '${promise.bundle.block.name.text}' in file '${promise.bundle.file}' near line ${line}`,
    );
    return "failed";
  }
  if (attrs.unknownIdentity !== undefined) {
    env.log.error(`Unknown user or group '${attrs.unknownIdentity}' in promise '${promise.promiser}'`);
    return "failed";
  }
  const program = commandArg0(promise.promiser);
  if ((isAbsolute(program) || attrs.shell === "noshell") && !isExecutable(program, env)) {
    env.log.error(`'${promise.promiser}' promises to be executable but isn't`);
    return "failed";
  }
  return undefined;
}

function isExecutable(file: string, env: PromiseEnvironment): boolean {
  let mode: number;
  try {
    mode = statSync(file).mode;
  } catch {
    env.log.error(`Proposed executable file '${file}' doesn't exist`);
    return false;
  }
  if (mode & 0o002) {
    env.log.error(`SECURITY ALERT: promised executable '${file}' is world writable! `);
    env.log.error("SECURITY ALERT: CFEngine will not execute this - requires human inspection");
    return false;
  }
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function limits(attrs: CommandAttributes): string {
  const timeout = attrs.timeoutSeconds === undefined ? "no timeout" : `timeout=${attrs.timeoutSeconds}s`;
  const uid = attrs.uid === undefined ? "" : `,uid=${attrs.uid}`;
  const gid = attrs.gid === undefined ? "" : `,gid=${attrs.gid}`;
  return `${timeout}${uid}${gid}`;
}

function execute(promise: ActivePromise, env: PromiseEnvironment, attrs: CommandAttributes): Outcome {
  env.log.verbose(`Setting umask to ${attrs.umask.toString(8)}`);
  const result = runContained({
    commandLine: attrs.commandLine,
    shell: attrs.shell === "useshell" ? "useshell" : "noshell",
    umask: attrs.umask,
    uid: attrs.uid,
    gid: attrs.gid,
    cwd: attrs.chdir,
    chroot: attrs.chroot,
    timeoutSeconds: attrs.timeoutSeconds,
  });
  if (result.error !== undefined) {
    env.log.error(`Couldn't open pipe to command '${attrs.commandLine}'. (${result.error})`);
    return "failed";
  }
  if (result.timedOut) env.log.verbose(`Time out of command '${attrs.commandLine}'`);
  const quoted = new QuotedOutput(env.log, commandPrefix(attrs.commandLine));
  const output = outputLines(result.output);
  readOutput(output.lines, env, attrs, quoted);
  const exitCode = output.writesAfterDie ? null : result.exitCode;
  const outcome = judgeExit(promise, env, exitCode, attrs.inform);
  quoted.flush();
  if (quoted.count > 0) {
    env.log.info(`Last ${quoted.count} quoted lines were generated by promiser '${attrs.commandLine}'`);
  }
  return outcome;
}

/** A command's output as 3.21 reads it. */
export interface OutputLines {
  /** Each line cut at a NUL; reading stops before a line holding `cfengine-die`. */
  readonly lines: readonly string[];
  /**
   * Whether the command wrote more after the `cfengine-die` line. 3.21
   * closes its pipe there, so such a command usually dies of SIGPIPE.
   */
  readonly writesAfterDie: boolean;
}

export function outputLines(output: Buffer): OutputLines {
  const all = output.toString("utf8").split("\n");
  if (all.at(-1) === "") all.pop();
  const die = all.findIndex((line) => line.includes("cfengine-die"));
  const kept = die === -1 ? all : all.slice(0, die);
  return {
    lines: kept.map((line) => line.split("\0")[0]),
    writesAfterDie: die !== -1 && die < all.length - 1,
  };
}

const PREVIEW_PREFIXES = [":silent:", ":inform:", ":verbose:", ":editverbose:", ":error:", ":logonly:"];

function readOutput(
  lines: readonly string[],
  env: PromiseEnvironment,
  attrs: CommandAttributes,
  quoted: QuotedOutput,
): void {
  const session = attrs.module ? new ModuleSession(env, attrs.commandLine, !attrs.noOutput) : undefined;
  for (const line of lines) {
    if (attrs.preview) {
      const prefix = PREVIEW_PREFIXES.find((p) => line.startsWith(p)) ?? "";
      env.log.verbose(`'${line.slice(prefix.length)}', preview of '${attrs.commandLine}'`);
    }
    session?.accept(line);
    if (!attrs.noOutput && line !== "") quoted.add(line);
  }
}

export const commandsPromiseType: PromiseType = {
  name: "commands",
  // 3.21 runs a command in the first pass even with unresolved references.
  waitsForResolution: false,
  oncePerRun: true,
  evaluate: evaluateCommand,
};
