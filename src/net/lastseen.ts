/**
 * The hosts this host has talked to, as 3.21's lastseen database records
 * them (libpromises/lastseen.c `UpdateLastSawHost`): for each peer key
 * and direction (incoming: it connected to our server; outgoing: we
 * connected to it) the address and the time of the last connection, and
 * the reverse map address → key. `tend key -s` lists it, as `cf-key -s`
 * lists 3.21's.
 *
 * 3.21 keeps it in an LMDB file (state/cf_lastseen.lmdb); tend keeps it as
 * JSON in state/tend_lastseen.json, replaced atomically. Concurrent
 * writers (several connections at once) may lose an update to each other,
 * never the file: an entry is refreshed by the peer's next connection.
 * Like 3.21, it records; nothing in tend decides from it.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomically } from "../system/atomic.js";

export const LASTSEEN_FILE = "tend_lastseen.json";

export type LastSeenDirection = "incoming" | "outgoing";

export interface LastSeenEntry {
  readonly direction: LastSeenDirection;
  /** "MD5=…" of the peer's key. */
  readonly key: string;
  /** The peer's address (IPv4-mapped IPv6 addresses as IPv4). */
  readonly address: string;
  /** When it was last seen, seconds since the epoch. */
  readonly lastseen: number;
}

interface Stored {
  readonly version: 1;
  readonly hosts: Record<string, { address: string; lastseen: number }>;
}

const keyOf = (direction: LastSeenDirection, key: string): string =>
  `${direction === "incoming" ? "i" : "o"}:${key}`;

function load(file: string): Stored {
  try {
    const data = JSON.parse(readFileSync(file, "utf8")) as Partial<Stored>;
    if (data.version === 1 && data.hosts && typeof data.hosts === "object")
      return { version: 1, hosts: data.hosts };
  } catch {
    // Missing or unreadable: started afresh, as 3.21 with a new database.
  }
  return { version: 1, hosts: {} };
}

/** The entries of the database in `statedir`, most recent first. */
export function readLastSeen(statedir: string): LastSeenEntry[] {
  const entries: LastSeenEntry[] = [];
  for (const [id, value] of Object.entries(load(join(statedir, LASTSEEN_FILE)).hosts)) {
    const direction = id.startsWith("i:") ? "incoming" : id.startsWith("o:") ? "outgoing" : undefined;
    if (!direction || typeof value?.address !== "string" || typeof value.lastseen !== "number") continue;
    entries.push({ direction, key: id.slice(2), address: value.address, lastseen: value.lastseen });
  }
  return entries.sort((a, b) => b.lastseen - a.lastseen);
}

/** Records connections (LastSaw1). Throws the system error when the state directory cannot be written. */
export function recordLastSeen(statedir: string, entries: readonly LastSeenEntry[]): void {
  if (entries.length === 0) return;
  const file = join(statedir, LASTSEEN_FILE);
  mkdirSync(statedir, { recursive: true, mode: 0o700 });
  const stored = load(file);
  for (const entry of entries)
    stored.hosts[keyOf(entry.direction, entry.key)] = { address: entry.address, lastseen: entry.lastseen };
  writeFileAtomically(file, `${JSON.stringify(stored)}\n`, 0o600);
}

/**
 * A server's record of its peers: connections are noted in memory and
 * written together at most every `delayMs` (and by `flush`), so that a
 * connection costs no file write (the file is flushed to disk when
 * replaced); 3.21 writes its LMDB database at each connection.
 */
export class LastSeenLog {
  private pending = new Map<string, LastSeenEntry>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly statedir: string,
    private readonly onError: (error: unknown) => void,
    private readonly delayMs = 5000,
  ) {}

  saw(direction: LastSeenDirection, key: string, address: string): void {
    this.pending.set(keyOf(direction, key), {
      direction,
      key,
      address,
      lastseen: Math.floor(Date.now() / 1000),
    });
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.delayMs);
      this.timer.unref();
    }
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const entries = [...this.pending.values()];
    this.pending = new Map();
    try {
      recordLastSeen(this.statedir, entries);
    } catch (error) {
      this.onError(error);
    }
  }
}
