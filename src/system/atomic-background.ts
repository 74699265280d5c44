/**
 * A new file written as atomic.ts writes it (a temporary file in the
 * checked directory, its exact mode set, renamed into place), with the two
 * slow calls, creating the temporary file and the rename, run on libuv's
 * threads: on a journaled file system they are most of a file's cost, and
 * the caller's thread goes on meanwhile. The calls between them (fchmod,
 * write, close) are quick and run on the caller's thread when the creation
 * is reported, as its callbacks do.
 *
 * What can be checked at once is, and throws as writeFileAtomically does:
 * the directory (no link another user controls on the way). Its descriptor
 * stays open until the file is in place (holdCheckedDirectory), so the
 * rename lands in the directory that was checked.
 *
 * Only for a file that is not there: nothing is replaced, so nothing needs
 * flushing (see atomic.ts), and no owner is given (the running user's).
 */
import { closeSync, constants, fchmodSync, open, rename } from "node:fs";
import { basename, dirname } from "node:path";
import { NAME_ATTEMPTS, removeTemporary, temporaryName, writeAll } from "./atomic.js";
import { type HeldDirectory, holdCheckedDirectory } from "./safe-fs.js";
import { sweepStrayTemporaries } from "./stray-temporaries.js";

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;

/**
 * Starts writing the new file `path`; `done` is called with undefined once
 * it is in place, or with the system error (the target is then as it was,
 * the temporary file removed). Throws the errors of the directory's checks.
 */
export function startNewFile(
  path: string,
  data: Uint8Array,
  mode: number,
  done: (error: Error | undefined) => void,
): void {
  const parent = dirname(path);
  sweepStrayTemporaries(parent);
  const held = holdCheckedDirectory(parent, "open", path);
  const finish = (error: Error | undefined): void => {
    held.release();
    done(error);
  };
  create(held, path, data, mode, 1, finish);
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
