/**
 * Temporary files a killed run left: tend writes a file as
 * `.tend-<pid>-<n>` beside it (`.<name>.tend-<pid>-<n>` before session 18)
 * and renames it over the target (atomic.ts), so a SIGKILL between the two
 * leaves the temporary behind.
 * The first time a run writes into a directory, it removes such leftovers
 * there — only names of exactly that pattern, only regular files last
 * written before this run started, and only when the process that wrote
 * them is gone: its pid is not alive, or is alive but started after the
 * file was last written (the pid was reused). A file of a live tend still
 * writing is never touched, even one whose pid this process cannot see
 * (another pid namespace sharing the directory): it is newer than the run.
 */
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { rememberListing, unlinkSync as unlinkChecked } from "./safe-fs.js";

/** tend's temporary names (see atomic.ts): the writer's pid is the first number. */
const TEMPORARY = /^(?:\..+)?\.tend-(\d+)-\d+$/;

/** Margin for the process start time, known to a clock tick and the boot time to a second. */
const START_MARGIN_MS = 2_000;

/** Directories swept in this process (one run of `tend agent`). */
const swept = new Set<string>();

/** Removes the leftovers of dead writers in `dir`, once per process; returns how many went. */
export function sweepStrayTemporaries(dir: string): number {
  if (swept.has(dir)) return 0;
  swept.add(dir);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  const removed: string[] = [];
  for (const name of names) {
    const pid = Number(TEMPORARY.exec(name)?.[1] ?? Number.NaN);
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) continue;
    const path = join(dir, name);
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (!stats?.isFile() || stats.mtimeMs >= performance.timeOrigin) continue;
    if (!writerIsGone(pid, stats.mtimeMs)) continue;
    try {
      unlinkChecked(path);
      removed.push(name);
    } catch {
      // Gone already, or not ours to remove: left as it is.
    }
  }
  // What is left, for the writes that follow in a catalog run (safe-fs's knownAbsent).
  rememberListing(dir, removed.length === 0 ? names : names.filter((n) => !removed.includes(n)));
  return removed.length;
}

/** Whether the process `pid` that wrote a file last modified at `mtimeMs` has ended. */
export function writerIsGone(pid: number, mtimeMs: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: alive, owned by someone else.
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return true;
  }
  const started = processStartMs(pid);
  return started !== undefined && mtimeMs < started - START_MARGIN_MS;
}

/** When a live process started (Linux /proc), in ms since the epoch; undefined when unknown. */
function processStartMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) in parentheses; starttime is field 22.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[19]);
    const boot = /^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"))?.[1];
    if (!Number.isFinite(ticks) || boot === undefined) return undefined;
    // Linux reports in USER_HZ, 100 on every architecture Node runs on.
    return Number(boot) * 1000 + ticks * 10;
  } catch {
    return undefined;
  }
}
