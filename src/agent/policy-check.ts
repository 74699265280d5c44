/**
 * cf-agent 3.21's policy check before a run: when the policy may have
 * changed since it was last found valid, cf-agent validates it (running
 * cf-promises) and, when valid, tags the release: it writes
 * `cf_promises_validated` (and, on a policy hub, `cf_promises_release_id`).
 *
 * The tag goes to the state directory for a policy given on the command
 * line, else to `$(sys.masterdir)`. A check is due when the policy file is
 * outside `$(sys.inputdir)`, or it, a directory below `$(sys.inputdir)` or
 * `policy_server.dat` is newer than the last validation (as 3.21 looks:
 * only directories' times, so a file edited in place below the policy
 * file goes unnoticed, and the policy runs unchecked). (As 3.21, a
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
import { lstatSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { loadAsCfPromises } from "../check/check.js";
import { parseJsonText } from "../eval/functions/json-text.js";
import { BoxedNumber } from "../eval/json-numbers.js";
import { isJsonContainer } from "../eval/values.js";
import type { EvaluationMessageSinks, LoadResult } from "../loader/load.js";
import type { Logger } from "../system/logger.js";
import { tagReleaseDirectory } from "./release-tag.js";

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

/**
 * Whether a directory below `dir` (the directory itself included) changed
 * after `since`, as 3.21's quick search: only directories' own times count
 * (a file edited in place changes none), links are not followed, and a
 * name that cannot be looked at counts as a change.
 */
function isNewerTree(dir: string, since: number, log: Logger): boolean {
  let own: ReturnType<typeof lstatSync>;
  try {
    own = lstatSync(dir);
  } catch (error) {
    log.error(`Unable to stat directory '${dir}' in IsNewerFileTree. (stat: ${reason(error)})`);
    return true;
  }
  if (own.isDirectory() && Math.floor(own.mtimeMs / 1000) > since) {
    log.verbose(` >> Detected change in ${dir}`);
    return true;
  }
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    log.error(`Unable to open directory '${dir}' in IsNewerFileTree. (opendir: ${reason(error)})`);
    return false;
  }
  for (const name of names) {
    const path = `${dir}/${name}`;
    let stats: ReturnType<typeof lstatSync>;
    try {
      stats = lstatSync(path);
    } catch (error) {
      log.error(`Unable to stat directory '${path}' in IsNewerFileTree. (lstat: ${reason(error)})`);
      return true;
    }
    if (!stats.isDirectory()) continue;
    if (Math.floor(stats.mtimeMs / 1000) > since) {
      log.verbose(` >> Detected change in ${path}`);
      return true;
    }
    if (isNewerTree(path, since, log)) return true;
  }
  return false;
}

/** An error's text as strerror words it (what Node's message says after the code). */
function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const match = /^[A-Z]+: (.*?), /.exec(message);
  const text = match ? match[1] : message;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Where the validation tag goes. */
export function tagDirectory(place: PolicyCheckPlace): string {
  return place.fromCommandLine ? place.statedir : join(place.workdir, "masterfiles");
}

/**
 * The time of the last validation: the marker's timestamp, its own time
 * when it is no JSON, else 0. Read with 3.21's lenient JSON parser, which
 * takes `{ "timestamp": 1234, }` (a trailing comma) as the time 1234.
 */
function lastValidation(file: string, log: Logger): number {
  const time = mtimeSeconds(file);
  if (time === undefined) return 0;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return 0;
  }
  const parsed = parseJsonText(text);
  if (parsed === undefined) {
    log.verbose(`Could not parse policy_validated JSON file '${file}', using dummy data`);
    return time;
  }
  if (!isJsonContainer(parsed) || Array.isArray(parsed)) return 0;
  const timestamp = parsed.timestamp;
  const value = timestamp instanceof BoxedNumber ? timestamp.value : timestamp;
  return typeof value === "number" ? Math.trunc(value) : 0;
}

/**
 * Whether the policy changed since its last validation, as 3.21 decides
 * (GenericAgentIsPolicyReloadNeeded): a marker from the future is renewed
 * and counts as a change; then the policy file's time, the directories
 * below `$(sys.inputdir)`, and `policy_server.dat`.
 */
function isChangedSinceValidation(place: PolicyCheckPlace, log: Logger): boolean {
  // 3.21 reads the time of a policy named on the command line from a file it never writes.
  const validated = place.fromCommandLine
    ? 0
    : lastValidation(join(tagDirectory(place), "cf_promises_validated"), log);
  const now = Math.floor(Date.now() / 1000);
  if (validated > now) {
    log.info(
      `Clock seems to have jumped back in time, mtime of ${validated} is newer than current time ${now}, touching it`,
    );
    tagPolicy(place, false, log);
    return true;
  }
  let fileTime: number;
  try {
    fileTime = Math.floor(statSync(place.file).mtimeMs / 1000);
  } catch (error) {
    log.verbose(`There is no readable input file at '${place.file}'. (stat: ${reason(error)})`);
    return true;
  }
  if (fileTime > validated) {
    log.verbose(
      `Input file '${place.file}' has changed since the last policy read attempt (file is newer than previous)`,
    );
    return true;
  }
  if (isNewerTree(place.inputdir, validated, log)) {
    log.verbose("Quick search detected file changes");
    return true;
  }
  return (mtimeSeconds(join(place.workdir, "policy_server.dat")) ?? 0) > validated;
}

/** Whether 3.21 would check the policy before this run; logs why, as it does. */
export function isPolicyCheckDue(place: PolicyCheckPlace, log: Logger): boolean {
  let due = false;
  if (!place.file.startsWith(place.inputdir)) {
    log.verbose("Input file is outside default repository, validating it");
    due = true;
  }
  if (isChangedSinceValidation(place, log)) {
    log.verbose("Input file is changed since last validation, validating it");
    due = true;
  }
  if (!due) log.verbose("Policy is already validated");
  return due;
}

/** After a successful check: the validation tag, and the release ID on a policy hub. */
export function tagValidatedPolicy(place: PolicyCheckPlace, log: Logger): void {
  tagPolicy(place, mtimeSeconds(join(place.statedir, "am_policy_hub")) !== undefined, log);
}

function tagPolicy(place: PolicyCheckPlace, release: boolean, log: Logger): void {
  const dir = tagDirectory(place);
  if (tagReleaseDirectory(dir, { validated: true, release })) {
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
