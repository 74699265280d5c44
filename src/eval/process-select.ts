/**
 * Which lines of the process table a `processes` promise is about, as
 * 3.21 selects them: the promiser is a regex found anywhere in the
 * command; with a `process_select` body, each criterion that holds adds
 * its word (`process_owner`, `pid`, `ppid`, `pgid`, `vsize`, `rsize`,
 * `ttime`, `stime`, `priority`, `threads`, `status`, `command`, `tty`) and
 * `process_result` is a class expression over those words. A criterion
 * whose column `ps` does not show never holds.
 */
import { checkClassExpression } from "./class-expression.js";
import {
  type ProcessTable,
  type ProcessTableLog,
  columnIndex,
  extractPid,
  splitProcessLine,
  timeCounterSeconds,
} from "../providers/processes/index.js";
import { PcreError } from "./regex/pcre.js";
import { compileCfRegex, matchesFully } from "./regex/match.js";
import { toByteString } from "./regex/bytes.js";
import { MONTH_NAMES } from "./calendar.js";
import { CF_INT_MULTIPLIERS } from "./numbers.js";

/** An integer range ("min,max"). */
export type Range = readonly [number, number];

/** A list item of a body: its text, or the name of a function call that failed. */
export type ListItem = { readonly text: string } | { readonly failedCall: string };

/** A `process_select` body, read; an absent criterion is undefined (or empty). */
export interface ProcessSelect {
  readonly owners: readonly ListItem[];
  readonly pid?: Range;
  readonly ppid?: Range;
  readonly pgid?: Range;
  readonly rsize?: Range;
  readonly vsize?: Range;
  readonly ttime?: Range;
  readonly stime?: Range;
  readonly priority?: Range;
  readonly threads?: Range;
  readonly status?: string;
  readonly command?: string;
  readonly tty?: string;
  readonly result?: string;
}

/** A process the promise is about: its line in the table and its id. */
export interface SelectedProcess {
  readonly line: string;
  readonly pid: number;
}

type Fields = readonly string[];

/** Whether the regex is found anywhere in `subject` (3.21's unanchored StringMatch). */
export function regexFound(pattern: string, subject: string): boolean {
  const regex = compileCfRegex(pattern);
  if (regex instanceof PcreError) return false;
  regex.lastIndex = 0;
  return regex.test(toByteString(subject));
}

function regexColumn(
  table: ProcessTable,
  fields: Fields,
  names: readonly [string, string],
  pattern: string | undefined,
  anchored: boolean,
): boolean {
  if (pattern === undefined) return false;
  const i = columnIndex(table, ...names);
  if (i === -1) return false;
  return anchored ? matchesFully(pattern, fields[i]) === true : regexFound(pattern, fields[i]);
}

/** 3.21's IntFromString on a column: a leading integer with an optional k/m/g multiplier. */
function columnInteger(text: string, log: ProcessTableLog): number | undefined {
  const match = /^\s*([+-]?\d+)(?:(\S)\s*(\S)?)?/.exec(text);
  if (!match) {
    log("error", `Failed to parse integer number: ${text}`);
    return undefined;
  }
  const [, digits, quantifier, remainder] = match;
  if (remainder !== undefined) {
    log("error", `Anomalous ending '${quantifier}${remainder}' while parsing integer number: ${text}`);
    return undefined;
  }
  const factor = quantifier === undefined ? 1 : (CF_INT_MULTIPLIERS[quantifier] ?? 1);
  return Number(digits) * factor;
}

function rangeColumn(
  table: ProcessTable,
  fields: Fields,
  names: readonly [string, string],
  range: Range | undefined,
  log: ProcessTableLog,
): boolean {
  if (!range) return false;
  const i = columnIndex(table, ...names);
  if (i === -1) return false;
  const value = columnInteger(fields[i], log);
  if (value === undefined) {
    log(
      "info",
      `Failed to extract a valid integer from '${table.columns[i].name}' => '${fields[i]}' in process list`,
    );
    return false;
  }
  return range[0] <= value && value <= range[1];
}

function counterColumn(table: ProcessTable, fields: Fields, range: Range | undefined, log: ProcessTableLog) {
  if (!range) return false;
  const i = columnIndex(table, "TIME");
  if (i === -1) return false;
  const value = timeCounterSeconds(fields[i]);
  if (value === undefined) {
    log("error", `Unable to parse 'ps' time field as [dd-]hh:mm[:ss], got '${fields[i]}'`);
    log("info", `Failed to extract a valid integer from TIME => '${fields[i]}' in process list`);
    return false;
  }
  const held = range[0] <= value && value <= range[1];
  if (held) {
    log(
      "verbose",
      `Selection filter matched counter range 'TIME/TIME' = '${fields[i]}' in [${range[0]},${range[1]}] (= ${value} secs)`,
    );
  }
  return held;
}

/** A start time in seconds since the epoch, read as 3.21 reads it (local time, relative to the run's start). */
export function startTimeSeconds(text: string, runStart: Date): number | undefined {
  const clock = /^\s*([+-]?\d{1,2}):\s*([+-]?\d{1,2})(?::\s*([+-]?\d{1,2}))?/.exec(text);
  const date = new Date(runStart.getTime());
  date.setSeconds(0, 0);
  if (clock) {
    date.setHours(Number(clock[1]), Number(clock[2]), clock[3] === undefined ? 0 : Number(clock[3]));
    return Math.floor(date.getTime() / 1000);
  }
  const monthDay = /^([A-Za-z]{1,3})\s*([+-]?\d+)/.exec(text);
  const month = monthDay ? MONTH_NAMES.findIndex((m) => m.startsWith(monthDay[1])) : -1;
  if (monthDay && month !== -1) {
    if (date.getMonth() < month) date.setFullYear(date.getFullYear() - 1);
    date.setMonth(month, Number(monthDay[2]));
    date.setHours(0, 0, 0);
    return Math.floor(date.getTime() / 1000);
  }
  const number = /^\s*([+-]?\d+)/.exec(text);
  if (!number) return undefined;
  const n = Number(number[1]);
  if (n > 9999) return n;
  const year = n < 999 ? 1900 + n : n;
  return Math.floor(new Date(year, 0, 0).getTime() / 1000);
}

function startColumn(
  table: ProcessTable,
  fields: Fields,
  range: Range | undefined,
  runStart: Date,
  log: ProcessTableLog,
): boolean {
  if (!range) return false;
  const i = columnIndex(table, "STIME", "START");
  if (i === -1) return false;
  const value = startTimeSeconds(fields[i], runStart);
  if (value === undefined) return false;
  const held = range[0] <= value && value <= range[1];
  if (held) {
    log(
      "verbose",
      `Selection filter matched absolute 'STIME/START' = '${fields[i]}(${value})' in [${range[0]},${range[1]}]`,
    );
  }
  return held;
}

/** The words of the criteria a process line meets. */
function selectionWords(
  table: ProcessTable,
  fields: Fields,
  select: ProcessSelect,
  runStart: Date,
  log: ProcessTableLog,
): Set<string> {
  const words = new Set<string>();
  for (const owner of select.owners) {
    if ("failedCall" in owner) {
      log("verbose", `Function call '${owner.failedCall}' in process_select body was not resolved, skipping`);
    } else if (regexColumn(table, fields, ["USER", "UID"], owner.text, true)) {
      words.add("process_owner");
      break;
    }
  }
  const range = (word: string, names: readonly [string, string], r: Range | undefined) => {
    if (rangeColumn(table, fields, names, r, log)) words.add(word);
  };
  range("pid", ["PID", "PID"], select.pid);
  range("ppid", ["PPID", "PPID"], select.ppid);
  range("pgid", ["PGID", "PGID"], select.pgid);
  range("vsize", ["VSZ", "SZ"], select.vsize);
  range("rsize", ["RSS", "RSS"], select.rsize);
  if (counterColumn(table, fields, select.ttime, log)) words.add("ttime");
  if (startColumn(table, fields, select.stime, runStart, log)) words.add("stime");
  range("priority", ["NI", "PRI"], select.priority);
  range("threads", ["NLWP", "NLWP"], select.threads);
  if (regexColumn(table, fields, ["S", "STAT"], select.status, true)) words.add("status");
  if (regexColumn(table, fields, ["CMD", "COMMAND"], select.command, true)) words.add("command");
  if (regexColumn(table, fields, ["TTY", "TTY"], select.tty, true)) words.add("tty");
  return words;
}

/** `process_result` over the words; without one, whether any criterion held. */
function resultHolds(select: ProcessSelect, words: ReadonlySet<string>, log: ProcessTableLog): boolean {
  const expression = select.result ?? [...words].join(".");
  if (expression === "") return false;
  const value = checkClassExpression(expression, (w) => words.has(w));
  if (value === undefined) log("error", `Syntax error in expression '${expression}'`);
  return value === true;
}

/**
 * The processes whose command matches `promiser` (and which the
 * `process_select` body selects, when `select` is given), last line first
 * as 3.21 lists them.
 */
export function selectProcesses(
  table: ProcessTable,
  promiser: string,
  select: ProcessSelect | undefined,
  log: ProcessTableLog,
): SelectedProcess[] {
  // 3.21 reads short start times relative to the agent's start; the table's time is as good.
  const runStart = new Date(table.time * 1000);
  const out: SelectedProcess[] = [];
  for (const line of table.lines) {
    if (line === "") continue;
    const fields = splitProcessLine(table, line, log);
    if (!fields) continue;
    if (!regexColumn(table, fields, ["CMD", "COMMAND"], promiser, false)) continue;
    if (select && !resultHolds(select, selectionWords(table, fields, select, runStart, log), log)) continue;
    const pid = extractPid(table, line);
    if (pid === -1) {
      log("verbose", `Unable to extract pid while looking for ${promiser}`);
      continue;
    }
    out.unshift({ line, pid });
  }
  return out;
}
