/**
 * Promise outcomes as cf-agent counts them. `skipped` means the promise did
 * not apply (guard false, unresolved, already done); the others are the
 * results a promise type reports.
 */
export type Outcome =
  | "skipped"
  | "kept"
  | "repaired"
  | "warn"
  | "failed"
  | "denied"
  | "timeout"
  | "interrupted";

/**
 * Promise types whose outcomes 3.21 neither counts in its compliance
 * totals nor writes to an action body's log files.
 */
export const UNACCOUNTED_TYPES: ReadonlySet<string> = new Set([
  "vars",
  "classes",
  "insert_lines",
  "delete_lines",
  "replace_patterns",
  "field_edits",
]);

const FINAL: ReadonlySet<Outcome> = new Set(["failed", "denied", "timeout", "interrupted"]);

/**
 * Combines the outcome so far with a new one, as 3.21 does: a failure
 * sticks, a warning yields only to failures, repaired beats kept, and
 * anything beats skipped.
 */
export function combineOutcomes(prior: Outcome, next: Outcome): Outcome {
  if (FINAL.has(prior)) return prior;
  if (prior === "warn") return FINAL.has(next) || next === "warn" ? next : prior;
  if (prior === "skipped") return next;
  if (prior === "kept") return next === "skipped" ? prior : next;
  // repaired
  return next === "skipped" || next === "kept" ? prior : next;
}

/** Whether an outcome counts as not kept. */
export function isNotKept(outcome: Outcome): boolean {
  return outcome === "warn" || FINAL.has(outcome);
}
