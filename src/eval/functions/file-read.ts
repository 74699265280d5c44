/**
 * Reading files for functions as 3.21 does: `readFileResult` reads bytes
 * (bounded, cut at the first NUL) and `cfReadFile` adds what 3.21's
 * `CfReadFile` does around it — the stat first, its error messages, and the
 * trailing newline of a one-line file dropped.
 */
import type { Hash } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { hasUnresolvedReference } from "../expand.js";
import { emitFunctionMessage } from "./messages.js";
import type { FunctionContext } from "./types.js";

const ERRNO_TEXT: Record<string, string> = {
  ENOENT: "No such file or directory",
  EISDIR: "Is a directory",
  EACCES: "Permission denied",
  ENOTDIR: "Not a directory",
  ELOOP: "Too many levels of symbolic links",
};

/** The C library's text for a failed file operation. */
export function errorText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? "";
  return ERRNO_TEXT[code] ?? (error instanceof Error ? error.message : String(error));
}

/** A file's text, or why it could not be read. */
export type ReadResult =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly reason: string; readonly stage: "open" | "read" };

/**
 * The most a function keeps in memory from one file, and the most it scans
 * of a file that is not a regular one (a device or a FIFO may never end).
 * cf-agent has no such limit: readfile() of /dev/zero never returns.
 */
export const READ_LIMIT = 32 * 1024 * 1024;

const MIB = 1024 * 1024;
/** Streaming reads go a mebibyte at a time (fewer system calls on a large file). */
const SCAN_CHUNK = MIB;

/**
 * The buffer every read goes through, made once: functions are called by
 * the thousand, and a fresh mebibyte each time costs more than the read.
 * Reads are synchronous and never nested, so one buffer serves them all.
 */
let scratch: Buffer | undefined;

function scratchBuffer(): Buffer {
  scratch ??= Buffer.allocUnsafe(SCAN_CHUNK);
  return scratch;
}

/**
 * Reads a file's bytes: up to `max` bytes (0: all, up to READ_LIMIT), cut
 * at the first NUL, as C strings are; reading stops there, so /dev/zero or
 * a sparse file is read at once. Past READ_LIMIT with no `max`: a failure,
 * "larger than ..." (the caller's message says which function and file).
 */
export function readFileResult(path: string, max = 0): ReadResult {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    return { ok: false, reason: errorText(error), stage: "open" };
  }
  // Decoded chunk by chunk, so the bytes and the text are not both whole in memory.
  const decoder = new StringDecoder("utf8");
  const pieces: string[] = [];
  let total = 0;
  let limit = max > 0 ? max : READ_LIMIT + 1;
  try {
    // A regular file past the limit is looked through for a NUL first,
    // keeping nothing: without one within the limit it is refused unread.
    if (max <= 0 && fstatSync(fd).size > READ_LIMIT) {
      const nul = firstNul(fd, READ_LIMIT);
      if (nul === -1) return { ok: false, reason: tooLarge(), stage: "read" };
      limit = nul + 1;
    }
    const chunk = scratchBuffer();
    for (;;) {
      const want = Math.min(SCAN_CHUNK, limit - total);
      if (want <= 0) break;
      const got = readSync(fd, chunk, 0, want, null);
      if (got === 0) break;
      const nul = chunk.subarray(0, got).indexOf(0);
      pieces.push(decoder.write(chunk.subarray(0, nul === -1 ? got : nul)));
      total += nul === -1 ? got : nul;
      if (nul !== -1) break;
    }
  } catch (error) {
    return { ok: false, reason: errorText(error), stage: "read" };
  } finally {
    closeSync(fd);
  }
  if (max <= 0 && total > READ_LIMIT) return { ok: false, reason: tooLarge(), stage: "read" };
  pieces.push(decoder.end());
  return { ok: true, text: pieces.join("") };
}

/** Where the first NUL byte of a regular file is, within its first `within` bytes; -1 if none (reads by position: the file offset stays). */
function firstNul(fd: number, within: number): number {
  const chunk = scratchBuffer();
  for (let at = 0; at < within; ) {
    const got = readSync(fd, chunk, 0, Math.min(SCAN_CHUNK, within - at), at);
    if (got === 0) return -1;
    const nul = chunk.subarray(0, got).indexOf(0);
    if (nul !== -1) return at + nul;
    at += got;
  }
  return -1;
}

function tooLarge(): string {
  return `larger than ${READ_LIMIT / MIB} MiB, the most tend reads into memory for a function`;
}

/**
 * Calls `onChunk` with a file's bytes, a chunk at a time, in bounded memory:
 * a regular file to its end, anything else up to READ_LIMIT (past it a
 * failure). `onChunk` returns true to stop early.
 */
export function scanFile(path: string, onChunk: (chunk: Buffer) => boolean | undefined): ReadResult {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    return { ok: false, reason: errorText(error), stage: "open" };
  }
  try {
    const regular = fstatSync(fd).isFile();
    const chunk = scratchBuffer();
    let total = 0;
    for (;;) {
      const got = readSync(fd, chunk, 0, SCAN_CHUNK, null);
      if (got === 0) break;
      total += got;
      if (!regular && total > READ_LIMIT) {
        return {
          ok: false,
          reason: `not a regular file, and no end within ${READ_LIMIT / MIB} MiB`,
          stage: "read",
        };
      }
      if (onChunk(chunk.subarray(0, got))) break;
    }
    return { ok: true, text: "" };
  } catch (error) {
    return { ok: false, reason: errorText(error), stage: "read" };
  } finally {
    closeSync(fd);
  }
}

/**
 * A file's digest in hex, streamed through `hash`; the untouched (all-zero)
 * digest of its length when the file cannot be read, as 3.21 gives it.
 */
export function fileDigest(path: string, hash: Hash): string {
  const read = scanFile(path, (chunk) => void hash.update(chunk));
  const digest = hash.digest("hex");
  return read.ok ? digest : "0".repeat(digest.length);
}

/**
 * The lines of a file, one at a time (without their newline), as
 * readFileResult's text would give them but in bounded memory: the text
 * ends at the first NUL, and a line longer than READ_LIMIT is a failure.
 * `onLine` returns true to stop early.
 */
export function scanLines(path: string, onLine: (line: string) => boolean | undefined): ReadResult {
  // The bytes after the last newline read so far (a line not yet ended).
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let stopped = false;
  let overlong = false;
  /** Sends the lines of `text` (whole lines, each ended by a newline but the last); true to stop. */
  const emitLines = (text: string, last: boolean): boolean => {
    const lines = text.split("\n");
    if (!last) lines.pop();
    for (const line of lines) if (onLine(line) === true) return true;
    return false;
  };
  const scanned = scanFile(path, (chunk) => {
    const nul = chunk.indexOf(0);
    const part = nul === -1 ? chunk : chunk.subarray(0, nul);
    const lastNewline = part.lastIndexOf(10);
    if (lastNewline !== -1) {
      // Up to a newline, the bytes decode whole: no character is cut.
      const head = Buffer.concat([...pending, part.subarray(0, lastNewline + 1)]);
      pending = [];
      pendingBytes = 0;
      if (emitLines(head.toString("utf8"), false)) {
        stopped = true;
        return true;
      }
    }
    const rest = part.subarray(lastNewline + 1);
    pendingBytes += rest.length;
    if (pendingBytes > READ_LIMIT) {
      overlong = true;
      return true;
    }
    if (rest.length > 0) pending.push(Buffer.from(rest));
    return nul !== -1;
  });
  if (!scanned.ok) return scanned;
  if (overlong) return { ok: false, reason: `a line ${tooLarge()}`, stage: "read" };
  if (!stopped && pendingBytes > 0) emitLines(Buffer.concat(pending).toString("utf8"), true);
  return { ok: true, text: "" };
}

/** `readFileResult`'s text, or undefined. */
export function readFileText(path: string, max = 0): string | undefined {
  const result = readFileResult(path, max);
  return result.ok ? result.text : undefined;
}

/** Whether the only line break of the text is its last character (3.21's `SingleLine`). */
function isSingleLine(text: string): boolean {
  const first = text.search(/[\n\r]/);
  return first !== -1 && first === text.length - 1;
}

/** The error `stat` fails with for a path. */
function statError(path: string): unknown {
  try {
    statSync(path);
    return undefined;
  } catch (error) {
    return error;
  }
}

/**
 * 3.21's `CfReadFile`, used by readfile, readstringlist and friends, the
 * array readers and peers: undefined (after logging why) when the file
 * cannot be examined or read; a one-line file loses its line break.
 */
export function cfReadFile(fc: FunctionContext, path: string, max = 0): string | undefined {
  // Policy often probes for files that are not there, and a thrown error is
  // costly to make: the error is asked for only where a message shows it.
  let examined: boolean;
  try {
    examined = statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    examined = false;
  }
  if (!examined) {
    if (fc.ctx.agentType === "common") {
      // cf-promises words it so, unresolved variables or not.
      emitFunctionMessage(fc.ctx, "error", fc.call.name, `Could not examine file '${path}'`);
    } else if (hasUnresolvedReference(path)) {
      const message = `Cannot converge/reduce variable '${path}' yet .. assuming it will resolve later`;
      emitFunctionMessage(fc.ctx, "verbose", fc.call.name, message);
    } else {
      const message = `CfReadFile: Could not examine file '${path}' (stat: ${errorText(statError(path))})`;
      emitFunctionMessage(fc.ctx, "error", fc.call.name, message);
    }
    return undefined;
  }
  const result = readFileResult(path, max);
  if (!result.ok) {
    const message = `CfReadFile: Error while reading file '${path}' (${result.reason})`;
    emitFunctionMessage(fc.ctx, "error", fc.call.name, message);
    return undefined;
  }
  const text = result.text;
  return isSingleLine(text) && text.endsWith("\n") ? text.slice(0, -1) : text;
}
