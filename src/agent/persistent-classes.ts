/**
 * Classes that outlive a run (`persistence`, `persist_time`), kept in
 * `<workdir>/state/persistent-classes.json` as `{ name: expiry epoch ms }`.
 * The file is written to a temporary name and renamed, so a crash never
 * leaves it half-written; an unreadable file counts as empty.
 */
import { join } from "node:path";
import { type TimeTable, readTimeTable, writeTimeTable } from "./state-file.js";

export class PersistentClasses {
  private readonly path: string;
  private entries: TimeTable = {};
  private changed = false;

  constructor(
    statedir: string,
    private readonly now: () => number = Date.now,
  ) {
    this.path = join(statedir, "persistent-classes.json");
  }

  /** The classes still in force. */
  load(): string[] {
    this.entries = readTimeTable(this.path);
    const now = this.now();
    for (const [name, expiry] of Object.entries(this.entries)) {
      if (typeof expiry !== "number" || expiry <= now) {
        delete this.entries[name];
        this.changed = true;
      }
    }
    return Object.keys(this.entries);
  }

  add(name: string, minutes: number): void {
    this.entries[name] = this.now() + minutes * 60_000;
    this.changed = true;
  }

  remove(name: string): void {
    if (!(name in this.entries)) return;
    delete this.entries[name];
    this.changed = true;
  }

  /** A read-only work directory only loses persistence, never the run. */
  save(): boolean {
    if (!this.changed) return true;
    return writeTimeTable(this.path, this.entries);
  }
}
