/**
 * The hosts this host has talked to, as 3.21's lastseen database records
 * them (libpromises/lastseen.c): for each peer key and direction
 * (incoming: it connected to our server; outgoing: we connected to it) the
 * time of the last connection and the rolling statistics of the interval
 * between connections; the peer's address by key, and the key by address.
 * Servers record their trusted clients; agents (copy_from, bootstrap),
 * `tend runagent` and `tend key -t ADDRESS:FILE` record the servers they
 * trust, as 3.21 does (cf-net, like `tend net`, connects "off the record").
 * `tend key -s` lists it and `tend key -r` removes from it, as cf-key.
 *
 * 3.21 keeps it in an LMDB file (state/cf_lastseen.lmdb) under the keys
 * `q<i|o><key>` (last time and interval statistics), `k<key>` (address)
 * and `a<address>` (key); tend keeps the same entries as JSON in
 * state/tend_lastseen.json, replaced atomically. Concurrent writers (a
 * server and an agent at once) may lose an update to each other, never
 * the file: an entry is refreshed by the peer's next connection. Like
 * 3.21, tend records; nothing decides from it.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomically, writeFilesAtomically } from "../system/atomic.js";

export const LASTSEEN_FILE = "tend_lastseen.json";

export type LastSeenDirection = "incoming" | "outgoing";

/** The interval between connections, seconds: the last one, its rolling average and variance, the change. */
export interface LastSeenInterval {
  readonly q: number;
  readonly expect: number;
  readonly var: number;
  readonly dq: number;
}

export interface LastSeenRecord {
  readonly direction: LastSeenDirection;
  /** "MD5=…" of the peer's key. */
  readonly key: string;
  /** The peer's address (IPv4-mapped IPv6 addresses as IPv4). */
  readonly address: string;
  /** When it was seen, seconds since the epoch. */
  readonly lastseen: number;
}

export interface LastSeenEntry extends LastSeenRecord {
  readonly interval: LastSeenInterval;
}

interface Quality extends LastSeenInterval {
  lastseen: number;
}

/** The database: 3.21's keys, `q[io]KEY` → quality, `kKEY` → address, `aADDRESS` → key. */
type Db = Record<string, Quality | string>;

interface Stored {
  readonly version: 2;
  readonly entries: Db;
}

/** How much a new interval weighs in the rolling average (3.21's 0.4). */
const WEIGHT = 0.4;

/** An address as 3.21's MapAddress gives it: "::ffff:10.0.0.1" as "10.0.0.1". */
export function mapAddress(address: string): string {
  return address.startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address;
}

function isQuality(value: unknown): value is Quality {
  return typeof value === "object" && value !== null && typeof (value as Quality).lastseen === "number";
}

function load(file: string): Db {
  let data: { version?: unknown; entries?: unknown; hosts?: unknown };
  try {
    data = JSON.parse(readFileSync(file, "utf8")) as typeof data;
  } catch {
    // Missing or unreadable: started afresh, as 3.21 with a new database.
    return {};
  }
  if (data.version === 2 && typeof data.entries === "object" && data.entries !== null) {
    const db: Db = {};
    for (const [id, value] of Object.entries(data.entries as Record<string, unknown>))
      if (typeof value === "string" || isQuality(value)) db[id] = value;
    return db;
  }
  if (data.version === 1 && typeof data.hosts === "object" && data.hosts !== null) {
    // The first format (incoming peers only, no statistics): "i:KEY" → { address, lastseen }.
    const db: Db = {};
    for (const [id, value] of Object.entries(data.hosts as Record<string, unknown>)) {
      const v = value as { address?: unknown; lastseen?: unknown };
      if (!/^[io]:/.test(id) || typeof v?.address !== "string" || typeof v.lastseen !== "number") continue;
      const key = id.slice(2);
      db[`q${id[0]}${key}`] = { lastseen: v.lastseen, q: 0, expect: 0, var: 0, dq: 0 };
      db[`k${key}`] = v.address;
      db[`a${v.address}`] = key;
    }
    return db;
  }
  return {};
}

function save(statedir: string, db: Db): void {
  mkdirSync(statedir, { recursive: true, mode: 0o700 });
  writeFileAtomically(join(statedir, LASTSEEN_FILE), stored(db), 0o600);
}

function stored(db: Db): string {
  const content: Stored = { version: 2, entries: db };
  return `${JSON.stringify(content)}\n`;
}

/** One connection into `db` (3.21's UpdateLastSawHost). */
function update(db: Db, record: LastSeenRecord): void {
  const qualityKey = `q${record.direction === "incoming" ? "i" : "o"}${record.key}`;
  const old = db[qualityKey];
  let quality: Quality;
  if (isQuality(old)) {
    const q = record.lastseen - old.lastseen;
    quality = {
      lastseen: record.lastseen,
      q,
      dq: q - old.q,
      expect: WEIGHT * q + (1 - WEIGHT) * old.expect,
      var: WEIGHT * (q - old.expect) ** 2 + (1 - WEIGHT) * old.var,
    };
  } else {
    quality = { lastseen: record.lastseen, q: 0, expect: 0, var: 0, dq: 0 };
  }
  db[qualityKey] = quality;
  db[`k${record.key}`] = record.address;
  db[`a${record.address}`] = record.key;
}

/**
 * The entries of the database in `statedir`: for each known key, its
 * incoming and then its outgoing entry, each with the key's address (the
 * last one seen either way, as 3.21), the most recently seen key first.
 */
export function readLastSeen(statedir: string): LastSeenEntry[] {
  const db = load(join(statedir, LASTSEEN_FILE));
  const groups: LastSeenEntry[][] = [];
  for (const [id, address] of Object.entries(db)) {
    if (id[0] !== "k" || typeof address !== "string") continue;
    const key = id.slice(1);
    const group: LastSeenEntry[] = [];
    for (const direction of ["incoming", "outgoing"] as const) {
      const quality = db[`q${direction[0]}${key}`];
      if (!isQuality(quality)) continue;
      const { lastseen, q, expect, dq } = quality;
      group.push({ direction, key, address, lastseen, interval: { q, expect, var: quality.var, dq } });
    }
    if (group.length > 0) groups.push(group);
  }
  const newest = (group: LastSeenEntry[]): number => Math.max(...group.map((e) => e.lastseen));
  return groups.sort((a, b) => newest(b) - newest(a)).flat();
}

/** The key last seen at `address` (3.21's `a<address>` entry), if any. */
export function lastSeenKeyOf(statedir: string, address: string): string | undefined {
  const key = load(join(statedir, LASTSEEN_FILE))[`a${mapAddress(address)}`];
  return typeof key === "string" ? key : undefined;
}

/** Records connections (3.21's LastSaw1). Throws the system error when the state directory cannot be written. */
export function recordLastSeen(statedir: string, records: readonly LastSeenRecord[]): void {
  if (records.length === 0) return;
  const db = load(join(statedir, LASTSEEN_FILE));
  for (const record of records) update(db, record);
  save(statedir, db);
}

/**
 * Records one connection now, reporting a failure to `onError` instead of
 * throwing: a client's connection does not fail because its record did.
 */
export function noteLastSeen(
  statedir: string,
  direction: LastSeenDirection,
  key: string,
  address: string,
  onError: (error: unknown) => void,
): void {
  try {
    recordLastSeen(statedir, [
      { direction, key, address: mapAddress(address), lastseen: Math.floor(Date.now() / 1000) },
    ]);
  } catch (error) {
    onError(error);
  }
}

/**
 * Why the database is incoherent (3.21's IsLastSeenCoherent): every
 * address a key maps to has its own address entry, and every key an
 * address maps to has its own key entry. Empty when it is coherent.
 */
export function lastSeenIncoherences(statedir: string): string[] {
  const db = load(join(statedir, LASTSEEN_FILE));
  const problems: string[] = [];
  for (const [id, value] of Object.entries(db)) {
    if (typeof value !== "string") continue;
    if (id[0] === "k" && typeof db[`a${value}`] !== "string")
      problems.push(`found kKEY -> '${value}' entry, but no 'a${value}' -> any key entry exists!`);
    if (id[0] === "a" && typeof db[`k${value}`] !== "string")
      problems.push(`found aIP -> '${value}' entry, but no 'k${value}' -> any ip entry exists!`);
  }
  return problems;
}

/** Whether `input` names a key ("MD5=…", "SHA=…") rather than a host, as 3.21 tells them apart. */
export function isKeyDigest(input: string): boolean {
  return input.startsWith("SHA") || input.startsWith("MD5");
}

export type LastSeenRemoval =
  | { readonly removed: true; readonly equivalent: string }
  | { readonly removed: false; readonly reason: "incoherent" | "digest" | "host" };

/**
 * Removes every trace of a key or an address (3.21's
 * RemoveKeysFromLastSeen): for a key, its address entries and statistics
 * (its address must map back to something when `mustBeCoherent`); for an
 * address, its key's entries. `equivalent` is the address of the key, or
 * the key of the address. With `mustBeCoherent`, an incoherent database
 * is left as it is.
 */
export function removeFromLastSeen(
  statedir: string,
  input: string,
  mustBeCoherent: boolean,
): LastSeenRemoval {
  if (mustBeCoherent && lastSeenIncoherences(statedir).length > 0)
    return { removed: false, reason: "incoherent" };
  const db = load(join(statedir, LASTSEEN_FILE));
  let key: string;
  let equivalent: string;
  if (isKeyDigest(input)) {
    const address = db[`k${input}`];
    if (typeof address !== "string" || (mustBeCoherent && typeof db[`a${address}`] !== "string"))
      return { removed: false, reason: "digest" };
    delete db[`a${address}`];
    delete db[`k${input}`];
    key = input;
    equivalent = address;
  } else {
    const found = db[`a${input}`];
    if (typeof found !== "string" || typeof db[`k${found}`] !== "string")
      return { removed: false, reason: "host" };
    delete db[`k${found}`];
    delete db[`a${input}`];
    key = found;
    equivalent = found;
  }
  delete db[`qi${key}`];
  delete db[`qo${key}`];
  save(statedir, db);
  return { removed: true, equivalent };
}

/**
 * 3.21's forced removal (`cf-key -x -r`): of a key, every address entry
 * whose key starts with it, its own entries and statistics; of an
 * address, every key whose address starts with it, with their entries
 * and statistics. Returns the keys whose trusted key files go too, and
 * whether the main entry was there (3.21 logs an error when not, and goes
 * on).
 */
export function forceRemoveFromLastSeen(
  statedir: string,
  input: string,
): { readonly keys: readonly string[]; readonly mainEntryFound: boolean } {
  const db = load(join(statedir, LASTSEEN_FILE));
  let mainEntryFound: boolean;
  const keys: string[] = [];
  if (isKeyDigest(input)) {
    const addresses = Object.entries(db)
      .filter(([id, value]) => id[0] === "a" && typeof value === "string" && value.startsWith(input))
      .map(([id]) => id.slice(1));
    mainEntryFound = typeof db[`k${input}`] === "string";
    for (const id of [`k${input}`, `qi${input}`, `qo${input}`]) delete db[id];
    for (const address of addresses) delete db[`a${address}`];
    keys.push(input);
  } else {
    for (const [id, value] of Object.entries(db))
      if (id[0] === "k" && typeof value === "string" && value.startsWith(input)) keys.push(id.slice(1));
    mainEntryFound = typeof db[`a${input}`] === "string";
    delete db[`a${input}`];
    for (const key of keys) for (const id of [`k${key}`, `qi${key}`, `qo${key}`]) delete db[id];
  }
  save(statedir, db);
  return { keys, mainEntryFound };
}

/**
 * A server's record of its peers: connections are noted in memory and
 * written together at most every `delayMs` (and by `flush`), so that a
 * connection costs no file write (the file is flushed to disk when
 * replaced); 3.21 writes its LMDB database at each connection. Within a
 * batch only a peer's last connection counts for the interval statistics.
 * The flush to disk runs on libuv's threads: a synchronous one held every
 * connection's next reply for as long as the disk took (67 ms in all over
 * 70 cold copies of the MPF on a loaded machine, up to ~20 ms at once).
 * Writes follow one another, each reading what the one before left.
 */
export class LastSeenLog {
  private pending = new Map<string, LastSeenRecord>();
  private timer: NodeJS.Timeout | undefined;
  /** The write under way, if any. */
  private writing: Promise<void> | undefined;

  constructor(
    private readonly statedir: string,
    private readonly onError: (error: unknown) => void,
    private readonly delayMs = 5000,
  ) {}

  saw(direction: LastSeenDirection, key: string, address: string): void {
    this.pending.set(`${direction[0]}${key}`, {
      direction,
      key,
      address: mapAddress(address),
      lastseen: Math.floor(Date.now() / 1000),
    });
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.delayMs);
      this.timer.unref();
    }
  }

  /** Writes what is noted, after any write under way; never rejects. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const done = (this.writing ?? Promise.resolve()).then(() => this.write());
    this.writing = done;
    return done.finally(() => {
      if (this.writing === done) this.writing = undefined;
    });
  }

  private async write(): Promise<void> {
    const records = [...this.pending.values()];
    this.pending = new Map();
    if (records.length === 0) return;
    try {
      const db = load(join(this.statedir, LASTSEEN_FILE));
      for (const record of records) update(db, record);
      mkdirSync(this.statedir, { recursive: true, mode: 0o700 });
      const [error] = await writeFilesAtomically([
        { path: join(this.statedir, LASTSEEN_FILE), chunks: [Buffer.from(stored(db))], mode: 0o600 },
      ]);
      if (error) this.onError(error);
    } catch (error) {
      this.onError(error);
    }
  }
}
