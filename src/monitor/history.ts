/**
 * The weekly statistics, in tend's own format: one small JSON file per
 * 5-minute slot of the week under `state/tend-monitor/` (`Thu_Hr15_Min55_00.json`:
 * the slot names and, per slot, [q, expect, var]) plus `age.json` (the
 * number of samples learned, 3.21's DATABASE_AGE). Each file is written to
 * a temporary name and renamed, so a crash leaves the old or the new slot,
 * never half of one; an unreadable file counts as an empty slot.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomically } from "../system/atomic.js";
import { emptyStat, type Stat } from "./statistics.js";

export class History {
  readonly dir: string;

  constructor(statedir: string) {
    this.dir = join(statedir, "tend-monitor");
  }

  private file(key: string): string {
    return join(this.dir, `${key.replace(/[^A-Za-z0-9_]/g, "_")}.json`);
  }

  /** Last week's statistics for a slot, by observable name (spare slots by index). */
  read(key: string, names: readonly string[]): Stat[] {
    const stats = names.map(() => emptyStat());
    const stored = readJson(this.file(key));
    if (!stored || !Array.isArray(stored.names) || !Array.isArray(stored.q)) return stats;
    const byName = new Map<string, number[]>();
    stored.names.forEach((name: unknown, i: number) => {
      const row = stored.q[i];
      if (typeof name === "string" && name !== "spare" && Array.isArray(row)) byName.set(name, row);
    });
    names.forEach((name, i) => {
      const row = byName.get(name);
      if (!row) return;
      const [q, expect, variance] = row.map((n) => (typeof n === "number" && Number.isFinite(n) ? n : 0));
      stats[i] = { q: q ?? 0, expect: expect ?? 0, var: variance ?? 0, dq: 0 };
    });
    return stats;
  }

  write(key: string, names: readonly string[], stats: readonly Stat[], lastSeen: number): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const q = stats.map((s) => [s.q, s.expect, s.var]);
    writeFileAtomically(this.file(key), `${JSON.stringify({ lastSeen, names, q })}\n`, 0o600);
  }

  readAge(): number {
    const stored = readJson(join(this.dir, "age.json"));
    const age = stored?.age;
    return typeof age === "number" && Number.isFinite(age) && age >= 0 ? age : 0;
  }

  writeAge(age: number): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    writeFileAtomically(join(this.dir, "age.json"), `${JSON.stringify({ age })}\n`, 0o600);
  }
}

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON, checked field by field by the callers
function readJson(path: string): any {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return undefined;
  }
}
