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
import { type TimeTable, readTimeTable, writeTimeTable } from "./state-file.js";

export class LockStore {
  private readonly path: string;
  private entries: TimeTable | null = null;
  private changed = false;

  constructor(
    statedir: string,
    private readonly now: () => number = Date.now,
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

  /** Losing the lock table only means promises may act again next run. */
  save(): boolean {
    if (!this.changed || !this.entries) return true;
    return writeTimeTable(this.path, this.entries);
  }

  private load(): TimeTable {
    this.entries ??= readTimeTable(this.path);
    return this.entries;
  }
}
