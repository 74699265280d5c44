/**
 * Reading a policy file: only a regular file (a FIFO or a device given as
 * policy would block the run or never end; cf-agent blocks on a FIFO), and
 * only up to a size no real policy comes near.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";

/** The largest policy file tend reads (the MPF's largest file is under 200 KiB). */
export const MAX_POLICY_BYTES = 256 * 1024 * 1024;

export type PolicyRead =
  | { readonly ok: true; readonly text: string; readonly stats: Stats }
  | { readonly ok: false; readonly code: string; readonly reason: string };

/**
 * The text of a policy file, as UTF-8. `check` may refuse the file once it
 * is open (its stats in hand), before anything is read: its reason is the
 * failure's.
 */
export function readPolicyFile(path: string, check?: (stats: Stats) => string | undefined): PolicyRead {
  let fd: number;
  try {
    // Non-blocking, so that opening a FIFO with no writer returns at once.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "EIO";
    return { ok: false, code, reason: reasonOf(code) };
  }
  try {
    const stats = fstatSync(fd);
    if (stats.isDirectory()) return { ok: false, code: "EISDIR", reason: "is a directory" };
    if (!stats.isFile()) return { ok: false, code: "ENOTREG", reason: "is not a regular file" };
    const refused = check?.(stats);
    if (refused !== undefined) return { ok: false, code: "EPERM", reason: refused };
    if (stats.size > MAX_POLICY_BYTES) {
      return { ok: false, code: "EFBIG", reason: `is larger than ${MAX_POLICY_BYTES / 1024 / 1024} MiB` };
    }
    const buffer = Buffer.allocUnsafe(stats.size);
    let length = 0;
    while (length < buffer.length) {
      const got = readSync(fd, buffer, length, buffer.length - length, null);
      if (got === 0) break;
      length += got;
    }
    return { ok: true, text: buffer.toString("utf8", 0, length), stats };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "EIO";
    return { ok: false, code, reason: reasonOf(code) };
  } finally {
    closeSync(fd);
  }
}

function reasonOf(code: string): string {
  if (code === "ENOENT" || code === "ENOTDIR") return "no such file";
  if (code === "EISDIR") return "is a directory";
  return code;
}
