/**
 * Persistent promise locks, for runs without `-K`: a promise that acted
 * less than `ifelapsed` minutes ago is skipped, as in cf-agent (whose
 * default is one minute). Kept in `<workdir>/state/locks.json` as
 * `{ key: last run epoch ms }`, written to a temporary file and renamed.
 *
 * `expireafter` (breaking a lock held too long by a hung agent) needs a
 * lock held across processes; tend takes no such lock yet.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { Logger } from "../system/logger.js";
import { type StateTrust, type TimeTable, readTimeTable, writeTimeTable } from "../system/state-file.js";

/** How long a lock is kept, and how often old ones are purged: four weeks, as 3.21's CF_LOCKHORIZON. */
const LOCK_HORIZON_MS = 4 * 7 * 24 * 3600 * 1000;
/** The entry that remembers the last purge (cf-agent's `lock_horizon`). */
const HORIZON_KEY = "lock_horizon";

export class LockStore {
  private readonly path: string;
  private entries: TimeTable | null = null;
  private changed = false;

  constructor(
    statedir: string,
    private readonly now: () => number = Date.now,
    private readonly trust?: StateTrust,
  ) {
    this.path = join(statedir, "locks.json");
  }

  /**
   * Takes the lock of a promise unless it ran less than `ifelapsedMinutes`
   * ago; returns whether the promise may act.
   */
  acquire(promiseKey: string, ifelapsedMinutes: number): boolean {
    const entries = this.load();
    const key = createHash("sha256").update(promiseKey).digest("hex").slice(0, 32);
    const last = entries[key];
    const now = this.now();
    if (last !== undefined && ifelapsedMinutes > 0 && now - last < ifelapsedMinutes * 60_000) return false;
    entries[key] = now;
    this.changed = true;
    return true;
  }

  /**
   * At the end of a run (with or without `-K`), as 3.21: once every four
   * weeks, forget the locks older than four weeks. Logs what it does.
   */
  purgeStale(log: Logger): void {
    const entries = this.load();
    const now = this.now();
    const horizon = entries[HORIZON_KEY];
    if (horizon !== undefined && now - horizon < LOCK_HORIZON_MS) {
      log.verbose("No lock purging scheduled");
      return;
    }
    log.verbose("Looking for stale locks to purge");
    for (const [key, time] of Object.entries(entries)) {
      if (key === HORIZON_KEY || now - time <= LOCK_HORIZON_MS) continue;
      log.verbose(`Purging lock (${Math.floor((now - time) / 1000)} s elapsed): ${key}`);
      delete entries[key];
    }
    entries[HORIZON_KEY] = now;
    this.changed = true;
  }

  /** Losing the lock table only means promises may act again next run. */
  save(): boolean {
    if (!this.changed || !this.entries) return true;
    return writeTimeTable(this.path, this.entries);
  }

  private load(): TimeTable {
    this.entries ??= readTimeTable(this.path, this.trust);
    return this.entries;
  }
}
