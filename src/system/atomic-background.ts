/**
 * A new file written as atomic.ts writes it (a temporary file in the
 * checked directory, its exact mode set, renamed into place), with the two
 * slow calls, creating the temporary file and the rename, run on libuv's
 * threads: on a journaled file system they are most of a file's cost, and
 * the caller's thread goes on meanwhile. The calls between them (fchmod,
 * write, close) are quick and run on the caller's thread when the creation
 * is reported, as its callbacks do.
 *
 * The directory is checked first (newFilesDirectory: no link another user
 * controls on the way), and its descriptor held open while files are
 * written into it, so each rename lands in the directory that was checked.
 * A caller writing many files there checks it once for them all: they go
 * where the path led then, as if written at that moment.
 *
 * Only for a file that is not there: nothing is replaced, so nothing needs
 * flushing (see atomic.ts), and no owner is given (the running user's).
 */
import { closeSync, constants, fchmodSync, open, rename } from "node:fs";
import { basename } from "node:path";
import { NAME_ATTEMPTS, removeTemporary, temporaryName, writeAll } from "./atomic.js";
import { type HeldDirectory, holdCheckedDirectory } from "./safe-fs.js";
import { sweepStrayTemporaries } from "./stray-temporaries.js";

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;

/**
 * The checked directory `dir`, held open for new files (`reported`: the
 * path its errors name). Its leftover temporary files are swept first (see
 * stray-temporaries.ts). Throws as writeFileAtomically does for it (ENOENT,
 * ENOTDIR, ENOLINK...); release it once its files are done.
 */
export function newFilesDirectory(dir: string, reported: string): HeldDirectory {
  sweepStrayTemporaries(dir);
  return holdCheckedDirectory(dir, "open", reported);
}

/**
 * Starts writing the new file `path` into `dir`, its directory (held until
 * `done` is called); `done` gets undefined once the file is in place, or
 * the system error (the target is then as it was, the temporary file
 * removed).
 */
export function startNewFile(
  dir: HeldDirectory,
  path: string,
  data: Uint8Array,
  mode: number,
  done: (error: Error | undefined) => void,
): void {
  create(dir, path, data, mode, 1, done);
}

/** Creates the temporary file (O_EXCL, O_NOFOLLOW: see atomic.ts); a name taken is passed over. */
function create(
  held: HeldDirectory,
  path: string,
  data: Uint8Array,
  mode: number,
  attempt: number,
  finish: (error: Error | undefined) => void,
): void {
  const temporary = `${held.path}/${temporaryName(path)}`;
  open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600, (error, fd) => {
    if (error) {
      if (error.code === "EEXIST" && attempt < NAME_ATTEMPTS)
        create(held, path, data, mode, attempt + 1, finish);
      else finish(error);
      return;
    }
    try {
      // The mode exactly, whatever the umask.
      fchmodSync(fd, mode);
      writeAll(fd, data);
      closeSync(fd);
    } catch (failure) {
      closeQuietly(fd);
      removeTemporary(temporary);
      finish(failure as Error);
      return;
    }
    rename(temporary, `${held.path}/${basename(path)}`, (failure) => {
      if (failure) removeTemporary(temporary);
      finish(failure ?? undefined);
    });
  });
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Closed already (close itself failed): nothing more to do.
  }
}
