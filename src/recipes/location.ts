/**
 * Where recipe code is: the first frame of the stack outside tend's own
 * modules and Node's, read from a V8 stack trace. It gives each
 * declaration its file and line, and each file-system read made while
 * compiling the place that made it. The position is that of the code as
 * Node runs it: a recipe loaded with a source map (the loader's job) maps
 * back to its TypeScript.
 */
import { fileURLToPath } from "node:url";

export interface SourceLocation {
  readonly file: string;
  readonly line: number;
  readonly column?: number;
}

/** The package's directories of running code: frames there are tend's, not the recipe's. */
const INTERNAL = internalPrefixes();

function internalPrefixes(): readonly string[] {
  let here: string;
  try {
    here = fileURLToPath(import.meta.url);
  } catch {
    return [];
  }
  const at = here.lastIndexOf("/dist/");
  if (at < 0) return [];
  const root = here.slice(0, at);
  return [`${root}/dist/src/`, `${root}/dist/bundle/`, `${root}/src/`, `${root}/node_modules/`];
}

/** A file:line:col at the end of a stack frame (`at f (file:///x.ts:3:7)`, `at /x.js:3:7`). */
const FRAME = /\(?((?:file:\/\/)?\/[^()]*?|[A-Za-z]:[^()]*?):(\d+):(\d+)\)?$/;

function locationOf(frame: string): SourceLocation | undefined {
  const match = FRAME.exec(frame.trim());
  if (!match) return undefined;
  const raw = match[1] as string;
  let file = raw;
  if (raw.startsWith("file://")) {
    try {
      file = fileURLToPath(raw);
    } catch {
      return undefined;
    }
  }
  return { file, line: Number(match[2]), column: Number(match[3]) };
}

function internal(file: string): boolean {
  return file.startsWith("node:") || INTERNAL.some((prefix) => file.startsWith(prefix));
}

/**
 * The innermost frame of user code on the stack, or undefined when there is
 * none. `isUser` narrows which files count (the cookbooks' files, say).
 */
export function callerLocation(
  isUser?: (file: string) => boolean,
  /**
   * Only the direct caller counts: frames of this file (and Node's) are
   * passed over, and the next frame must be user code, else undefined.
   */
  directAfter?: string,
): SourceLocation | undefined {
  const holder: { stack?: string } = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 24;
  Error.captureStackTrace(holder, callerLocation);
  Error.stackTraceLimit = limit;
  const lines = (holder.stack ?? "").split("\n");
  for (let i = 1; i < lines.length; i++) {
    const frame = lines[i] as string;
    if (frame.includes("node:")) continue;
    const location = locationOf(frame);
    if (!location) continue;
    if (directAfter !== undefined) {
      if (location.file === directAfter) continue;
      if (internal(location.file) || (isUser && !isUser(location.file))) return undefined;
      return location;
    }
    if (internal(location.file)) continue;
    if (isUser && !isUser(location.file)) continue;
    return location;
  }
  return undefined;
}

/** `file:line` for messages. */
export function formatLocation(location: SourceLocation | undefined): string {
  return location ? `${location.file}:${location.line}` : "(unknown location)";
}
