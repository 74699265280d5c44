/**
 * The process table as cf-agent 3.21 reads it on Linux: the output of
 * `/bin/ps -eo user:30,...,args`, a header line naming the columns and one
 * line per process. Lines are split into columns the way 3.21 splits them
 * (on white space, the command being the rest of the line), and a start
 * time that `ps` shows only as a day or a year is replaced by one computed
 * from the elapsed time. `findprocesses`, `processexists` and `processes`
 * promises all read it through here (src/eval/process-table.ts keeps the
 * agent's copy), as may any front end's service or process provider.
 */
import { spawnSync } from "node:child_process";

/** The program and options 3.21 uses on Linux. */
export const PS_COMMAND = "/bin/ps";
export const PS_OPTIONS = "-eo user:30,pid,ppid,pgid,pcpu,pmem,vsz,ni,rss:9,tname,nlwp,stime,etime,time,args";

/** One column of the header: its name and where its title ends. */
export interface ProcessColumn {
  readonly name: string;
  readonly end: number;
}

export interface ProcessTable {
  /** The header line, as `ps` printed it (3.21's "legend"). */
  readonly legend: string;
  readonly columns: readonly ProcessColumn[];
  /** The process lines, in the order `ps` printed them. */
  readonly lines: readonly string[];
  /** When the table was read (seconds since the epoch). */
  readonly time: number;
}

/** Problems met reading lines, as 3.21 logs them. */
export type ProcessTableLog = (level: "error" | "info" | "verbose", message: string) => void;

/** The columns of a header line: each title and the offset of its last character. */
export function readColumns(header: string): ProcessColumn[] {
  const columns: ProcessColumn[] = [];
  for (const match of header.matchAll(/\S+/g)) {
    columns.push({ name: match[0].slice(0, 15), end: match.index + match[0].length - 1 });
  }
  return columns;
}

/** Runs `ps`; undefined when it cannot run or fails. */
export function loadProcessTable(): ProcessTable | undefined {
  const run = spawnSync(PS_COMMAND, PS_OPTIONS.split(" "), {
    encoding: "utf8",
    timeout: 60_000,
    maxBuffer: 256 * 1024 * 1024,
  });
  if (run.error || run.status !== 0 || typeof run.stdout !== "string") return undefined;
  const all = run.stdout.split("\n");
  if (all.at(-1) === "") all.pop();
  const [legend = "", ...lines] = all;
  return { legend, columns: readColumns(legend), lines, time: Math.floor(Date.now() / 1000) };
}

const isSpace = (ch: string | undefined) => ch !== undefined && /\s/.test(ch);
const isAlpha = (ch: string | undefined) => ch !== undefined && /[A-Za-z]/.test(ch);
const isDigit = (ch: string | undefined) => ch !== undefined && /[0-9]/.test(ch);

/** Where the field starting at `pos` ends, for a start time ("May  4" is one field). */
function startTimeEnd(line: string, pos: number): number | undefined {
  let last = pos;
  while (isAlpha(line[last])) last++;
  if (isSpace(line[last])) {
    do last++;
    while (isSpace(line[last]));
    if (!isDigit(line[last])) return undefined;
  }
  while (last < line.length && !isSpace(line[last])) last++;
  return last;
}

/**
 * The fields of one process line, one per column; undefined (after logging
 * the error 3.21 logs) when the line does not fit the header.
 */
export function splitProcessLine(
  table: ProcessTable,
  line: string,
  log: ProcessTableLog,
): string[] | undefined {
  const names = table.columns.map((c) => c.name);
  const fields: string[] = [];
  let pos = 0;
  for (let i = 0; i < names.length; i++) {
    if (pos >= line.length) {
      log("error", `ps output line '${line}' is shorter than its associated header.`);
      return undefined;
    }
    const command = names[i] === "CMD" || names[i] === "COMMAND";
    if (i + 1 < names.length === command) {
      log("error", `Last field of ps output '${line}' is not CMD/COMMAND.`);
      return undefined;
    }
    while (isSpace(line[pos])) pos++;
    let last: number | undefined;
    if (command) last = line.trimEnd().length;
    else if (names[i] === "STIME") last = startTimeEnd(line, pos);
    else {
      last = pos;
      while (last < line.length && !isSpace(line[last])) last++;
    }
    if (last === undefined) {
      log("error", `Unable to parse STIME entry in ps output line '${line}'`);
      return undefined;
    }
    fields.push(line.slice(pos, Math.max(pos, last)));
    pos = last;
  }
  fixStartTime(table, line, names, fields, log);
  return fields;
}

/** The index of the column named `a` or `b`; -1 when `ps` has neither. */
export function columnIndex(table: ProcessTable, a: string, b: string = a): number {
  return table.columns.findIndex((c) => c.name === a || c.name === b);
}

/**
 * `[dd-]hh:mm[:ss]` in seconds, as 3.21 reads `ps` time counters (so
 * `mm:ss`, which Linux prints for young processes, reads as hours and
 * minutes); undefined when it is neither form.
 */
export function timeCounterSeconds(text: string): number | undefined {
  const withDays = /^\s*([+-]?\d+)-\s*([+-]?\d+):\s*([+-]?\d+)(?::\s*([+-]?\d+))?/.exec(text);
  const clock = /^\s*([+-]?\d+):\s*([+-]?\d+)(?::\s*([+-]?\d+))?/.exec(text);
  let days = 0;
  let rest: (string | undefined)[];
  if (withDays) {
    days = Number(withDays[1]);
    rest = withDays.slice(2);
  } else if (clock) rest = clock.slice(1);
  else return undefined;
  const [hours, minutes, seconds] = rest.map((n) => (n === undefined ? 0 : Number(n)));
  return ((days * 24 + hours) * 60 + minutes) * 60 + seconds;
}

/** A start time shown only as a day or a year becomes the table's time less the elapsed time. */
function fixStartTime(
  table: ProcessTable,
  line: string,
  names: readonly string[],
  fields: string[],
  log: ProcessTableLog,
): void {
  const k = names.indexOf("ELAPSED");
  if (k === -1) return;
  const elapsed = timeCounterSeconds(fields[k]);
  if (elapsed === undefined) {
    if (fields[k] !== undefined) log("verbose", `Parsing problem was in ELAPSED field of '${line}'`);
    return;
  }
  const j = names.findIndex((n) => n === "STIME" || n === "START");
  if (j === -1 || /^\s*[+-]?\d+:\s*[+-]?\d+/.test(fields[j])) return;
  fields[j] = String(table.time - elapsed);
}

/** The process id of a line, read after the column before PID as 3.21 reads it; -1 when none. */
export function extractPid(table: ProcessTable, line: string): number {
  const col = columnIndex(table, "PID");
  let sp = col > 0 ? table.columns[col - 1].end : 0;
  while (sp < line.length) {
    if (/[A-Za-z0-9]/.test(line[sp])) while (sp < line.length && line[sp] !== " ") sp++;
    while (line[sp] === " " || line[sp] === "\t") sp++;
    const number = /^[+-]?\d+/.exec(line.slice(sp));
    if (number && Number(number[0]) !== -1) return Number(number[0]);
    sp++;
  }
  return -1;
}
