/**
 * Small JSON tables the agent keeps in its work directory (`state/`):
 * persistent classes, promise locks. A table maps names to epoch
 * milliseconds. Reading a missing or damaged file gives an empty table;
 * writing goes to a temporary file that is renamed into place, so a crash
 * never leaves half a table.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export type TimeTable = Record<string, number>;

/** Reads a JSON object; a missing or damaged file (or one holding something else) gives `{}`. */
export function readStateTable(path: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as unknown;
    return parsed && typeof parsed === "object" && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

export function readTimeTable(path: string): TimeTable {
  const table: TimeTable = {};
  for (const [name, value] of Object.entries(readStateTable(path)))
    if (typeof value === "number") table[name] = value;
  return table;
}

/** Writes the table; false when the work directory is not writable (the run goes on). */
export function writeTimeTable(path: string, table: object): boolean {
  try {
    mkdirSync(dirname(path), { recursive: true });
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(table));
    renameSync(temporary, path);
    return true;
  } catch {
    return false;
  }
}
