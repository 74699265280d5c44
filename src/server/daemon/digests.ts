/**
 * The MD5 digests of files the server has hashed, kept while the files do
 * not change: an agent's update asks the digest of every file of the
 * policy, every few minutes, and most never change. A digest is used again
 * only when the file's device, inode, size, modification and change times
 * (to the nanosecond as the file system keeps them) are those it was
 * computed under, and never for a file changed in the last seconds: a
 * file system's clock ticks coarsely (a few ms), so a file rewritten twice
 * within one tick, to the same size, could keep all of its stamps (the
 * "racy" case git and rsync guard against the same way).
 *
 * Bounded: past `limit` entries the oldest go first.
 */
import type { Stats } from "node:fs";

/** A file changed more recently than this (ms) is hashed every time. */
const SETTLED_MS = 2000;

/** Values computed from files (or directories) kept while what they were computed from does not change. */
export class StampedCache<T> {
  private readonly entries = new Map<string, { readonly stamp: string; readonly value: T }>();

  constructor(
    private readonly limit = 20_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The value for `path` computed when it had these stats, if it is still valid. */
  get(path: string, stats: Stats): T | undefined {
    const entry = this.entries.get(path);
    if (!entry) return undefined;
    if (entry.stamp === stampOf(stats)) return entry.value;
    this.entries.delete(path);
    return undefined;
  }

  /** Remembers the value for `path` (computed after `stats` was taken), unless it changed too recently. */
  set(path: string, stats: Stats, value: T): void {
    if (this.now() - Math.max(stats.mtimeMs, stats.ctimeMs) < SETTLED_MS) return;
    if (this.entries.size >= this.limit) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(path, { stamp: stampOf(stats), value });
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * The server's MD5 digests of files, and the OPENDIR listings of
 * directories (a directory's modification time changes whenever a name is
 * added to it, removed or renamed), as each connection's agent asks them
 * again and again.
 */
export class DigestCache extends StampedCache<Buffer> {
  /** OPENDIR's frames (payloads) of a directory. */
  readonly listings: StampedCache<readonly Buffer[]>;

  constructor(limit = 20_000, now: () => number = Date.now) {
    super(limit, now);
    this.listings = new StampedCache(Math.ceil(limit / 10), now);
  }
}

function stampOf(stats: Stats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}
