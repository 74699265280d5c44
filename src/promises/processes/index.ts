/**
 * `processes` promises, as cf-agent 3.21 keeps them on Linux. The promiser
 * is a regex looked for in the command of each line of the process table
 * (`ps`, read once per bundle); a `process_select` body narrows the
 * matches. Then, in 3.21's order:
 *
 * - `process_count`: a count inside `match_range` defines
 *   `in_range_define` and keeps the promise (nothing else happens); out of
 *   range defines `out_of_range_define` and counts as a repair.
 * - `process_stop`: run (without a shell) when something matched;
 *   repaired when it exits 0, failed otherwise.
 * - `signals`: sent to each match in order; numbers wait that many
 *   seconds. The agent never signals itself nor processes 0 to 3 (init
 *   gets only a lone `hup`).
 * - `restart_class`: defined (globally) when nothing matched or a `term`
 *   or `kill` was sent.
 *
 * As 3.21's cfPS, each verdict defines the `classes` body's classes for it
 * at once, so one promise can be both kept and repaired. With
 * `action_policy => "warn"` nothing is signalled and the promise warns; a
 * dry run (`-n`) says what it would signal.
 */
import { spawnSync } from "node:child_process";
import type { LogLevel } from "../../system/logger.js";
import { type Outcome, combineOutcomes } from "../outcome.js";
import { applyOutcomeClasses } from "../outcome-classes.js";
import { canonifyClassName } from "../../eval/class-expression.js";
import { commandArg0, splitCommand } from "../../eval/functions/exec.js";
import { matchesFully } from "../../eval/regex/match.js";
import { clearProcessTable, hasKeptProcessTable, keptProcessTable } from "../../eval/process-table.js";
import {
  type ProcessTable,
  type ProcessTableLog,
  isKillingSignal,
  pause,
  readSignalStep,
  sendSignal,
} from "../../providers/processes/index.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "../contract.js";
import type { RunSlot } from "../run-state.js";
import { logPromiseContext, logPromiseRef } from "../promise-context.js";
import { asStrings } from "../values.js";
import { type ListItem, type SelectedProcess, selectProcesses } from "../../eval/process-select.js";
import { BadRange, type ProcessAttributes, readProcessAttributes } from "./attributes.js";
import { isExecutable } from "../commands/executable.js";

/** What a run keeps for its processes promises. */
interface ProcessesRunState {
  /** The table read for the current bundle (undefined when `ps` failed). */
  table: ProcessTable | undefined;
  /** The attributes read for this pass (3.21 reads them once, before acting). */
  readonly attributesRead: WeakMap<ActivePromise, ProcessAttributes>;
}

const PROCESSES: RunSlot<ProcessesRunState> = {
  name: "processes",
  create: () => ({ table: undefined, attributesRead: new WeakMap() }),
};

/** A verdict of the promise: logged (verbose ones after the promise's context), classes defined. */
class Verdicts {
  outcome: Outcome = "kept";

  constructor(
    private readonly promise: ActivePromise,
    private readonly env: PromiseEnvironment,
  ) {}

  record(level: LogLevel, outcome: Outcome, message: string): void {
    if (level === "verbose" || level === "debug") logPromiseContext(this.promise, this.env);
    this.env.log.log(level, message);
    applyOutcomeClasses(this.promise, this.env, outcome);
  }

  update(outcome: Outcome): void {
    this.outcome = combineOutcomes(this.outcome, outcome);
  }
}

function tableLog(env: PromiseEnvironment): ProcessTableLog {
  return (level, message) => env.log.log(level, message);
}

/** Reads the attributes; a range that makes no sense stops the run, as in 3.21. */
function attributesOf(promise: ActivePromise, env: PromiseEnvironment): ProcessAttributes | undefined {
  try {
    return readProcessAttributes(promise, env.ctx);
  } catch (error) {
    if (!(error instanceof BadRange)) throw error;
    logPromiseRef(promise, env, "error");
    env.fatal(`Fatal CFEngine error: ${error.message}`);
    return undefined;
  }
}

/** What 3.21 says each time it reads the promise: settings that conflict or say too little. */
function checkSanity(promise: ActivePromise, env: PromiseEnvironment, a: ProcessAttributes): void {
  const ref = (level: LogLevel) => logPromiseRef(promise, env, level);
  const range = a.count.range;
  const selectGiven = Object.entries(a.select).some(
    ([key, value]) =>
      key !== "result" && value !== undefined && !(Array.isArray(value) && value.length === 0),
  );
  if (a.select.result === undefined && selectGiven) {
    env.log.error("process_select body missing its a process_result return value");
  }
  if (a.restartClass !== undefined) {
    if (a.signals.includes("term") || a.signals.includes("kill")) {
      env.log.warning(`Promise '${promise.promiser}' kills then restarts - never strictly converges`);
      ref("info");
    }
    if (a.haveCount) {
      env.log.verbose(
        "Note both process_count and restart_class define classes. Please exercises caution that there is not a logic error. Review process_count match_range, in_range_define, and out_of_range_define with respect to restart_class.",
      );
      ref("verbose");
    }
  }
  if (range?.[0] === 0 && range[1] === 0 && a.restartClass !== undefined) {
    env.log.error(
      `Promise constraint conflicts - '${promise.promiser}' processes cannot have zero count if restarted`,
    );
    ref("error");
  }
  if (a.haveSelect && a.select.result === undefined) {
    env.log.error("Process select constraint body promised no result (check body definition)");
    ref("error");
  }
  if (a.haveCount && range === undefined) {
    env.log.error(
      "process_count used without match_range, this promise will not define a class based on a count of matching promises.",
    );
    ref("error");
  }
  if (a.haveCount && a.count.inRange.length === 0 && a.count.outOfRange.length === 0) {
    env.log.error(
      "process_count body is insufficiently defined. process_count must specify at least one of in_range_define or out_of_range_define. ",
    );
    ref("error");
  }
}

/** The matches the promise may act on, logged as 3.21 logs them. */
function findMatches(
  promise: ActivePromise,
  env: PromiseEnvironment,
  a: ProcessAttributes,
  table: ProcessTable,
): SelectedProcess[] {
  const selected = selectProcesses(
    table,
    promise.promiser,
    a.haveSelect ? a.select : undefined,
    tableLog(env),
  );
  const zeroPromised = a.count.range?.[0] === 0 && a.count.range[1] === 0;
  const matches: SelectedProcess[] = [];
  for (const process of selected) {
    if (a.signals.length > 0 && !maySignal(env, a, process.pid, promise.promiser)) continue;
    if (a.warnOnly && zeroPromised) {
      env.log.warning(`Process alert '${table.legend}'`);
      env.log.warning(`Process alert '${process.line}'`);
      continue;
    }
    env.log.log(a.warnOnly ? "warning" : "verbose", `Matched '${process.line}'`);
    matches.unshift(process);
  }
  return matches;
}

/** 3.21 signals neither init (but for a lone `hup`), nor processes 0 to 3, nor itself. */
function maySignal(env: PromiseEnvironment, a: ProcessAttributes, pid: number, promiser: string): boolean {
  if (pid === 1) {
    if (a.signals.length === 1 && a.signals[0] === "hup") {
      env.log.verbose("Okay to send only HUP to init");
      return true;
    }
    return false;
  }
  if (pid < 4) {
    env.log.verbose(`Will not signal or restart processes 0,1,2,3 (occurred while looking for ${promiser})`);
    return false;
  }
  if (pid === process.pid) {
    env.log.verbose("cf-agent will not signal itself!");
    return false;
  }
  return true;
}

function defineCountClasses(
  promise: ActivePromise,
  env: PromiseEnvironment,
  items: readonly ListItem[],
  attribute: string,
): void {
  for (const item of items) {
    if ("failedCall" in item) {
      env.log.error(
        `Body (process_count), for processes promise ${promise.promiser}, has a failing function call (${item.failedCall}) in the ${attribute} attribute - cannot define the class`,
      );
      continue;
    }
    env.defineClass(canonifyClassName(item.text), "namespace", undefined, { tags: ["source=promise"] });
  }
}

/** Runs `process_stop` without a shell; its output shows only when logging at info level or more. */
function stopCommandSucceeds(command: string, env: PromiseEnvironment): boolean {
  const [program, ...args] = splitCommand(command);
  if (program === undefined) return false;
  const run = spawnSync(program, args, { stdio: env.log.wouldLog("info") ? "inherit" : "ignore" });
  return !run.error && run.status === 0;
}

/** `process_stop`; false when the promise cannot go on (the command is not executable). */
function runProcessStop(
  promise: ActivePromise,
  env: PromiseEnvironment,
  stop: string,
  verdicts: Verdicts,
): boolean {
  const who = promise.promiser;
  if (env.dryRun) {
    verdicts.record(
      "error",
      "warn",
      `Need to keep process-stop promise for '${who}', but only a warning is promised`,
    );
    verdicts.update("warn");
    return true;
  }
  if (!isExecutable(commandArg0(stop), env)) {
    verdicts.record(
      "error",
      "failed",
      `Process promise to stop '${who}' could not be kept because '${stop}' is not executable`,
    );
    verdicts.update("failed");
    return false;
  }
  if (stopCommandSucceeds(stop, env)) {
    verdicts.record("info", "repaired", `Promise to stop '${who}' repaired, '${stop}' returned zero`);
    verdicts.update("repaired");
  } else {
    verdicts.record("error", "failed", `Promise to stop '${who}' failed, '${stop}' returned nonzero`);
    verdicts.update("failed");
  }
  return true;
}

/** Sends the signals to each match; whether one of them was a term or a kill. */
function sendSignals(
  promise: ActivePromise,
  env: PromiseEnvironment,
  a: ProcessAttributes,
  matches: readonly SelectedProcess[],
  verdicts: Verdicts,
): boolean {
  if (matches.length === 0) return false;
  if (a.signals.length === 0) {
    env.log.verbose(`No signals to send for '${promise.promiser}'`);
    return false;
  }
  let killed = false;
  let failure = false;
  for (const { pid, line } of matches) {
    for (const spec of a.signals) {
      const step = readSignalStep(spec);
      if ("pause" in step) {
        pause(step.pause);
        continue;
      }
      if (env.dryRun) {
        env.log.error(`Need to keep signal promise '${spec}' in process entry '${line}'`);
        continue;
      }
      if (isKillingSignal(step.signal)) killed = true;
      const error = sendSignal(pid, step.signal);
      if (error !== undefined) {
        verdicts.record(
          "info",
          "failed",
          `Couldn't send promised signal '${spec}' (${step.signal}) to pid ${pid} (might be dead). (kill: ${error})`,
        );
        failure = true;
      } else {
        verdicts.record(
          "info",
          "repaired",
          `Signalled '${spec}' (${step.signal}) to process ${pid} (${line})`,
        );
        verdicts.update("repaired");
        failure = false;
      }
    }
  }
  if (failure) verdicts.update("failed");
  return killed;
}

function restart(
  promise: ActivePromise,
  env: PromiseEnvironment,
  a: ProcessAttributes,
  killed: boolean,
  matched: number,
  verdicts: Verdicts,
): void {
  const restartClass = a.restartClass;
  if (restartClass === undefined || !(killed || matched === 0)) {
    verdicts.record("verbose", "kept", `No restart promised for ${promise.promiser}`);
    return;
  }
  if (a.warnOnly) {
    verdicts.record(
      "warning",
      "warn",
      `Need to keep restart promise for '${promise.promiser}', but only a warning is promised`,
    );
    verdicts.update("warn");
    return;
  }
  const status = killed ? "repaired" : "kept";
  verdicts.record("verbose", status, `C:     +  Global class: ${restartClass} `);
  verdicts.update(status);
  env.defineClass(canonifyClassName(restartClass), "namespace", undefined, { tags: ["source=promise"] });
}

function evaluateProcesses(promise: ActivePromise, env: PromiseEnvironment): Outcome {
  const table = env.runState.get(PROCESSES).table;
  if (!table) {
    env.log.error("Unable to read the process table - cannot keep processes: type promises");
    return "failed";
  }
  const a = env.runState.get(PROCESSES).attributesRead.get(promise) ?? attributesOf(promise, env);
  if (!a) return "failed";
  const verdicts = new Verdicts(promise, env);
  const matches = findMatches(promise, env, a, table);
  const range = a.count.range;
  if (range) {
    if (matches.length >= range[0] && matches.length <= range[1]) {
      defineCountClasses(promise, env, a.count.inRange, "in_range_define");
      verdicts.record("verbose", "kept", `Process promise for '${promise.promiser}' is kept`);
      return verdicts.outcome;
    }
    verdicts.record(
      "verbose",
      "repaired",
      `Process count for '${promise.promiser}' was out of promised range (${matches.length} found)`,
    );
    verdicts.update("repaired");
    defineCountClasses(promise, env, a.count.outOfRange, "out_of_range_define");
  }
  if (a.warnOnly) verdicts.update("warn");
  let killed = false;
  if (!a.warnOnly && matches.length > 0) {
    if (a.processStop !== undefined && !runProcessStop(promise, env, a.processStop, verdicts)) {
      return verdicts.outcome;
    }
    killed = sendSignals(promise, env, a, matches, verdicts);
  }
  restart(promise, env, a, killed, matches.length, verdicts);
  return verdicts.outcome;
}

/**
 * Each time 3.21 meets a processes promise (in every pass, even once it
 * has acted) it makes sure the process table is read, then reads and
 * checks the promise's attributes.
 */
function readTableAndCheck(promise: ActivePromise, env: PromiseEnvironment): void {
  const state = env.runState.get(PROCESSES);
  state.table = keptProcessTable(tableLog(env));
  const a = attributesOf(promise, env);
  if (!a) return;
  checkSanity(promise, env, a);
  state.attributesRead.set(promise, a);
}

/** At the start of each bundle 3.21 reads the table again (only in the bundles `refresh_processes` names, if set). */
function refreshTable(bundle: string, env: PromiseEnvironment): void {
  // Nothing to forget (most runs never read the table): no need to read the control body.
  if (!hasKeptProcessTable()) return;
  const refresh = env.controlValue?.("agent", "refresh_processes");
  if (
    refresh !== undefined &&
    !asStrings(refresh).some((regex) => regex === bundle || matchesFully(regex, bundle) === true)
  )
    return;
  clearProcessTable();
}

export const processesPromiseType: PromiseType = {
  name: "processes",
  waitsForResolution: true,
  oncePerRun: true,
  everyPass: readTableAndCheck,
  bundleStarted: refreshTable,
  evaluate: evaluateProcesses,
};
