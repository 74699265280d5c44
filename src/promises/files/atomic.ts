/**
 * Safe writes for files promises: the new content goes to a temporary file
 * in the same directory and is renamed over the target, so a reader (and
 * the file after a crash of the agent) has the old file or the new one,
 * never half of one.
 *
 * The new content is flushed to disk before the rename only when it
 * replaces a non-empty file: then a crash of the whole system cannot
 * leave an empty file where there was content. A file created or filled
 * from empty needs no flush (after a system crash it is at worst as it
 * was), and the directory is not flushed (an unflushed rename leaves the
 * old file). cf-agent flushes none of these; flushing every file made
 * creating many files several times slower.
 *
 * A run killed between the write and the rename leaves its temporary
 * file; the next run writing into that directory removes it (see
 * stray-temporaries.ts).
 */
import {
  closeSync,
  fchmodSync,
  fchownSync,
  fsyncSync,
  lstatSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { sweepStrayTemporaries } from "./stray-temporaries.js";

let counter = 0;

function temporaryName(path: string): string {
  counter += 1;
  return join(dirname(path), `.${basename(path)}.tend-${process.pid}-${counter}`);
}

/**
 * Replaces `path` with `data`, created with `mode`. Throws the system error
 * (ENOENT, EACCES...) when it cannot; the target is then left as it was and
 * the temporary file is removed.
 */
export function writeFileAtomically(
  path: string,
  data: string | Uint8Array,
  mode: number,
  owner?: { readonly uid: number; readonly gid: number },
): void {
  sweepStrayTemporaries(dirname(path));
  const temporary = temporaryName(path);
  const replacing = (lstatSync(path, { throwIfNoEntry: false })?.size ?? 0) > 0;
  // O_EXCL: never write through something another process put there.
  const fd = openSync(temporary, "wx", 0o600);
  try {
    // The mode exactly, whatever the umask; the owner of the file replaced.
    if (owner && (owner.uid !== process.getuid?.() || owner.gid !== process.getgid?.()))
      fchownSync(fd, owner.uid, owner.gid);
    fchmodSync(fd, mode);
    writeAll(fd, typeof data === "string" ? Buffer.from(data, "utf8") : data);
    if (replacing) fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkQuietly(temporary);
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temporary, path);
  } catch (error) {
    unlinkQuietly(temporary);
    throw error;
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

/** Removes a file if it is there; a failure is ignored (nothing to clean up). */
export function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone: nothing to clean up.
  }
}
