/**
 * The changes database of `changes` promises, in the agent's state
 * directory (`changes.json`): per file the hashes and the stat fields
 * last recorded, per directory the names last seen. It is read once per
 * run and written back (to a temporary file, then renamed) after each
 * promise that changed it. The log of changes found is cf-agent's
 * `file_changes.log`, one line per change:
 * `<time>,<promise handle>,<file>,<N|R|C|S>,<message>`.
 */
import { appendFileSync, readFileSync, statSync } from "node:fs";
import { mkdirSync } from "../../system/safe-fs.js";
import { join } from "node:path";
import type { PromiseEnvironment } from "../contract.js";
import type { RunSlot } from "../run-state.js";
import { writeFileAtomically } from "../../system/atomic.js";
import { stateDir } from "./run-state.js";

/** The stat fields cf-agent compares. */
export interface RecordedStats {
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
  readonly dev: number;
  readonly ino: number;
  /** Seconds. */
  readonly mtime: number;
}

interface Tables {
  hashes: Record<string, string>;
  stats: Record<string, RecordedStats>;
  directories: Record<string, string[]>;
}

export class ChangesDatabase {
  private dirty = false;

  private constructor(
    private readonly path: string | undefined,
    private readonly tables: Tables,
  ) {}

  static open(dir: string | undefined): ChangesDatabase {
    const path = dir === undefined ? undefined : join(dir, "changes.json");
    let tables: Tables = { hashes: {}, stats: {}, directories: {} };
    if (path) {
      try {
        const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<Tables>;
        tables = {
          hashes: parsed.hashes ?? {},
          stats: parsed.stats ?? {},
          directories: parsed.directories ?? {},
        };
      } catch {
        // No database yet (or an unreadable one): start empty, as a first run.
      }
    }
    return new ChangesDatabase(path, tables);
  }

  hash(method: string, file: string): string | undefined {
    return this.tables.hashes[`${method}:${file}`];
  }

  setHash(method: string, file: string, digest: string): void {
    this.tables.hashes[`${method}:${file}`] = digest;
    this.dirty = true;
  }

  stats(file: string): RecordedStats | undefined {
    return this.tables.stats[file];
  }

  setStats(file: string, stats: RecordedStats): void {
    this.tables.stats[file] = stats;
    this.dirty = true;
  }

  /** The names recorded for a directory, sorted (empty when none). */
  directory(dir: string): readonly string[] {
    return this.tables.directories[dir] ?? [];
  }

  /** Records a directory's names; returns whether that changed the record. */
  setDirectory(dir: string, names: readonly string[]): boolean {
    const old = this.tables.directories[dir];
    if (names.length === 0) {
      if (old === undefined) return false;
      delete this.tables.directories[dir];
    } else {
      if (old && old.length === names.length && old.every((n, i) => n === names[i])) return false;
      this.tables.directories[dir] = [...names];
    }
    this.dirty = true;
    return true;
  }

  /** Forgets all about a file (it was removed). */
  forget(file: string): void {
    for (const key of Object.keys(this.tables.hashes)) {
      if (key.slice(key.indexOf(":") + 1) === file) delete this.tables.hashes[key];
    }
    delete this.tables.stats[file];
    this.dirty = true;
  }

  /** Writes the database back if it changed; returns false when it could not. */
  save(): boolean {
    if (!this.dirty || !this.path) return true;
    try {
      mkdirSync(join(this.path, ".."), { recursive: true, mode: 0o700 });
      writeFileAtomically(this.path, JSON.stringify(this.tables), 0o600);
      this.dirty = false;
      return true;
    } catch {
      return false;
    }
  }
}

const DATABASE: RunSlot<{ db?: ChangesDatabase }> = { name: "changes database", create: () => ({}) };

/** The run's changes database, opened on first use. */
export function changesDatabase(env: PromiseEnvironment): ChangesDatabase {
  const slot = env.runState.get(DATABASE);
  slot.db ??= ChangesDatabase.open(stateDir(env));
  return slot.db;
}

export type FileState = "N" | "R" | "C" | "S";

/** Appends a line to `file_changes.log`; returns false when it cannot. */
export function logFileChange(
  env: PromiseEnvironment,
  handle: string,
  file: string,
  state: FileState,
  message: string,
): boolean {
  const dir = stateDir(env);
  if (dir === undefined) return false;
  const path = join(dir, "file_changes.log");
  try {
    if (statSync(path).mode & 0o022)
      env.log.error(
        `File '${path}' (owner ${statSync(path).uid}) was writable by others (security exception)`,
      );
  } catch {
    // Not there yet.
  }
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const now = Math.floor(Date.now() / 1000);
    appendFileSync(path, `${now},${handle},${file},${state},${message}\n`, { mode: 0o600 });
    return true;
  } catch (error) {
    env.log.error(`Could not write to the hash change log. (fopen: ${String(error)})`);
    return false;
  }
}
