/**
 * Looking at a path before acting on it: what is there (a file, a
 * directory, a link, something else, or nothing), its mode, owner, group,
 * size, a link's target and, when asked, a digest of a file's content.
 *
 * The `*OrUndefined` helpers give node:fs's Stats without exceptions:
 * undefined when the object is absent or cannot be looked at (callers
 * treat both alike, as cf-agent's `lstat() == -1` checks do).
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  type Stats,
  statSync,
} from "node:fs";
import { knownAbsent } from "../../system/safe-fs.js";

export function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

export function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

export function realpathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** A symbolic link's text, or undefined when `path` is no link (or cannot be read). */
export function readLinkOrUndefined(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

/** What a path holds. `other` is a FIFO, socket or device. */
export type FileKind = "file" | "directory" | "link" | "other" | "absent";

/** Digests node:crypto computes that front ends name (`{md5}`, `{sha256}`...). */
export type DigestAlgorithm = "md5" | "sha1" | "sha224" | "sha256" | "sha384" | "sha512";

/** A path as found. Numbers are 0 and strings absent for an absent path. */
export interface FileState {
  readonly path: string;
  readonly kind: FileKind;
  /** Permission bits (`0o7777`); a link's own are meaningless on Linux. */
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
  readonly size: number;
  readonly mtimeMs: number;
  /** A link's text (as readlink gives it, not resolved). */
  readonly target?: string;
  /** The hex digest of a file's content, when one was asked for. */
  readonly digest?: string;
  /** The lstat (or, when following, stat) result itself; absent for an absent path. */
  readonly stats?: Stats;
}

export interface InspectOptions {
  /** Compute this digest of a regular file's content. */
  readonly digest?: DigestAlgorithm;
  /** Look at what a link leads to (stat) rather than the link (lstat). */
  readonly follow?: boolean;
  /**
   * Take "absent" from the catalog run's listing of the directory when it
   * has one (system/safe-fs.ts's knownAbsent) rather than looking. For a
   * caller that creates the file only if nothing is there (replaceContent's
   * `createOnly`) and looks again if something is.
   */
  readonly listed?: boolean;
}

/** The kind of object `stats` describes. */
export function kindOf(stats: Stats | undefined): FileKind {
  if (!stats) return "absent";
  if (stats.isFile()) return "file";
  if (stats.isDirectory()) return "directory";
  if (stats.isSymbolicLink()) return "link";
  return "other";
}

/**
 * What is at `path`. Never throws: a path that cannot be looked at is
 * `absent`; a digest that cannot be read is left out.
 */
export function inspectPath(path: string, options: InspectOptions = {}): FileState {
  const stats =
    options.listed && knownAbsent(path)
      ? undefined
      : options.follow
        ? statOrUndefined(path)
        : lstatOrUndefined(path);
  const kind = kindOf(stats);
  if (!stats) return { path, kind, mode: 0, uid: 0, gid: 0, size: 0, mtimeMs: 0 };
  const target = kind === "link" ? readLinkOrUndefined(path) : undefined;
  const digest = kind === "file" && options.digest ? digestOrUndefined(path, options.digest) : undefined;
  return {
    path,
    kind,
    mode: stats.mode & 0o7777,
    uid: stats.uid,
    gid: stats.gid,
    size: stats.size,
    mtimeMs: stats.mtimeMs,
    target,
    digest,
    stats,
  };
}

/** The hex digest of a file's content. Throws the system error. */
export function fileDigest(path: string, algorithm: DigestAlgorithm): string {
  const hash = createHash(algorithm);
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(1 << 16);
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      hash.update(buffer.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest("hex");
}

/** The hex digest of bytes or text (UTF-8). */
export function dataDigest(data: string | Uint8Array, algorithm: DigestAlgorithm): string {
  return createHash(algorithm).update(data).digest("hex");
}

function digestOrUndefined(path: string, algorithm: DigestAlgorithm): string | undefined {
  try {
    return fileDigest(path, algorithm);
  } catch {
    return undefined;
  }
}
