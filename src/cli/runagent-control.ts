/**
 * `body runagent control` as cf-runagent 3.21 reads it: the policy (`-f`,
 * else `$(sys.inputdir)/promises.cf`) loaded and its common bundles and
 * control bodies resolved, then `hosts`, `background_children`,
 * `max_children`, `output_to_file` and `output_directory` taken from the
 * `control_runagent` values. 3.21 reads `port_number`, `trustkey`,
 * `encrypt`, `force_ipv4` and `timeout` there but acts on none of them;
 * neither does tend.
 */
import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { EvalContext } from "../eval/context.js";
import { isList, isScalar } from "../eval/values.js";
import { hasErrors } from "../language/diagnostics.js";
import { resolvePolicies } from "../loader/control.js";
import { loadPolicy } from "../loader/load.js";
import type { Logger } from "../system/logger.js";
import type { CliIo } from "./io.js";
import { renderPolicyProblems } from "./render-policy-problems.js";
import type { RunagentOptions } from "./runagent.js";

export interface RunagentControl {
  readonly hosts: readonly string[];
  readonly background?: boolean;
  readonly maxChildren?: number;
  readonly outputToFile: boolean;
  readonly outputDirectory?: string;
}

/** The policy's runagent settings; undefined (reported) when the policy cannot be loaded. */
export function readRunagentControl(
  options: RunagentOptions,
  workdir: string,
  io: CliIo,
  log: Logger,
): RunagentControl | undefined {
  const inputdir = join(workdir, "inputs");
  const file = policyFile(options.file, inputdir);
  if (!existsSync(file)) {
    log.error(`Can't stat file '${file}' for parsing. (stat: No such file or directory)`);
    return undefined;
  }
  const loaded = loadPolicy(file, { agentType: "common", workDir: workdir, inputDir: inputdir });
  if (hasErrors(loaded.diagnostics)) {
    io.stderr(renderPolicyProblems(loaded.diagnostics));
    log.error("Policy failed validation, tend runagent cannot read body runagent control");
    return undefined;
  }
  const ctx = loaded.context;
  resolvePolicies(
    ctx,
    loaded.set.files.map((f) => ({
      path: f.source.path,
      policy: f.policy,
      lineOf: (o: number) => f.source.positionAt(o).line,
    })),
  );
  return settings(ctx, log);
}

/** `-f` as cf-agent finds it: a path neither absolute nor starting with "." is in the input directory. */
function policyFile(file: string | undefined, inputdir: string): string {
  if (file === undefined) return join(inputdir, "promises.cf");
  return isAbsolute(file) || file.startsWith(".") ? file : join(inputdir, file);
}

function value(ctx: EvalContext, name: string) {
  return ctx.getVariable({ ns: "default", scope: "control_runagent", name, indices: [] });
}

function text(ctx: EvalContext, name: string): string | undefined {
  const v = value(ctx, name);
  return v && isScalar(v) ? v.value : undefined;
}

function flag(ctx: EvalContext, name: string): boolean | undefined {
  const t = text(ctx, name);
  if (t === undefined) return undefined;
  return ["true", "yes", "on"].includes(t);
}

function settings(ctx: EvalContext, log: Logger): RunagentControl {
  const hostsValue = value(ctx, "hosts");
  const hosts =
    hostsValue && isList(hostsValue)
      ? [...hostsValue.value]
      : hostsValue && isScalar(hostsValue)
        ? [hostsValue.value]
        : [];
  const max = text(ctx, "max_children");
  const directory = text(ctx, "output_directory");
  if (directory !== undefined && isAbsolute(directory))
    log.verbose(`Setting output direcory to '${directory}'`);
  return {
    hosts,
    background: flag(ctx, "background_children"),
    maxChildren: max !== undefined && /^\d+$/.test(max) ? Number(max) : undefined,
    outputToFile: flag(ctx, "output_to_file") ?? false,
    outputDirectory: directory !== undefined && isAbsolute(directory) ? directory : undefined,
  };
}
