/**
 * cf-agent 3.21's policy check before a run: when the policy may have
 * changed since it was last found valid, cf-agent validates it (running
 * cf-promises) and, when valid, tags the release: it writes
 * `cf_promises_validated` (and, on a policy hub, `cf_promises_release_id`).
 *
 * The tag goes to the state directory for a policy given on the command
 * line, else to `$(sys.masterdir)`. A check is due when the policy file is
 * outside `$(sys.inputdir)`, or it, a file below `$(sys.inputdir)` or
 * `policy_server.dat` is newer than the last validation. (As 3.21, a
 * policy given with -f is looked up under a name nothing writes, so it is
 * checked every time.)
 *
 * cf-promises evaluates the policy it checks, functions included, without
 * keeping the results of system functions: the command of an `execresult()`
 * or `returnszero()` call in a common bundle runs four times, in another
 * bundle's vars twice, all before the agent's own run. Policy sees those
 * runs (00_basics/ifelapsed_and_expireafter/locks.cf counts on the locks the
 * extra runs leave), so tend's check evaluates the policy the same way,
 * in-process. Not under `--simulate`, which promises that nothing unsafe
 * runs (cf-agent's cf-promises runs the commands there too).
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { loadAsCfPromises } from "../check.js";
import type { EvaluationMessageSinks, LoadResult } from "../loader/load.js";
import type { Logger } from "./logger.js";
import { tagReleaseDirectory, validatedAt } from "./release-tag.js";

export interface PolicyCheckPlace {
  readonly file: string;
  /** The policy was named on the command line (-f or a positional file). */
  readonly fromCommandLine: boolean;
  readonly workdir: string;
  readonly inputdir: string;
  readonly statedir: string;
}

function mtimeSeconds(path: string): number | undefined {
  try {
    return Math.floor(statSync(path).mtimeMs / 1000);
  } catch {
    return undefined;
  }
}

/** Whether something below `dir` (the directory itself included) changed after `since`. */
function isNewerTree(dir: string, since: number): boolean {
  const own = mtimeSeconds(dir);
  if (own === undefined) return false;
  if (own > since) return true;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return false;
  }
  for (const name of names) {
    const path = join(dir, name);
    let stats: ReturnType<typeof statSync>;
    try {
      stats = statSync(path);
    } catch {
      continue;
    }
    if (Math.floor(stats.mtimeMs / 1000) > since) return true;
    if (stats.isDirectory() && isNewerTree(path, since)) return true;
  }
  return false;
}

/** Where the validation tag goes. */
export function tagDirectory(place: PolicyCheckPlace): string {
  return place.fromCommandLine ? place.statedir : join(place.workdir, "masterfiles");
}

/** Whether 3.21 would check the policy before this run; logs why, as it does. */
export function isPolicyCheckDue(place: PolicyCheckPlace, log: Logger): boolean {
  let due = false;
  if (!place.file.startsWith(place.inputdir)) {
    log.verbose("Input file is outside default repository, validating it");
    due = true;
  }
  // 3.21 reads the time of a policy named on the command line from a file it never writes.
  const validated = place.fromCommandLine
    ? 0
    : validatedAt(join(tagDirectory(place), "cf_promises_validated"));
  const fileTime = mtimeSeconds(place.file);
  const changed =
    fileTime === undefined ||
    fileTime > validated ||
    isNewerTree(place.inputdir, validated) ||
    (mtimeSeconds(join(place.workdir, "policy_server.dat")) ?? 0) > validated;
  if (changed) {
    log.verbose("Input file is changed since last validation, validating it");
    due = true;
  }
  if (!due) log.verbose("Policy is already validated");
  return due;
}

/** After a successful check: the validation tag, and the release ID on a policy hub. */
export function tagValidatedPolicy(place: PolicyCheckPlace, log: Logger): void {
  const dir = tagDirectory(place);
  const hub = mtimeSeconds(join(place.statedir, "am_policy_hub")) !== undefined;
  if (tagReleaseDirectory(dir, { validated: true, release: hub })) {
    log.verbose(`Saved policy validated marker file '${join(dir, "cf_promises_validated")}'`);
  } else {
    log.verbose(`The promises_validated file ${join(dir, "cf_promises_validated")} was NOT updated`);
  }
}

/**
 * The evaluation cf-promises makes of a policy cf-agent checks, for what it
 * does to the world: the commands functions run, and the errors and warnings
 * it logs (cf-agent runs it without -I, and its output shows). What it
 * finds serves only to start promise modules early: the agent's own load
 * reports the same problems.
 */
export function evaluateAsPolicyCheck(
  options: Parameters<typeof loadAsCfPromises>[0],
  log: Logger,
): LoadResult {
  return loadAsCfPromises({ ...options, messages: checkMessages(log) });
}

/** Messages of an evaluation as cf-promises shows them at its default level. */
export function checkMessages(log: Logger): EvaluationMessageSinks {
  return {
    note: (level, message) => {
      if (level === "error") log.error(message);
    },
    fromFunction: (m) => {
      if (m.level === "error" || m.level === "fatal") log.error(m.message);
      else if (m.level === "warning") log.warning(m.message);
    },
  };
}
