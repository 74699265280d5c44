/**
 * Where a copy_from reads its source: the local file system, or a server
 * through an open connection (cf-agent 3.21's `conn`, NULL for a local
 * copy). The copy code asks this for everything it reads from the source
 * side (stat and lstat, directory entries, link texts, the bytes, the
 * comparison of contents), so one copy code serves both.
 *
 * A remote source answers from the connection's stat cache as 3.21's
 * cf_remote_stat does: one STAT per path and connection, both its
 * followed and its link view kept; a refused STAT is asked again.
 */
import { type Stats, Stats as StatsClass, readlinkSync, statSync } from "node:fs";
import { contentsDiffer, copyFileSparse } from "../../providers/files/copy.js";
import { lstatOrUndefined, statOrUndefined } from "../../providers/files/inspect.js";
import { isConsidered, readDirectory } from "./paths.js";

/** What a server says of a path (the contract's RemoteStat). */
export interface RemoteFileStat {
  readonly type: "file" | "link" | "dir" | "fifo" | "block" | "char" | "socket";
  /** Permission bits of the object (of the link's target for a link to something). */
  readonly mode: number;
  /** Permission bits of the link itself; 0 when the path is no link. */
  readonly lmode: number;
  readonly uid: number;
  readonly gid: number;
  readonly size: number;
  /** Seconds since the epoch. */
  readonly atime: number;
  readonly mtime: number;
  readonly ctime: number;
  readonly makeholes: boolean;
  readonly ino: number;
  readonly nlink: number;
  readonly dev: number;
  readonly linkTarget?: string;
}

/** The synchronous requests a copy makes of a server (src/net/sync-client.ts implements them). */
export interface RemoteFiles {
  /** The server's name as the policy gives it (messages say it). */
  readonly server: string;
  /** The address connected to (3.21's conn->remoteip). */
  readonly address: string;
  /** Throws an error whose message is the server's refusal. */
  stat(path: string): RemoteFileStat;
  /** Writes the file's `size` bytes to the new file `destination` (created O_EXCL with `mode`); throws. */
  getToFile(path: string, size: number, destination: string, mode: number): void;
  /** The entries of a directory, as the server lists them; throws. */
  opendir(path: string): string[];
  /** Whether the server's file differs from the local file `local` (MD5 compare). */
  differs(path: string, local: string): boolean;
  /** Whether the connection still stands (3.21's CONNECTIONINFO_STATUS_ESTABLISHED). */
  readonly connected: boolean;
}

export interface CopySource {
  /** "localhost" or the server, as messages name it. */
  readonly server: string;
  /** The open connection for a remote source. */
  readonly remote: RemoteFiles | undefined;
  /** The object at `path`, links followed; undefined when it cannot be stat'ed. */
  stat(path: string): Stats | undefined;
  /** The object at `path` itself. */
  lstat(path: string): Stats | undefined;
  /** A directory's considered entries; throws with the reason. */
  readdir(path: string): string[];
  /** A link's text; throws. */
  readlink(path: string): string;
  /** Creates `fresh` (which must not exist) with the bytes of `path`; throws. */
  copyTo(path: string, fresh: string, mode: number): void;
  /** The mode a new copy gets when it preserves the source's. */
  modeOf(path: string, ss: Stats): number;
  /** Whether the local file `dest` differs in content from the source `path`. */
  differs(path: string, dest: string, ss: Stats, ds: Stats): boolean;
  /** False once a server's connection is lost: a recursive copy stops there (and purges nothing). */
  connected(): boolean;
}

export const LOCAL_SOURCE: CopySource = {
  server: "localhost",
  remote: undefined,
  stat: statOrUndefined,
  lstat: lstatOrUndefined,
  readdir: readDirectory,
  readlink: (path) => readlinkSync(path),
  copyTo: copyFileSparse,
  modeOf: (path) => statSync(path).mode & 0o7777,
  differs: contentsDiffer,
  connected: () => true,
};

const TYPE_BITS: Record<RemoteFileStat["type"], number> = {
  file: 0o100000,
  link: 0o120000,
  dir: 0o040000,
  fifo: 0o010000,
  block: 0o060000,
  char: 0o020000,
  socket: 0o140000,
};

/** A node Stats for what the server said (`link`: the link's own view, as 3.21's "link" stat). */
export function statsOf(remote: RemoteFileStat, link: boolean): Stats {
  const stats = Object.create(StatsClass.prototype) as Stats & Record<string, unknown>;
  const ownLink = link && remote.lmode !== 0;
  const mode = ownLink
    ? TYPE_BITS.link | (remote.lmode & 0o7777)
    : TYPE_BITS[remote.type] | (remote.mode & 0o7777);
  Object.assign(stats, {
    dev: remote.dev,
    ino: remote.ino,
    mode,
    nlink: remote.nlink,
    uid: remote.uid,
    gid: remote.gid,
    rdev: 0,
    size: remote.size,
    blksize: 4096,
    blocks: remote.makeholes ? 0 : Math.ceil(remote.size / 512),
    atimeMs: remote.atime * 1000,
    mtimeMs: remote.mtime * 1000,
    ctimeMs: remote.ctime * 1000,
    birthtimeMs: 0,
    atime: new Date(remote.atime * 1000),
    mtime: new Date(remote.mtime * 1000),
    ctime: new Date(remote.ctime * 1000),
    birthtime: new Date(0),
  });
  return stats;
}

/** The stat cache of one connection (3.21 keeps it on the connection, for the run). */
export type StatCache = Map<string, RemoteFileStat>;

/** A source on a server, through `files` (with its connection's `cache`). */
export function remoteSource(files: RemoteFiles, cache: StatCache): CopySource {
  // As 3.21's cf_remote_stat: answers are kept, refusals asked again.
  const lookup = (path: string): RemoteFileStat | undefined => {
    let found = cache.get(path);
    if (!found) {
      try {
        found = files.stat(path);
      } catch {
        return undefined;
      }
      cache.set(path, found);
    }
    return found;
  };
  return {
    server: files.server,
    remote: files,
    stat: (path) => {
      const found = lookup(path);
      return found && statsOf(found, false);
    },
    lstat: (path) => {
      const found = lookup(path);
      return found && statsOf(found, true);
    },
    readdir: (path) => files.opendir(path).filter((name) => name !== "." && isConsidered(name)),
    readlink: (path) => {
      const found = lookup(path);
      if (found?.linkTarget === undefined || found.linkTarget === "")
        throw Object.assign(new Error("not a link"), { code: "EINVAL" });
      return found.linkTarget;
    },
    copyTo: (path, fresh, mode) => {
      const found = lookup(path);
      files.getToFile(path, found?.size ?? 0, fresh, mode);
    },
    modeOf: (_path, ss) => ss.mode & 0o7777,
    differs: (path, dest, ss, ds) => ss.size !== ds.size || files.differs(path, dest),
    connected: () => files.connected,
  };
}
