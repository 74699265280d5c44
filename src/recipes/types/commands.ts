/**
 * execute, script and bash, over the commands provider: a command line run
 * by /bin/sh -c (or an argument vector, no shell), a script's code written
 * to a private temporary file and run by its interpreter. A status outside
 * `returns` (default 0) fails the resource with the command's output, as
 * chef-client shows it. `creates` is checked by the converge guard.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CommandLine, CommandResult } from "../../providers/commands/index.js";
import {
  type ActionOutcome,
  type ActionTarget,
  failed,
  type RecipeActionContext,
  type RecipeResourceType,
  textProp,
  UNCHANGED,
} from "./type.js";

const COMMON = ["cwd", "environment", "user", "group", "returns", "timeout", "creates"];

function returnsOf(value: unknown): readonly number[] {
  if (typeof value === "number") return [value];
  if (Array.isArray(value)) return value.filter((v): v is number => typeof v === "number");
  return [0];
}

function runWith(
  command: CommandLine,
  shown: string,
  target: ActionTarget,
  context: RecipeActionContext,
): ActionOutcome {
  const lines = [`execute ${shown}`];
  if (context.whyRun) return { updated: true, lines };
  const p = target.props;
  const user = textProp(p.user);
  const group = textProp(p.group);
  const uid = user === undefined ? undefined : context.accounts.userId(user);
  const gid = group === undefined ? undefined : context.accounts.groupId(group);
  if (user !== undefined && uid === undefined) return failed(`user '${user}' does not exist`);
  if (group !== undefined && gid === undefined) return failed(`group '${group}' does not exist`);
  const timeout = typeof p.timeout === "number" ? p.timeout * 1000 : undefined;
  const result = context.runCommand({
    command,
    cwd: textProp(p.cwd),
    env: (p.environment as Record<string, string> | undefined) ?? undefined,
    uid,
    gid,
    timeoutMs: timeout,
  });
  const problem = commandProblem(result, returnsOf(p.returns), shown);
  if (problem) return failed(problem, []);
  const output = result.output.toString("utf8").trimEnd();
  if (output !== "") context.log("debug", output);
  return { updated: true, lines };
}

/** Why the command counts as failed, chef-client's way, or undefined. */
function commandProblem(
  result: CommandResult,
  returns: readonly number[],
  shown: string,
): string | undefined {
  if (result.error !== undefined) return `${shown}: ${result.error}`;
  if (result.timedOut) return `Command timed out: ${shown}`;
  if (result.exitCode !== null && returns.includes(result.exitCode)) return undefined;
  const status = result.exitCode === null ? `signal ${result.signal}` : String(result.exitCode);
  const output = result.output.toString("utf8").trimEnd();
  return `Expected process to exit with ${JSON.stringify(returns)}, but received '${status}'\n---- Begin output of ${shown} ----\n${output}\n---- End output of ${shown} ----`;
}

export const executeType: RecipeResourceType = {
  name: "execute",
  actions: ["run", "nothing"],
  defaultAction: "run",
  properties: ["command", ...COMMON],
  nameProperty: "command",
  run: async (action, target, context) => {
    if (action === "nothing") return UNCHANGED;
    const command = target.props.command;
    if (Array.isArray(command)) {
      const argv = command.map(String);
      return runWith({ argv }, argv.join(" "), target, context);
    }
    const line = textProp(command) ?? target.declaration.name;
    return runWith({ shell: line }, line, target, context);
  },
};

function runScript(interpreter: string, target: ActionTarget, context: RecipeActionContext): ActionOutcome {
  const code = textProp(target.props.code) ?? "";
  const flags = (textProp(target.props.flags) ?? "").split(/\s+/).filter((f) => f !== "");
  if (context.whyRun)
    return { updated: true, lines: [`execute "${interpreter}" script ${target.declaration.name}`] };
  const dir = mkdtempSync(join(tmpdir(), "tend-script-"));
  try {
    const file = join(dir, "script");
    writeFileSync(file, code, { mode: 0o600 });
    const out = runWith(
      // The interpreter found on PATH, as Chef runs it (the runner takes argv[0] as a path).
      { argv: ["/bin/sh", "-c", 'exec "$0" "$@"', interpreter, ...flags, file] },
      `"${interpreter}" ${target.declaration.name}`,
      target,
      context,
    );
    return out.failed
      ? out
      : { updated: true, lines: [`execute "${interpreter}" script ${target.declaration.name}`] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const scriptType: RecipeResourceType = {
  name: "script",
  actions: ["run", "nothing"],
  defaultAction: "run",
  properties: ["code", "interpreter", "flags", ...COMMON],
  validate: (props) => {
    const problems: string[] = [];
    if (props.code === undefined) problems.push("script needs `code`");
    if (typeof props.interpreter === "string" && props.interpreter !== "bash" && props.interpreter !== "sh")
      problems.push(`interpreter must be bash or sh, not ${JSON.stringify(props.interpreter)}`);
    return problems;
  },
  run: async (action, target, context) =>
    action === "nothing" ? UNCHANGED : runScript(textProp(target.props.interpreter) ?? "sh", target, context),
};

/** A script resource named after its interpreter (`bash`, `sh`), as Chef's bash and the script family. */
function interpreterType(interpreter: "bash" | "sh"): RecipeResourceType {
  return {
    name: interpreter,
    actions: ["run", "nothing"],
    defaultAction: "run",
    properties: ["code", "flags", ...COMMON],
    validate: (props) => (props.code === undefined ? [`${interpreter} needs \`code\``] : []),
    run: async (action, target, context) =>
      action === "nothing" ? UNCHANGED : runScript(interpreter, target, context),
  };
}

export const bashType: RecipeResourceType = interpreterType("bash");
export const shType: RecipeResourceType = interpreterType("sh");
