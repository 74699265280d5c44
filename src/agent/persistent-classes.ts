/**
 * Classes that outlive a run (`persistence`, `persist_time`), kept in
 * `<workdir>/state/persistent-classes.json` as `{ name: expiry epoch ms }`.
 * The file is written to a temporary name and renamed, so a crash never
 * leaves it half-written; an unreadable file counts as empty.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export class PersistentClasses {
  private readonly path: string;
  private entries: Record<string, number> = {};
  private changed = false;

  constructor(
    private readonly statedir: string,
    private readonly now: () => number = Date.now,
  ) {
    this.path = join(statedir, "persistent-classes.json");
  }

  /** The classes still in force. */
  load(): string[] {
    try {
      const parsed = JSON.parse(readFileSync(this.path, "utf8")) as unknown;
      if (parsed && typeof parsed === "object") this.entries = parsed as Record<string, number>;
    } catch {
      this.entries = {};
    }
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

  save(): void {
    if (!this.changed) return;
    try {
      mkdirSync(this.statedir, { recursive: true });
      const temporary = `${this.path}.${process.pid}.tmp`;
      writeFileSync(temporary, JSON.stringify(this.entries));
      renameSync(temporary, this.path);
    } catch {
      // A read-only work directory only loses persistence, never the run.
    }
  }
}
