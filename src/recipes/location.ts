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

/** Whether a file is tend's or Node's, cached: a run asks for the same few files thousands of times. */
const internalFiles = new Map<string, boolean>();

function internal(file: string): boolean {
  let known = internalFiles.get(file);
  if (known === undefined) {
    known = file.startsWith("node:") || INTERNAL.some((prefix) => file.startsWith(prefix));
    if (internalFiles.size < 10_000) internalFiles.set(file, known);
  }
  return known;
}

function plainPath(file: string): string | undefined {
  if (!file.startsWith("file://")) return file;
  try {
    return fileURLToPath(file);
  } catch {
    return undefined;
  }
}

/** The stack's call sites (V8's structured stack: no text formatted, no source map applied). */
function callSites(below: (...args: never[]) => unknown): readonly NodeJS.CallSite[] {
  const prepare = Error.prepareStackTrace;
  const limit = Error.stackTraceLimit;
  Error.prepareStackTrace = (_error, sites) => sites;
  // The recipe is a few frames up; a short trace is much cheaper to capture.
  Error.stackTraceLimit = 12;
  const holder: { stack?: unknown } = {};
  Error.captureStackTrace(holder, below);
  const sites = holder.stack;
  Error.prepareStackTrace = prepare;
  Error.stackTraceLimit = limit;
  return Array.isArray(sites) ? (sites as NodeJS.CallSite[]) : [];
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
  for (const site of callSites(callerLocation)) {
    const name = site.getFileName();
    if (!name || name.startsWith("node:")) continue;
    const file = plainPath(name);
    if (file === undefined) continue;
    if (directAfter !== undefined) {
      if (file === directAfter) continue;
      if (internal(file) || (isUser && !isUser(file))) return undefined;
      return { file, line: site.getLineNumber() ?? 1, column: site.getColumnNumber() ?? 1 };
    }
    if (internal(file) || (isUser && !isUser(file))) continue;
    return { file, line: site.getLineNumber() ?? 1, column: site.getColumnNumber() ?? 1 };
  }
  return undefined;
}

/** `file:line` for messages. */
export function formatLocation(location: SourceLocation | undefined): string {
  return location ? `${location.file}:${location.line}` : "(unknown location)";
}
