/**
 * Safe writes for files promises: the new content goes to a temporary file
 * in the same directory, is flushed to disk, and is renamed over the
 * target, so a reader sees the old file or the new one, never half of one.
 */
import {
  closeSync,
  fchmodSync,
  fchownSync,
  fsyncSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";

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
  const temporary = temporaryName(path);
  // O_EXCL: never write through something another process put there.
  const fd = openSync(temporary, "wx", 0o600);
  try {
    // The mode exactly, whatever the umask; the owner of the file replaced.
    if (owner && (owner.uid !== process.getuid?.() || owner.gid !== process.getgid?.()))
      fchownSync(fd, owner.uid, owner.gid);
    fchmodSync(fd, mode);
    writeAll(fd, typeof data === "string" ? Buffer.from(data, "utf8") : data);
    fsyncSync(fd);
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
  syncDirectory(dirname(path));
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone: nothing to clean up.
  }
}

/** Makes the rename itself durable; some file systems refuse, which is harmless. */
function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // A directory that cannot be opened or synced still holds the renamed file.
  }
}
