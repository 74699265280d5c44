/**
 * The file system table (`/etc/fstab`): read as lines, looked up by mount
 * point, entries added or removed, and written back atomically (a
 * temporary file renamed over it, keeping its mode and owner). The path
 * may be given so tests can point it into a sandbox.
 */
import { readFileSync, statSync } from "node:fs";
import { writeFileAtomically } from "../../system/atomic.js";

export const DEFAULT_FSTAB = "/etc/fstab";

/** An entry to add: the fields of fstab(5) (dump and pass are left out, as 0). */
export interface FstabEntry {
  readonly spec: string;
  readonly file: string;
  readonly vfstype: string;
  readonly options: string;
}

/** Reads the table as lines (without line ends); throws the system error when it cannot. */
export function readFstab(path: string = DEFAULT_FSTAB): string[] {
  const text = readFileSync(path, "utf8");
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Whether a line is a comment (a `#` first on the line). */
export function isFstabComment(line: string): boolean {
  return line.startsWith("#");
}

/** Whether a line that is not a comment has `mountPoint` as one of its whitespace-separated words. */
export function mentionsMountPoint(line: string, mountPoint: string): boolean {
  if (isFstabComment(line)) return false;
  return line.split(/[ \t\r\n\v\f]+/).includes(mountPoint);
}

/** Whether some entry names `mountPoint`. */
export function hasMountPoint(lines: readonly string[], mountPoint: string): boolean {
  return lines.some((line) => mentionsMountPoint(line, mountPoint));
}

/**
 * Whether a line is an entry for `mountPoint`: not a comment, and the
 * mount point a word after the first with white space after it (so an
 * entry whose source only mentions the path is kept).
 */
export function isEntryFor(line: string, mountPoint: string): boolean {
  if (isFstabComment(line)) return false;
  const words = line.split(/([ \t\r\n\v\f]+)/);
  // words alternates word, separator, word...: a match needs a separator on each side.
  for (let i = 2; i + 1 < words.length; i += 2) if (words[i] === mountPoint) return true;
  return false;
}

/** The lines without the entries for `mountPoint`, and those removed. */
export function removeEntries(
  lines: readonly string[],
  mountPoint: string,
): { lines: string[]; removed: string[] } {
  const kept: string[] = [];
  const removed: string[] = [];
  for (const line of lines) (isEntryFor(line, mountPoint) ? removed : kept).push(line);
  return { lines: kept, removed };
}

/** An entry as a line of the table, its fields separated as cf-agent 3.21 writes them on Linux. */
export function formatFstabEntry(entry: FstabEntry): string {
  return `${entry.spec} \t ${entry.file} \t ${entry.vfstype} \t ${entry.options}`;
}

/**
 * Writes the lines back, each ended by a newline, through a temporary file
 * renamed over the table (its mode and owner kept). Throws the system error
 * when it cannot; the table is then as it was.
 */
export function writeFstab(lines: readonly string[], path: string = DEFAULT_FSTAB): void {
  const stat = statSync(path, { throwIfNoEntry: false });
  const text = lines.map((line) => `${line}\n`).join("");
  writeFileAtomically(
    path,
    text,
    stat ? stat.mode & 0o7777 : 0o644,
    stat ? { uid: stat.uid, gid: stat.gid } : undefined,
  );
}
