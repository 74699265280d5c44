/**
 * Counting results per directory and rendering them: text for people, JSON
 * for tools, and a comparison against a recorded baseline. Pure.
 */
import type { Outcome } from "./classify.js";

/** The fields of a test result the report needs. */
export interface ResultRow {
  readonly test: { readonly path: string; readonly group: string; readonly type: string };
  readonly outcome: Outcome;
  readonly message: string;
  readonly reason?: string;
  readonly passes: number;
  readonly seconds: number;
  readonly log: string;
}

/** The counts of one directory (or of the whole run), testall's categories. */
export interface Counts {
  passed: number;
  /** FAIL and XFAIL: suppressed failures still count as failed. */
  failed: number;
  skipped: number;
  softFailed: number;
  flakey: number;
  total: number;
}

/** One directory's counts and the tests that passed there, sorted. */
export interface GroupSummary extends Counts {
  passing: string[];
}

function emptyCounts(): Counts {
  return { passed: 0, failed: 0, skipped: 0, softFailed: 0, flakey: 0, total: 0 };
}

const COUNTED_AS: Record<Outcome, keyof Counts> = {
  Pass: "passed",
  FAIL: "failed",
  XFAIL: "failed",
  SFAIL: "softFailed",
  FLAKEY: "flakey",
  Skip: "skipped",
  Wait: "failed",
};

/** Adds `outcome` to `counts`. */
export function countOutcome(counts: Counts, outcome: Outcome): void {
  counts[COUNTED_AS[outcome]]++;
  counts.total++;
}

/** Per-directory summaries, in order of first appearance, and the totals. */
export function summarize(results: readonly ResultRow[]): {
  groups: Record<string, GroupSummary>;
  totals: Counts;
} {
  const groups: Record<string, GroupSummary> = {};
  const totals = emptyCounts();
  for (const result of results) {
    groups[result.test.group] ??= { ...emptyCounts(), passing: [] };
    const group = groups[result.test.group]!;
    countOutcome(group, result.outcome);
    countOutcome(totals, result.outcome);
    if (result.outcome === "Pass") group.passing.push(result.test.path.replace(/^\.\//, ""));
  }
  for (const group of Object.values(groups)) group.passing.sort();
  return { groups, totals };
}

/** `N passed, N failed, N skipped`, then soft and flakey failures when there are any. */
export function formatCounts(counts: Counts): string {
  let text = `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`;
  if (counts.softFailed > 0) text += `, ${counts.softFailed} soft-failed`;
  if (counts.flakey > 0) text += `, ${counts.flakey} flakey`;
  return text;
}

/** One line for a test that did not pass: `FAIL ./dir/t.cf: FAIL (…): last output lines`. */
export function formatFailure(result: ResultRow): string {
  const reason = result.reason === undefined ? "" : `: ${result.reason}`;
  return `${result.outcome} ${result.test.path}: ${result.message}${reason}`;
}

/** A table row per directory, names padded to one width. */
export function formatGroups(groups: Record<string, GroupSummary>): string[] {
  const width = Math.max(0, ...Object.keys(groups).map((name) => name.length));
  return Object.entries(groups).map(([name, counts]) => `${name.padEnd(width)}  ${formatCounts(counts)}`);
}

/** A baseline: per directory, the tests a reference agent passes. */
export interface Baseline {
  readonly agent?: string;
  readonly directories: Record<string, { readonly passed: number; readonly passing: readonly string[] }>;
}

/** Per directory present in both: tests the baseline passes that this run does not, and the reverse. */
export function compareWithBaseline(
  groups: Record<string, GroupSummary>,
  baseline: Baseline,
): { group: string; lost: string[]; gained: string[] }[] {
  const rows: { group: string; lost: string[]; gained: string[] }[] = [];
  for (const [group, summary] of Object.entries(groups)) {
    const reference = baseline.directories[group];
    if (reference === undefined) continue;
    const now = new Set(summary.passing);
    const before = new Set(reference.passing);
    rows.push({
      group,
      lost: reference.passing.filter((test) => !now.has(test)),
      gained: summary.passing.filter((test) => !before.has(test)),
    });
  }
  return rows;
}
