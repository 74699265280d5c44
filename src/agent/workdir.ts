/**
 * tend's work directory: state (persistent classes, locks, the change
 * database), like cf-agent's, but its own so the two never share state.
 *
 * - `--workdir` wins (cf-agent's and cf-promises' `-w` set
 *   `CFENGINE_TEST_OVERRIDE_WORKDIR` for themselves);
 * - else `CFENGINE_TEST_OVERRIDE_WORKDIR`, as in cf-agent (the acceptance
 *   suite relies on it);
 * - else `/var/lib/tend` for root and `~/.tend` for other users.
 * `TEMP`, when set, is where temporary files go (as cf-agent reads it).
 */
import { lstatSync, type Stats, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { chmodSync, chownSync } from "../system/safe-fs.js";
import type { Logger } from "../system/logger.js";
import type { StateTrust } from "../system/state-file.js";
import { makeDirectoriesSync } from "../system/make-directories.js";

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
    options.workdir ||
    env.CFENGINE_TEST_OVERRIDE_WORKDIR ||
    (root ? "/var/lib/tend" : join(homedir(), ".tend"));
  return {
    workdir,
    inputdir: options.inputdir ?? join(workdir, "inputs"),
    statedir: join(workdir, "state"),
    tempdir: env.TEMP || join(workdir, "tmp"),
  };
}

/**
 * Makes the work directory the agent's own before anything in it is
 * believed, as cf-agent 3.21 does at start-up, and a little further:
 *
 * - the work directory is made the running user's and `go-w` (cf-agent
 *   does the same, silently);
 * - the state directory is created 700; one found writable by others is
 *   reported with cf-agent's `UNTRUSTED` error, made 700 again, and
 *   nothing in it is read this run (cf-agent reports it and goes on
 *   reading it); one readable by others is made 700 quietly.
 *
 * Failures are not fatal: a read-only work directory only loses state.
 * Returns how state files are to be trusted this run.
 */
export function secureWorkDirectory(dirs: ResolvedAgentDirectories, log: Logger): StateTrust {
  makeOwnDirectory(dirs.workdir, 0o755, log);
  let distrusted = false;
  const state = makeOwnDirectory(dirs.statedir, 0o700, log);
  if (state && (state.mode & 0o022 || state.uid !== process.geteuid?.())) {
    log.error(
      `UNTRUSTED: State directory ${dirs.statedir} (mode ${(state.mode & 0o777).toString(8)}) was not private, world and/or group writeable!`,
    );
    distrusted = true;
  }
  if (state && !state.isSymbolicLink() && state.mode & 0o077) changeMode(dirs.statedir, 0o700, log);
  return { distrusted, untrusted: (message) => log.error(message) };
}

/**
 * Creates `dir` (`mode`) or makes an existing one ours and go-w; its stat
 * as found, if it existed. A link there is followed only when it is ours
 * (someone else's is reported as it stands and left alone).
 */
function makeOwnDirectory(dir: string, mode: number, log: Logger): Stats | undefined {
  let found = lstatSync(dir, { throwIfNoEntry: false });
  if (found?.isSymbolicLink()) {
    if (found.uid !== process.geteuid?.()) return found;
    found = statSync(dir, { throwIfNoEntry: false });
  }
  if (!found) {
    try {
      makeDirectoriesSync(dir, mode);
    } catch {
      // Writing state later reports the problem.
    }
    return undefined;
  }
  const uid = process.geteuid?.();
  const gid = process.getegid?.();
  if (uid !== undefined && gid !== undefined && (found.uid !== uid || found.gid !== gid)) {
    try {
      chownSync(dir, uid, gid);
    } catch (error) {
      log.error(`Unable to set ownership on '${dir}' to '${uid}.${gid}'. (chown: ${errorMessage(error)})`);
    }
  }
  if (found.mode & 0o022) changeMode(dir, found.mode & 0o7755, log);
  return found;
}

function changeMode(dir: string, mode: number, log: Logger): void {
  try {
    chmodSync(dir, mode);
  } catch (error) {
    log.error(`Unable to set permissions on '${dir}' to go-w. (chmod: ${errorMessage(error)})`);
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
