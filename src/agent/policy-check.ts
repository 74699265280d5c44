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
 * A deliberate difference: cf-agent's check runs cf-promises, which
 * evaluates the policy twice, so a command an `execresult()` or
 * `returnszero()` call runs is run twice more before the agent's own run.
 * tend validates in its own process without evaluating anything twice:
 * a policy's commands run once per call, as the policy says. (Two
 * acceptance tests count those extra runs: 00_basics/ifelapsed_and_expireafter
 * locks.cf and redmine_6334.cf.)
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
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
