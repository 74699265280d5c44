/**
 * tend's work directory: state (persistent classes, locks, the change
 * database), like cf-agent's, but its own so the two never share state.
 *
 * - `CFENGINE_TEST_OVERRIDE_WORKDIR` wins, as in cf-agent (the acceptance
 *   suite relies on it);
 * - else `--workdir`;
 * - else `/var/lib/tend` for root and `~/.tend` for other users.
 * `TEMP`, when set, is where temporary files go (as cf-agent reads it).
 */
import { homedir } from "node:os";
import { join } from "node:path";

export interface AgentDirectories {
  /** `--workdir`. */
  readonly workdir?: string;
  /** `$(sys.inputdir)`; defaults to `<workdir>/inputs`. */
  readonly inputdir?: string;
}

export interface ResolvedAgentDirectories {
  readonly workdir: string;
  readonly inputdir: string;
  readonly statedir: string;
  readonly tempdir: string;
}

export function agentDirectories(
  options: AgentDirectories,
  env: NodeJS.ProcessEnv = process.env,
): ResolvedAgentDirectories {
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  const workdir =
    env.CFENGINE_TEST_OVERRIDE_WORKDIR ||
    options.workdir ||
    (root ? "/var/lib/tend" : join(homedir(), ".tend"));
  return {
    workdir,
    inputdir: options.inputdir ?? join(workdir, "inputs"),
    statedir: join(workdir, "state"),
    tempdir: env.TEMP || join(workdir, "tmp"),
  };
}
