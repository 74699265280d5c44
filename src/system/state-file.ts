/**
 * Small JSON tables the agent keeps in its work directory (`state/`):
 * persistent classes, promise locks. A table maps names to epoch
 * milliseconds. Reading a missing or damaged file gives an empty table;
 * writing goes to a temporary file that is renamed into place, so a crash
 * never leaves half a table.
 *
 * State decides what root's next run does, so only state nobody else
 * could have written is believed: a table is read only when it is a
 * regular file owned by the user running tend and writable by nobody
 * else, and written 600 in a 700 directory whatever the umask, through a
 * temporary file created exclusively (never through a planted link).
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { writeFileAtomically } from "./atomic.js";
import { makeDirectoriesSync } from "./make-directories.js";

export type TimeTable = Record<string, number>;

/** Who is told that a state file was not believed, and whether the whole state directory is distrusted. */
export interface StateTrust {
  /** Set when the state directory was found writable by others: nothing in it is read this run. */
  readonly distrusted?: boolean;
  untrusted(message: string): void;
}

/** The reason a state file opened as `fd` is not believed, if it is not. */
function distrustOf(fd: number): string | undefined {
  const stats = fstatSync(fd);
  if (!stats.isFile()) return "is not a regular file";
  const uid = process.geteuid?.();
  if (uid !== undefined && stats.uid !== uid) return `is owned by uid ${stats.uid}`;
  if (stats.mode & 0o022) return `is writable by others (mode ${(stats.mode & 0o777).toString(8)})`;
  return undefined;
}

/** Reads a JSON object; a missing, damaged or untrusted file (or one holding something else) gives `{}`. */
export function readStateTable(path: string, trust?: StateTrust): Record<string, unknown> {
  if (trust?.distrusted) return {};
  let text: string;
  try {
    const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const reason = distrustOf(fd);
      if (reason) {
        trust?.untrusted(`UNTRUSTED: State file '${path}' ${reason}; ignored`);
        return {};
      }
      text = readFileSync(fd, "utf8");
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    // A link where a state file should be is not ours: not believed either.
    if ((error as NodeJS.ErrnoException).code === "ELOOP")
      trust?.untrusted(`UNTRUSTED: State file '${path}' is a symbolic link; ignored`);
    return {};
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === "object" && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

export function readTimeTable(path: string, trust?: StateTrust): TimeTable {
  const table: TimeTable = {};
  for (const [name, value] of Object.entries(readStateTable(path, trust)))
    if (typeof value === "number") table[name] = value;
  return table;
}

/** Writes the table (mode 600); false when the work directory is not writable (the run goes on). */
export function writeTimeTable(path: string, table: object): boolean {
  try {
    makeDirectoriesSync(dirname(path), 0o700);
    writeFileAtomically(path, JSON.stringify(table), 0o600);
    return true;
  } catch {
    return false;
  }
}
