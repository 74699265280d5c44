/**
 * The process table the agent keeps while a bundle runs, as 3.21 does:
 * read (through the processes provider) at the first need, reused by the
 * bundle's `processes` promises, dropped when a bundle starts and by the
 * functions (`findprocesses`, `processexists`), which read a fresh one.
 *
 * One per process, as the agent runs one policy at a time.
 */
import {
  PS_COMMAND,
  PS_OPTIONS,
  type ProcessTable,
  type ProcessTableLog,
  loadProcessTable,
} from "../providers/processes/table.js";

/** The table kept while a bundle runs, if read since it began. */
let kept: ProcessTable | undefined;

/** The kept table, read first if need be; logs as 3.21 does. Undefined when `ps` fails. */
export function keptProcessTable(log: ProcessTableLog): ProcessTable | undefined {
  if (kept) {
    log("verbose", "Reusing cached process table");
    return kept;
  }
  log("verbose", `Observe process table with ${PS_COMMAND} ${PS_OPTIONS}`);
  kept = loadProcessTable();
  return kept;
}

/** Whether a table is kept (read since the bundle began). */
export function hasKeptProcessTable(): boolean {
  return kept !== undefined;
}

/** Forgets the kept table: the next reader runs `ps` again. */
export function clearProcessTable(): void {
  kept = undefined;
}
