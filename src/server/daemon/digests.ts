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

interface Entry {
  readonly stamp: string;
  readonly digest: Buffer;
}

export class DigestCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly limit = 20_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The digest of `path` computed when it had these stats, if it is still valid. */
  get(path: string, stats: Stats): Buffer | undefined {
    const entry = this.entries.get(path);
    if (!entry) return undefined;
    if (entry.stamp === stampOf(stats)) return entry.digest;
    this.entries.delete(path);
    return undefined;
  }

  /** Remembers the digest of `path` (hashed after `stats` was taken), unless the file changed too recently. */
  set(path: string, stats: Stats, digest: Buffer): void {
    if (this.now() - Math.max(stats.mtimeMs, stats.ctimeMs) < SETTLED_MS) return;
    if (this.entries.size >= this.limit) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(path, { stamp: stampOf(stats), digest });
  }

  get size(): number {
    return this.entries.size;
  }
}

function stampOf(stats: Stats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}
