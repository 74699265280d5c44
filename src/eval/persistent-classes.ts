/**
 * Classes that outlive a run (`persistence`, `persist_time`), kept in
 * `<workdir>/state/persistent-classes.json` as `{ name: { expires, tags } }`
 * (expiry in epoch ms; a bare number, as older tend wrote, means no tags).
 * The file is written to a temporary name and renamed, so a crash never
 * leaves it half-written; an unreadable file counts as empty.
 */
import { join } from "node:path";
import { readStateTable, type StateTrust, writeTimeTable } from "../system/state-file.js";

/** A persistent class still in force, with the tags it was defined with. */
export interface PersistentClass {
  readonly name: string;
  readonly tags: readonly string[];
}

interface Entry {
  readonly expires: number;
  readonly tags: readonly string[];
}

export class PersistentClasses {
  private readonly path: string;
  private entries: Record<string, Entry> = {};
  private changed = false;

  constructor(
    statedir: string,
    private readonly now: () => number = Date.now,
    private readonly trust?: StateTrust,
  ) {
    this.path = join(statedir, "persistent-classes.json");
  }

  /** The classes still in force; expired ones are dropped. */
  load(): PersistentClass[] {
    this.entries = {};
    const now = this.now();
    for (const [name, raw] of Object.entries(readStateTable(this.path, this.trust))) {
      const entry = toEntry(raw);
      if (entry && entry.expires > now) this.entries[name] = entry;
      else this.changed = true;
    }
    return Object.entries(this.entries).map(([name, entry]) => ({ name, tags: entry.tags }));
  }

  add(name: string, minutes: number, tags: readonly string[] = []): void {
    this.entries[name] = { expires: this.now() + minutes * 60_000, tags };
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

function toEntry(raw: unknown): Entry | undefined {
  if (typeof raw === "number") return { expires: raw, tags: [] };
  if (!raw || typeof raw !== "object") return undefined;
  const { expires, tags } = raw as { expires?: unknown; tags?: unknown };
  if (typeof expires !== "number") return undefined;
  const strings = Array.isArray(tags) ? tags.filter((t): t is string => typeof t === "string") : [];
  return { expires, tags: strings };
}
