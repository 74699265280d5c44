/**
 * Copying a regular file: its bytes copied the way cf-agent does, blocks
 * of zeros skipped rather than written (a sparse source gives a sparse
 * copy); two files compared by content; and a file made a copy of a
 * source (`ensureCopy`), written atomically beside it and renamed over.
 */
import {
  closeSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  lstatSync,
  openSync as openByPath,
  readdirSync,
  readlinkSync,
  readSync,
  type Stats,
  writeSync,
} from "node:fs";
import { fillFileAtomically } from "../../system/atomic.js";
import { chmodSync, lchownSync, mkdirSync, openSync, utimesSync } from "../../system/safe-fs.js";
import { createSymlink } from "./link.js";
import type { BackupHook } from "./content.js";
import { type DigestAlgorithm, type FileState, fileDigest, inspectPath, statOrUndefined } from "./inspect.js";
import type { Ownership } from "./owner.js";
import { removePath } from "./remove.js";
import { type ActOptions, change, changedWith, type FileResult, failedWith, UNCHANGED } from "./result.js";

const CHUNK_BLOCKS = 64;

function isZero(bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== 0) return false;
  return true;
}

function writeAll(fd: number, bytes: Buffer, position: number): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
}

/**
 * Creates `destination` (which must not exist: O_EXCL) with `mode` (the
 * umask applies, as with cf-agent) and the bytes of `source`, flushed to
 * disk (it is about to be renamed over the file it replaces). Throws the
 * system error; a partly written destination is removed by the caller.
 */
export function copyFileSparse(source: string, destination: string, mode: number): void {
  const input = openSync(source, "r");
  try {
    const blockSize = Math.max(512, fstatSync(input).blksize || 4096);
    const output = openSync(destination, "wx", mode);
    try {
      copyBlocks(input, output, blockSize);
      fsyncSync(output);
    } finally {
      closeSync(output);
    }
  } finally {
    closeSync(input);
  }
}

function copyBlocks(input: number, output: number, blockSize: number): void {
  const buffer = Buffer.allocUnsafe(blockSize * CHUNK_BLOCKS);
  let position = 0;
  for (;;) {
    const read = readSync(input, buffer, 0, buffer.length, null);
    if (read === 0) break;
    for (let offset = 0; offset < read; offset += blockSize) {
      const block = buffer.subarray(offset, Math.min(offset + blockSize, read));
      if (!isZero(block)) writeAll(output, block, position + offset);
    }
    position += read;
  }
  // A trailing hole still counts towards the size.
  ftruncateSync(output, position);
}

const CHUNK = 64 * 1024;

/**
 * Whether two files differ in content (sizes first, then bytes). A file
 * that cannot be read counts as different, so a copy is attempted and its
 * error reported.
 */
export function contentsDiffer(a: string, b: string, aStats: Stats, bStats: Stats): boolean {
  if (aStats.size !== bStats.size) return true;
  let fa = -1;
  let fb = -1;
  try {
    fa = openByPath(a, "r");
    fb = openByPath(b, "r");
    const ba = Buffer.allocUnsafe(CHUNK);
    const bb = Buffer.allocUnsafe(CHUNK);
    for (;;) {
      const na = readSync(fa, ba, 0, CHUNK, null);
      const nb = readSync(fb, bb, 0, CHUNK, null);
      if (na !== nb || !ba.subarray(0, na).equals(bb.subarray(0, nb))) return true;
      if (na === 0) return false;
    }
  } catch {
    return true;
  } finally {
    if (fa >= 0) closeSync(fa);
    if (fb >= 0) closeSync(fb);
  }
}

export interface CopyOptions extends ActOptions {
  /** Give the copy the source's mode and owner (else `mode`/`owner`, else the replaced file's, else 0644). */
  readonly preserve?: boolean;
  readonly mode?: number;
  readonly owner?: Ownership;
  /** Only create the copy: an existing file is left alone (Puppet's `replace => false`). */
  readonly replace?: boolean;
  /** Replace a directory in the way (removed recursively); without it that fails with EISDIR. */
  readonly force?: boolean;
  /** Called before an existing object is replaced. */
  readonly backup?: BackupHook;
  /** Name content in changes by this digest (`{md5}…`). */
  readonly digest?: DigestAlgorithm;
}

/**
 * Makes `destination` a copy of the regular file `source` (followed if a
 * link): created when absent, replaced when the content differs (compared
 * byte by byte), holes kept. The copy is written beside the destination
 * and renamed over it. Changes: `ensure` (absent or another kind to
 * `file`) or `content`. Fails when the source is no regular file.
 */
export function ensureCopy(source: string, destination: string, options: CopyOptions = {}): FileResult {
  const ss = statOrUndefined(source);
  if (!ss?.isFile()) {
    const code = ss ? "EINVAL" : "ENOENT";
    return failedWith(
      Object.assign(new Error(`${code}: not a regular file, open '${source}'`), { code, path: source }),
      "open",
    );
  }
  const found = inspectPath(destination);
  if (found.kind === "file") {
    if (options.replace === false || !contentsDiffer(source, destination, ss, found.stats as Stats))
      return UNCHANGED;
  } else if (found.kind === "directory" && !options.force) {
    return failedWith(
      Object.assign(new Error(`EISDIR: is a directory, open '${destination}'`), { code: "EISDIR" }),
      "open",
    );
  }
  const made = copyChange(source, found, options);
  if (options.noop) return changedWith([made]);
  if (found.kind !== "absent" && found.kind !== "file") {
    const removed = removePath(destination, { recursive: true, backup: options.backup });
    if (removed.status === "failed") return removed;
  }
  try {
    if (found.kind === "file") options.backup?.(found);
    copyAtomically(source, destination, ss, found.kind === "file" ? found.stats : undefined, options);
  } catch (error) {
    return failedWith(error, "copy");
  }
  return changedWith([made]);
}

function copyChange(source: string, found: FileState, options: CopyOptions) {
  if (found.kind === "absent") return change("ensure", "absent", "file", "created", options.noop);
  if (found.kind !== "file")
    return change("ensure", found.kind, "file", `replaced ${found.kind} with a file`, options.noop);
  const algorithm = options.digest;
  const old = algorithm ? `{${algorithm}}${fileDigest(found.path, algorithm)}` : undefined;
  const wanted = algorithm ? `{${algorithm}}${fileDigest(source, algorithm)}` : undefined;
  return change(
    "content",
    old,
    wanted,
    old ? `content changed '${old}' to '${wanted}'` : "content changed",
    options.noop,
  );
}

/** Writes the copy beside `destination` and renames it over; throws the system error. */
function copyAtomically(
  source: string,
  destination: string,
  ss: Stats,
  replaced: Stats | undefined,
  options: CopyOptions,
): void {
  const from = options.preserve ? ss : replaced;
  const mode = options.preserve
    ? ss.mode & 0o7777
    : (options.mode ?? (replaced ? replaced.mode & 0o7777 : 0o644));
  const uid = options.owner?.uid ?? from?.uid;
  const gid = options.owner?.gid ?? from?.gid;
  const owner =
    uid === undefined && gid === undefined
      ? undefined
      : { uid: uid ?? process.getuid?.() ?? 0, gid: gid ?? process.getgid?.() ?? 0 };
  const input = openByPath(source, "r");
  try {
    const blockSize = Math.max(512, fstatSync(input).blksize || 4096);
    fillFileAtomically(destination, (fd) => copyBlocks(input, fd, blockSize), mode, owner);
  } finally {
    closeSync(input);
  }
}

/**
 * Copies a file, link or directory tree from `from` to the new path `to`
 * (nothing may be there), keeping modes, times and, for root, owners; a
 * link is copied as a link (its text), never followed. For backups of
 * what is about to be replaced (Puppet's `.puppet-bak` copies). Throws the
 * system error; what was copied before it stays.
 */
export function copyPreserving(from: string, to: string): void {
  const stats = lstatSync(from);
  if (stats.isSymbolicLink()) createSymlink(to, readlinkSync(from));
  else if (stats.isDirectory()) {
    mkdirSync(to, 0o700);
    for (const name of readdirSync(from).sort()) copyPreserving(`${from}/${name}`, `${to}/${name}`);
  } else if (stats.isFile()) copyFileSparse(from, to, 0o600);
  else
    throw Object.assign(new Error(`EINVAL: not a file, directory or link, copy '${from}'`), {
      code: "EINVAL",
    });
  keepAttributes(to, stats);
}

function keepAttributes(path: string, stats: Stats): void {
  if (process.getuid?.() === 0) lchownSync(path, stats.uid, stats.gid);
  if (stats.isSymbolicLink()) return;
  chmodSync(path, stats.mode & 0o7777);
  utimesSync(path, stats.atime, stats.mtime);
}
