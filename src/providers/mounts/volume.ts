/**
 * What a volume holds and how much room it has left: free space from
 * statfs(2) (node:fs statfs), and a count of the entries of a directory
 * with the sum of their sizes (the check for a volume that looks empty,
 * as when a mount is missing).
 */
import { type Dir, lstatSync, opendirSync, statSync, statfsSync } from "node:fs";
import type { MountEntry } from "./table.js";
import { isForeignType } from "./table.js";

export interface DiskUsage {
  /** Bytes available to an unprivileged user. */
  readonly availableBytes: number;
  /** Bytes in use. */
  readonly usedBytes: number;
  /** Available as a whole percentage of available plus used, rounded down. */
  readonly freePercent: number;
}

/** The usage of the file system holding `path`; throws the system error when statfs fails. */
export function diskUsage(path: string): DiskUsage {
  const fs = statfsSync(path);
  const usedBytes = (fs.blocks - fs.bfree) * fs.bsize;
  const availableBytes = fs.bavail * fs.bsize;
  const total = availableBytes + usedBytes;
  // An empty file system (no blocks at all) has nothing free.
  const freePercent = total === 0 ? 0 : Math.trunc((availableBytes / total) * 100);
  return { availableBytes, usedBytes, freePercent };
}

/** Names a directory scan passes over: itself, its parent, fsck's and CFEngine's own. */
const IGNORED = new Set([".", "..", "lost+found", ".cfengine.rm"]);

export interface DirectoryScan {
  readonly kind: "missing" | "directory" | "other" | "unreadable";
  /** Entries counted (not the ignored names). */
  readonly count: number;
  /** Sum of their sizes (lstat: links are not followed). */
  readonly bytes: number;
  /** Names passed over. */
  readonly ignored: readonly string[];
  /** Entries that could not be examined, with the reason. */
  readonly failures: readonly { readonly path: string; readonly error: string }[];
  /** Why a directory could not be read (kind `unreadable`). */
  readonly error?: string;
}

/** Counts the entries of `path` (followed if a link) and sums their sizes. */
export function scanDirectory(path: string): DirectoryScan {
  const empty = { count: 0, bytes: 0, ignored: [], failures: [] };
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return { kind: "missing", ...empty };
  if (!stat.isDirectory()) return { kind: "other", ...empty };
  let dir: Dir;
  try {
    dir = opendirSync(path);
  } catch (error) {
    return { kind: "unreadable", ...empty, error: (error as Error).message };
  }
  let count = 0;
  let bytes = 0;
  const ignored: string[] = [];
  const failures: { path: string; error: string }[] = [];
  try {
    for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) {
      if (IGNORED.has(entry.name)) {
        ignored.push(entry.name);
        continue;
      }
      count += 1;
      const child = `${path}/${entry.name}`;
      try {
        bytes += lstatSync(child).size;
      } catch (error) {
        failures.push({ path: child, error: (error as Error).message });
      }
    }
  } finally {
    dir.closeSync();
  }
  return { kind: "directory", count, bytes, ignored, failures };
}

/**
 * Whether `path` is the root of a file system served by another host: on
 * another device than its parent, and mounted (last, if stacked) with a
 * network file system type, or `extraForeign` says so of its entry.
 */
export function isForeignMount(
  path: string,
  table: readonly MountEntry[],
  extraForeign: (entry: MountEntry) => boolean = () => false,
): boolean {
  const own = statSync(path, { throwIfNoEntry: false });
  const parent = statSync(path.endsWith("/") ? `${path}..` : `${path}/..`, { throwIfNoEntry: false });
  if (!own || !parent || own.dev === parent.dev) return false;
  return table.some((entry) => entry.target === path && (isForeignType(entry) || extraForeign(entry)));
}
