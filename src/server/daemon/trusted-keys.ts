/**
 * The clients' trusted keys as the server last read them: each connection
 * of a known client would otherwise read its key file again and parse the
 * PEM (~0.2 ms, a tenth of a connection's dialog besides the handshake).
 * A key is used again only while its file is the same regular file
 * (device, inode, size, modification and change times): a key removed
 * (`tend key -r`) or replaced is read again, so trust follows the files
 * exactly as without the cache. Old-style names (`<user>-<ip>.pub`) and
 * links are read each time, as before. A file changed in the last two
 * seconds is never kept (a file system's clock ticks coarsely: a key
 * replaced within one tick, at the same size and inode number, could keep
 * every stamp; as digests.ts). Bounded: past `limit` entries the oldest go
 * first.
 */
import type { KeyObject } from "node:crypto";
import { lstatSync } from "node:fs";
import { readTrustedKey, trustedKeyFile } from "../../net/keys.js";

/** A key file changed more recently than this (ms) is read every time. */
const SETTLED_MS = 2000;

export class TrustedKeyCache {
  private readonly entries = new Map<string, { readonly stamp: string; readonly key: KeyObject }>();

  constructor(
    private readonly limit = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** readTrustedKey, from the cache while the key's file is unchanged. */
  read(ppkeys: string, user: string, digest: string, ip?: string): KeyObject | undefined {
    const file = trustedKeyFile(ppkeys, user, digest);
    const stats = lstatSync(file, { throwIfNoEntry: false });
    if (!stats?.isFile()) {
      this.entries.delete(file);
      return readTrustedKey(ppkeys, user, digest, ip);
    }
    // Taken before the file is read: a change while it is read changes the stamp.
    const stamp = `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
    const known = this.entries.get(file);
    if (known?.stamp === stamp) return known.key;
    this.entries.delete(file);
    const key = readTrustedKey(ppkeys, user, digest, ip);
    if (key && this.now() - Math.max(stats.mtimeMs, stats.ctimeMs) >= SETTLED_MS) {
      if (this.entries.size >= this.limit) {
        const oldest = this.entries.keys().next().value;
        if (oldest !== undefined) this.entries.delete(oldest);
      }
      this.entries.set(file, { stamp, key });
    }
    return key;
  }
}
