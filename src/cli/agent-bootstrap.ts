/**
 * `tend agent -B HOST[:PORT]`: the bootstrap as cf-agent 3.21 runs it
 * (see agent/bootstrap.ts): the server's name checked and resolved, the
 * work directory prepared, the failsafe policy run with `bootstrap_mode`
 * (it fetches the policy), then, unless `--skip-bootstrap-policy-run`,
 * the fetched update policy and main policy run once as 3.21's failsafe
 * has them run (here in the same process, as tend's own agent), and the
 * result checked: "Bootstrap to '…' completed successfully!", or an error
 * and exit code 1 with the bootstrap undone.
 */
import { lookup } from "node:dns/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  type BootstrapRequest,
  isLoopback,
  masterDirectory,
  prepareBootstrap,
  verifyBootstrap,
} from "../agent/bootstrap.js";
import { type AgentOptions, type AgentResult, type AgentSinks, runAgent } from "../agent/run.js";
import type { ResolvedAgentDirectories } from "../agent/workdir.js";
import { splitHostPort } from "../eval/policy-server.js";
import { Logger } from "../system/logger.js";
import { EXIT_FAILURE } from "./io.js";

/** The run options a bootstrap passes on to its policy runs. */
export type BootstrapRunOptions = Pick<
  AgentOptions,
  "workdir" | "defines" | "negates" | "dryRun" | "logLevel" | "record"
>;

/** How a bootstrap ended: its exit code, and the failsafe run when there was one. */
export interface BootstrapOutcome {
  readonly exitCode: number;
  readonly failsafe?: { readonly file: string; readonly result: AgentResult };
}

export async function bootstrapAgent(
  request: Omit<BootstrapRequest, "address">,
  options: BootstrapRunOptions,
  dirs: ResolvedAgentDirectories,
  sinks: AgentSinks,
): Promise<BootstrapOutcome> {
  const log = new Logger(sinks.log, options.logLevel ?? "notice");
  const { host } = splitHostPort(request.argument);
  if (request.argument === ":avahi") {
    log.error("tend cannot find a policy server by itself (:avahi): give its address or name");
    return { exitCode: EXIT_FAILURE };
  }
  if (isLoopback(host))
    log.warning(
      "Bootstrapping to loopback interface (localhost), other hosts will not be able to bootstrap to this server",
    );
  let address: string;
  try {
    address = (await lookup(host)).address;
  } catch {
    log.error(`Could not resolve hostname '${host}', unable to bootstrap`);
    return { exitCode: EXIT_FAILURE };
  }
  const bootstrapDirs = { ...dirs, masterdir: masterDirectory(dirs.workdir) };
  const prepared = prepareBootstrap({ ...request, address }, bootstrapDirs, log);
  if (!prepared) return { exitCode: EXIT_FAILURE };
  const defines = [...(options.defines ?? []), ...prepared.defines];
  const run = (file: string, extra: readonly string[]) =>
    runAgent(
      { ...options, file, fileGiven: true, ignoreLocks: true, defines: [...defines, ...extra] },
      sinks,
    );
  const result = run(prepared.file, []);
  if (request.triggerPolicy && result.exitCode === 0) triggerPolicy(dirs.inputdir, options, sinks);
  const exitCode = verifyBootstrap(bootstrapDirs, log) ? result.exitCode : EXIT_FAILURE;
  return { exitCode, failsafe: { file: prepared.file, result } };
}

/**
 * What 3.21's failsafe runs after fetching (its commands promises run
 * cf-agent twice): the update policy, then the main policy, each with
 * `bootstrap_mode` defined, here as tend's agent in this process.
 */
function triggerPolicy(inputdir: string, options: BootstrapRunOptions, sinks: AgentSinks): void {
  const once = (file: string) =>
    runAgent(
      {
        ...options,
        file,
        fileGiven: file !== join(inputdir, "promises.cf"),
        defines: [...(options.defines ?? []), "bootstrap_mode"],
      },
      sinks,
    );
  const update = join(inputdir, "update.cf");
  if (existsSync(update)) once(update);
  const main = join(inputdir, "promises.cf");
  if (!existsSync(main)) return;
  const result = once(main);
  sinks.report(
    result.exitCode === 0 ? "Triggered an initial run of the policy" : "Initial run of the policy failed",
  );
}
