/**
 * The hub's store: one small interface over two drivers with the same
 * schema (schema.ts), SQLite (the embedded default, sqlite.ts) and
 * PostgreSQL (postgres.ts). Every method is asynchronous because the
 * PostgreSQL driver is; SQLite's answers are ready at once.
 *
 * Ingesting is idempotent: one transaction per report, the run id unique.
 * A report whose run id is stored already is a "duplicate" when its digest
 * (the SHA-256 of the bytes the node sent) is the same — a retry after a
 * lost answer — and a "conflict" (a replay under a used run id, refused)
 * when it differs. Either way nothing is written.
 */
import type { NodeReport, OutcomeCounts } from "../../reporting/report.js";

export type StoreKind = "sqlite" | "postgres";

export interface IngestMeta {
  /** SHA-256 (hex) of the report's bytes. */
  readonly digest: string;
  /** The sender's public key (PEM). */
  readonly publicKey: string;
  /** The address the report came from. */
  readonly address: string;
  readonly receivedAt: Date;
  /** The run's Rudder compliance, computed by the hub (compliance.ts), stored with it. */
  readonly compliance?: IngestCompliance;
}

/** A run's Rudder compliance as stored: the whole result as JSON, and each rule's counters. */
export interface IngestCompliance {
  /** The Rudder node id the run's reports are of. */
  readonly rudderNode: string;
  /** The node's compliant percentage. */
  readonly compliance: number;
  /** The whole result (RunComplianceJson) as JSON. */
  readonly json: string;
  /** Each rule's counters as JSON, Rudder's API names. */
  readonly rules: readonly { readonly ruleId: string; readonly details: string }[];
}

export type IngestResult = "stored" | "duplicate" | "conflict";

export interface NodeRow {
  readonly id: string;
  readonly name: string;
  readonly addresses: readonly string[];
  readonly firstSeen: string;
  readonly lastSeen: string;
  /** The latest run (by end time), if any is stored. */
  readonly lastRun?: RunRow;
}

export interface RunRow extends OutcomeCounts {
  readonly runId: string;
  readonly nodeId: string;
  readonly frontEnd: string;
  readonly started: string;
  readonly ended: string;
  readonly received: string;
  readonly exitCode: number;
  readonly outcome: string;
  readonly total: number;
  readonly policy: string;
  readonly policyRelease: string | null;
}

export interface ResultRow {
  readonly seq: number;
  readonly type: string;
  readonly promiser: string;
  readonly handle: string;
  readonly bundle: string;
  readonly file: string;
  readonly line: number;
  readonly outcome: string;
  readonly message: string;
}

export interface ResultFilter {
  /** Only these outcomes. */
  readonly outcomes?: readonly string[];
  readonly limit?: number;
  readonly offset?: number;
}

/** Runs and their outcome counts per UTC day (the web page's plots). */
export interface DayRow {
  /** YYYY-MM-DD (UTC). */
  readonly day: string;
  readonly runs: number;
  readonly kept: number;
  readonly repaired: number;
  readonly notKept: number;
}

/** A node's status on the fleet page: its latest run's, unless it stopped reporting (stale). */
export type FleetStatus = "failed" | "stale" | "repaired" | "no-run" | "kept";

export interface FleetQuery {
  /** A node last seen before this is stale (unless its last run failed). */
  readonly staleBefore: Date;
  /** Only nodes with this status. */
  readonly status?: FleetStatus;
  /** Only nodes whose name or id contains this (case-insensitive). */
  readonly text?: string;
  readonly limit: number;
  readonly offset: number;
}

export interface FleetNode {
  readonly node: NodeRow;
  readonly status: FleetStatus;
}

export interface FleetPage {
  /** Every node counted by status (not filtered). */
  readonly counts: Readonly<Record<FleetStatus, number>>;
  /** How many nodes there are, and how many match the filters. */
  readonly total: number;
  readonly matching: number;
  /** The page asked for: failures first, then stale, repaired, no run, kept; by name within each. */
  readonly nodes: readonly FleetNode[];
}

export interface TokenRow {
  readonly id: string;
  readonly name: string;
  readonly created: string;
  readonly revoked: string | null;
}

export interface HubStore {
  readonly kind: StoreKind;
  /** Stores one report in one transaction (see the file comment). */
  ingest(report: NodeReport, meta: IngestMeta): Promise<IngestResult>;
  /** Deletes runs that ended before `cutoff`, except each node's latest; returns how many. */
  prune(cutoff: Date): Promise<number>;
  nodes(): Promise<NodeRow[]>;
  node(id: string): Promise<NodeRow | undefined>;
  /** One page of the fleet, with its counts (the fleet page and its API). */
  fleet(query: FleetQuery): Promise<FleetPage>;
  /** A node's runs, latest first. */
  runs(nodeId: string, limit: number): Promise<RunRow[]>;
  run(runId: string): Promise<RunRow | undefined>;
  /** A run's promise results: failures first, then repairs, then the rest, each in run order. */
  results(runId: string, filter?: ResultFilter): Promise<ResultRow[]>;
  /**
   * Runs summed per UTC day of their end, from `since`'s day on, oldest
   * first; of one node when `nodeId` is given. The fleet's come from daily
   * totals that outlive retention; a node's from its stored runs.
   */
  history(since: Date, nodeId?: string): Promise<DayRow[]>;
  /** A run's stored Rudder compliance (the JSON IngestCompliance.json held), if it has one. */
  runCompliance(runId: string): Promise<string | undefined>;
  /** Every rule's counters (JSON) in each node's latest run that has Rudder compliance. */
  latestRuleCompliance(): Promise<{ ruleId: string; details: string }[]>;
  /** A run's raw report lines, in order. */
  lines(runId: string): Promise<string[]>;
  /** How many runs and results are stored (health, tests). */
  counts(): Promise<{ nodes: number; runs: number; results: number; lines: number }>;
  /** Every stored run id (tests, checks). */
  runIds(): Promise<string[]>;
  /** Every stored run with its promise count and how many results are stored for it (checks). */
  runTotals(): Promise<{ runId: string; total: number; results: number }[]>;
  addToken(id: string, name: string, hash: string, created: Date): Promise<void>;
  tokens(): Promise<TokenRow[]>;
  /** Marks a token revoked; false when there is no such live token. */
  revokeToken(id: string, when: Date): Promise<boolean>;
  /** Whether a live (unrevoked) token has this hash. */
  tokenValid(hash: string): Promise<boolean>;
  close(): Promise<void>;
}

/** The order results are listed in: what needs attention first. */
export const OUTCOME_RANK_SQL =
  "CASE outcome WHEN 'failed' THEN 0 WHEN 'denied' THEN 0 WHEN 'timeout' THEN 0 WHEN 'interrupted' THEN 0 WHEN 'warn' THEN 1 WHEN 'repaired' THEN 2 ELSE 3 END";

/** The message stored for a promise: its own, or why tend could not keep it. */
export function resultMessage(promise: { message?: string; unsupported?: string }): string {
  return promise.message ?? promise.unsupported ?? "";
}
