/**
 * Compliance counters and their percentages, as Rudder computes and rounds
 * them (rudder-core `ComplianceLevel`, `CompliancePercent`): fourteen
 * counters, percentages that never round a non-zero count down to zero and
 * always sum to 100.
 */
import { levelOf, type ReportType } from "./report-type.js";

/** The counters, in the order of Rudder's `ComplianceLevel` fields. */
export const COUNTERS = [
  "pending",
  "success",
  "repaired",
  "error",
  "unexpected",
  "missing",
  "noAnswer",
  "notApplicable",
  "reportsDisabled",
  "compliant",
  "auditNotApplicable",
  "nonCompliant",
  "auditError",
  "badPolicyMode",
] as const;

export type Counter = (typeof COUNTERS)[number];

/** How many values are in each state. */
export type ComplianceLevel = Readonly<Record<Counter, number>>;

/** Percentages per counter (12.34 means 12.34 %), plus the compliant share. */
export type CompliancePercent = Readonly<Record<Counter, number>> & { readonly compliance: number };

/** The report type each counter counts, in counter order (Rudder's `WORSE_ORDER` source). */
const COUNTER_TYPE: Readonly<Record<Counter, ReportType>> = {
  pending: "Pending",
  success: "EnforceSuccess",
  repaired: "EnforceRepaired",
  error: "EnforceError",
  unexpected: "Unexpected",
  missing: "Missing",
  noAnswer: "NoAnswer",
  notApplicable: "EnforceNotApplicable",
  reportsDisabled: "Disabled",
  compliant: "AuditCompliant",
  auditNotApplicable: "AuditNotApplicable",
  nonCompliant: "AuditNonCompliant",
  auditError: "AuditError",
  badPolicyMode: "BadPolicyMode",
};

const TYPE_COUNTER = new Map<ReportType, Counter>(
  COUNTERS.map((counter) => [COUNTER_TYPE[counter], counter]),
);

/** The worse-order level of each counter, by counter index. */
const WORSE_ORDER = COUNTERS.map((counter) => levelOf(COUNTER_TYPE[counter]));

const ZERO: ComplianceLevel = Object.freeze(
  Object.fromEntries(COUNTERS.map((c) => [c, 0])) as Record<Counter, number>,
);

/** A level with the given counters set, the others zero. */
export function complianceLevel(counts: Partial<Record<Counter, number>> = {}): ComplianceLevel {
  return { ...ZERO, ...counts };
}

/** A level from its fourteen counters given in field order (as Rudder's tests write them). */
export function levelFromArray(values: readonly number[]): ComplianceLevel {
  return complianceLevel(Object.fromEntries(COUNTERS.map((c, i) => [c, values[i] ?? 0])));
}

/** The counter a report type counts in. */
export function counterOf(type: ReportType): Counter {
  return TYPE_COUNTER.get(type) ?? "unexpected";
}

/** Counts report types; no report at all counts as one not-applicable, as Rudder does. */
export function computeLevel(types: Iterable<ReportType>): ComplianceLevel {
  const counts: Record<Counter, number> = { ...ZERO };
  let any = false;
  for (const type of types) {
    counts[counterOf(type)] += 1;
    any = true;
  }
  if (!any) counts.notApplicable = 1;
  return counts;
}

/** The sum of some levels (zero for none). */
export function sumLevels(levels: Iterable<ComplianceLevel>): ComplianceLevel {
  const counts: Record<Counter, number> = { ...ZERO };
  for (const level of levels) for (const c of COUNTERS) counts[c] += level[c];
  return counts;
}

/** Every counter added up. */
export function totalOf(level: ComplianceLevel): number {
  return COUNTERS.reduce((sum, c) => sum + level[c], 0);
}

/** The counters that count as compliant: success, repaired, n/a, compliant, audit n/a. */
export function totalOk(level: ComplianceLevel): number {
  return level.success + level.repaired + level.notApplicable + level.compliant + level.auditNotApplicable;
}

/** The level without pending and disabled reports (Rudder's `withoutPending`). */
export function withoutPending(level: ComplianceLevel): ComplianceLevel {
  return { ...level, pending: 0, reportsDisabled: 0 };
}

/** Whether two levels hold the same counts. */
export function sameLevel(a: ComplianceLevel, b: ComplianceLevel): boolean {
  return COUNTERS.every((c) => a[c] === b[c]);
}

/** The level as Rudder prints it: `[p:0 s:1 r:0 ...]`. */
export function formatLevel(l: ComplianceLevel): string {
  return `[p:${l.pending} s:${l.success} r:${l.repaired} e:${l.error} u:${l.unexpected} m:${l.missing} nr:${l.noAnswer} na:${l.notApplicable} rd:${l.reportsDisabled} c:${l.compliant} ana:${l.auditNotApplicable} nc:${l.nonCompliant} ae:${l.auditError} bpm:${l.badPolicyMode}]`;
}

/**
 * Counter indexes sorted as Rudder sorts them before rounding: the smallest
 * count first, ties by worse order (the worst last).
 */
export function sortLevels(level: ComplianceLevel, skipPending = false): Array<[number, number]> {
  const start = skipPending ? 1 : 0;
  const pairs: Array<[number, number]> = [];
  for (let i = start; i < COUNTERS.length; i++) pairs.push([level[COUNTERS[i] as Counter], i]);
  return pairs.sort((a, b) =>
    a[0] === b[0] ? (WORSE_ORDER[a[1]] as number) - (WORSE_ORDER[b[1]] as number) : a[0] - b[0],
  );
}

/**
 * Rounds counts to percentages with `precision` digits (0 to 5), keeping the
 * smallest non-zero share at least 10^-precision % and making the largest
 * one 100 minus the others, with Rudder's integer arithmetic.
 */
function roundShares(sorted: Array<[number, number]>, total: number, precision: number): number[] {
  const divisor = 10 ** precision;
  const hundred = 100 * divisor;
  let extra = 1.0;
  let sum = 0;
  const out = new Array<number>(COUNTERS.length).fill(0);
  for (const [count, index] of sorted.slice(0, -1)) {
    let pc = 0;
    if (count !== 0) {
      const raw = (count * hundred) / total / extra;
      if (raw < 1) {
        extra = extra + 0.01;
        pc = 1;
      } else pc = Math.trunc(raw);
    }
    sum += pc;
    out[index] = pc / divisor;
  }
  const last = sorted[sorted.length - 1] as [number, number];
  out[last[1]] = (hundred - sum) / divisor;
  return out;
}

/** The percentages of a level, as Rudder's `CompliancePercent.fromLevels` gives them. */
export function computePercent(level: ComplianceLevel, precision = 2): CompliancePercent {
  const total = totalOf(level);
  const shares =
    total === 0
      ? new Array<number>(COUNTERS.length).fill(0)
      : roundShares(sortLevels(level), total, precision);
  const pc = Object.fromEntries(COUNTERS.map((c, i) => [c, shares[i] as number])) as Record<Counter, number>;
  const compliance = pc.success + pc.repaired + pc.notApplicable + pc.compliant + pc.auditNotApplicable;
  return { ...pc, compliance };
}

/** The compliant share ignoring pending reports (Rudder's `complianceWithoutPending`). */
export function complianceWithoutPending(level: ComplianceLevel, precision = 2): number {
  const total = totalOf(level) - level.pending;
  if (total === 0) return 0;
  const s = roundShares(sortLevels(level, true), total, precision);
  const at = (c: Counter): number => s[COUNTERS.indexOf(c)] as number;
  return at("success") + at("repaired") + at("notApplicable") + at("compliant") + at("auditNotApplicable");
}

/** Rudder's API names of the counters (`ComplianceLevelSerialisation`), in its order. */
export const API_NAMES: ReadonlyArray<readonly [string, Counter]> = [
  ["applying", "pending"],
  ["successNotApplicable", "notApplicable"],
  ["successAlreadyOK", "success"],
  ["successRepaired", "repaired"],
  ["error", "error"],
  ["auditCompliant", "compliant"],
  ["auditNonCompliant", "nonCompliant"],
  ["auditError", "auditError"],
  ["auditNotApplicable", "auditNotApplicable"],
  ["unexpectedUnknownComponent", "unexpected"],
  ["unexpectedMissingComponent", "missing"],
  ["noReport", "noAnswer"],
  ["reportsDisabled", "reportsDisabled"],
  ["badPolicyMode", "badPolicyMode"],
];

/** A level as Rudder's API writes it: its names, zero counters left out. */
export function levelToApi(level: ComplianceLevel): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, counter] of API_NAMES) if (level[counter] > 0) out[name] = level[counter];
  return out;
}
