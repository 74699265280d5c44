/**
 * What files promises remember for the length of one agent run: when it
 * started (for time-stamped backups), which files were already archived
 * to the repository, and which were copied under `files_single_copy`;
 * and the account databases, read once per run. Kept in the run's
 * RunState, so two runs in one process never share it.
 */
import { canonify } from "../../eval/class-expression.js";
import { isScalar } from "../../eval/values.js";
import { AccountDatabase } from "../../providers/files/accounts.js";
import type { PromiseEnvironment } from "../contract.js";
import type { RunSlot } from "../run-state.js";

export interface FilesRunState {
  readonly startSeconds: number;
  /** Backups already copied to the repository (a second would overwrite the first). */
  readonly archived: Set<string>;
  /** Destinations copied once under `files_single_copy`. */
  readonly singleCopied: Set<string>;
  /** Files rotated in this run (a file is rotated once per run). */
  readonly rotated: Set<string>;
}

const FILES_RUN: RunSlot<FilesRunState> = {
  name: "files promises",
  create: () => ({
    startSeconds: Math.floor(Date.now() / 1000),
    archived: new Set(),
    singleCopied: new Set(),
    rotated: new Set(),
  }),
};

export function runState(env: PromiseEnvironment): FilesRunState {
  return env.runState.get(FILES_RUN);
}

const ACCOUNTS: RunSlot<AccountDatabase> = { name: "account databases", create: () => new AccountDatabase() };

/** This run's users and groups (/etc/passwd and /etc/group, read once per run). */
export function accountsOf(env: PromiseEnvironment): AccountDatabase {
  return env.runState.get(ACCOUNTS);
}

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** C's ctime(3) text of a time, local time, with its newline. */
export function ctimeText(date: Date): string {
  const two = (n: number) => String(n).padStart(2, "0");
  const day = String(date.getDate()).padStart(2, " ");
  const time = `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
  return `${DAYS[date.getDay()]} ${MONTHS[date.getMonth()]} ${day} ${time} ${date.getFullYear()}\n`;
}

/** The suffix of time-stamped backups: `_<run start>_<now as canonified ctime>`. */
export function runStamp(env: PromiseEnvironment): string {
  // 3.21 names them without the canonified newline of ctime: "..._2026.cfsaved".
  return `_${runState(env).startSeconds}_${canonify(ctimeText(new Date()).trimEnd())}`;
}

/** `$(sys.statedir)`: where files promises keep their records (changes, setuid programs). */
export function stateDir(env: PromiseEnvironment): string | undefined {
  const value = env.ctx.getVariable({ ns: null, scope: "sys", name: "statedir", indices: [] });
  return value && isScalar(value) ? value.value : undefined;
}
