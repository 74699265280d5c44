/**
 * Reading files for functions as 3.21 does: `readFileResult` reads bytes
 * (bounded, cut at the first NUL) and `cfReadFile` adds what 3.21's
 * `CfReadFile` does around it — the stat first, its error messages, and the
 * trailing newline of a one-line file dropped.
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { hasUnresolvedReference } from "../expand.js";
import { emitFunctionMessage } from "./messages.js";
import type { FunctionContext } from "./types.js";

const READ_CHUNK = 64 * 1024;

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
 * Reads a file's bytes: up to `max` bytes (0: all), cut at the first NUL.
 * Reads in chunks, so a bounded read of an endless device (`/dev/zero`)
 * stops at the limit.
 */
export function readFileResult(path: string, max = 0): ReadResult {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    return { ok: false, reason: errorText(error), stage: "open" };
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for (;;) {
      const want = max > 0 ? Math.min(READ_CHUNK, max - total) : READ_CHUNK;
      if (want <= 0) break;
      const chunk = Buffer.alloc(want);
      const got = readSync(fd, chunk, 0, want, null);
      if (got === 0) break;
      chunks.push(chunk.subarray(0, got));
      total += got;
    }
  } catch (error) {
    return { ok: false, reason: errorText(error), stage: "read" };
  } finally {
    closeSync(fd);
  }
  const bytes = Buffer.concat(chunks);
  const nul = bytes.indexOf(0);
  return { ok: true, text: (nul === -1 ? bytes : bytes.subarray(0, nul)).toString("utf8") };
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

/**
 * 3.21's `CfReadFile`, used by readfile, readstringlist and friends, the
 * array readers and peers: undefined (after logging why) when the file
 * cannot be examined or read; a one-line file loses its line break.
 */
export function cfReadFile(fc: FunctionContext, path: string, max = 0): string | undefined {
  try {
    statSync(path);
  } catch (error) {
    if (fc.ctx.agentType === "common") {
      // cf-promises words it so, unresolved variables or not.
      emitFunctionMessage(fc.ctx, "error", fc.call.name, `Could not examine file '${path}'`);
    } else if (hasUnresolvedReference(path)) {
      const message = `Cannot converge/reduce variable '${path}' yet .. assuming it will resolve later`;
      emitFunctionMessage(fc.ctx, "verbose", fc.call.name, message);
    } else {
      const message = `CfReadFile: Could not examine file '${path}' (stat: ${errorText(error)})`;
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
