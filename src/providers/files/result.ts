/**
 * What the file operations return: the shared ProviderResult, plus the
 * system error behind a failure so a front end can word it its own way
 * (`(chmod: Operation not permitted)` for CFEngine, `Errno::EPERM` for
 * Puppet).
 */
import type { Change, ProviderResult } from "../change.js";
import { errorText } from "./errors.js";

export interface FileResult extends ProviderResult {
  /** The node:fs error of a failure (with `code`, `syscall`, `path`), when one caused it. */
  readonly cause?: NodeJS.ErrnoException;
}

/** Options every acting operation takes. */
export interface ActOptions {
  /** Change nothing: report what would change, each change with `applied: false`. */
  readonly noop?: boolean;
}

export const UNCHANGED: FileResult = { status: "unchanged", changes: [] };

/** The result of changes made (or, in noop, found to make). */
export function changedWith(changes: readonly Change[]): FileResult {
  return changes.length === 0 ? UNCHANGED : { status: "changed", changes };
}

/**
 * A failure: `error` (a node:fs error, or any Error) with the changes
 * already made before it. `what` says what was being done ("chmod").
 */
export function failedWith(error: unknown, what: string, changes: readonly Change[] = []): FileResult {
  const cause = error instanceof Error ? (error as NodeJS.ErrnoException) : undefined;
  return { status: "failed", changes, error: `${what}: ${errorText(error)}`, cause };
}

/** One change, applied unless `noop`. */
export function change(
  property: string,
  old: string | undefined,
  wanted: string | undefined,
  message: string,
  noop: boolean | undefined,
): Change {
  return { property, old, new: wanted, message, applied: !noop };
}

/** Two results one after the other: the changes of both, the worse status. */
export function combineResults(first: FileResult, second: FileResult): FileResult {
  const changes = [...first.changes, ...second.changes];
  if (first.status === "failed") return { ...first, changes };
  if (second.status === "failed") return { ...second, changes };
  return changedWith(changes);
}
