/**
 * The statements both drivers run, written once with `?` placeholders
 * (PostgreSQL's driver numbers them), and the mapping of their rows to the
 * store's types. Only the node upsert differs (SQLite's two-argument
 * `max` is PostgreSQL's `GREATEST`).
 */
import { countOutcomes, type NodeReport } from "../../reporting/report.js";
import {
  type DayRow,
  type IngestMeta,
  type NodeRow,
  OUTCOME_RANK_SQL,
  type ResultFilter,
  type RunRow,
  type StoreKind,
  type TokenRow,
} from "./store.js";

export function upsertNodeSql(kind: StoreKind): string {
  const greatest = kind === "sqlite" ? "max" : "GREATEST";
  return `INSERT INTO nodes (id, name, addresses, public_key, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (id) DO UPDATE SET name = excluded.name, addresses = excluded.addresses,
      public_key = excluded.public_key, last_seen = ${greatest}(nodes.last_seen, excluded.last_seen)`;
}

export function nodeParams(report: NodeReport, meta: IngestMeta): unknown[] {
  const seen = meta.receivedAt.toISOString();
  return [
    report.node.id,
    report.node.name,
    JSON.stringify(report.node.addresses),
    meta.publicKey,
    seen,
    seen,
  ];
}

export const INSERT_RUN_SQL = `INSERT INTO runs (run_id, node_id, front_end, started, ended, received, exit_code,
    outcome, kept, repaired, not_kept, total, policy, policy_release, address, digest)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (run_id) DO NOTHING`;

export function runParams(report: NodeReport, meta: IngestMeta): unknown[] {
  const counts = countOutcomes(report.run.promises);
  return [
    report.runId,
    report.node.id,
    report.frontEnd,
    isoTime(report.started),
    isoTime(report.ended),
    meta.receivedAt.toISOString(),
    report.run.exitCode,
    report.run.outcome,
    counts.kept,
    counts.repaired,
    counts.notKept,
    report.run.promises.length,
    report.run.policy,
    report.policyRelease,
    meta.address,
    meta.digest,
  ];
}

export const RUN_DIGEST_SQL = "SELECT digest FROM runs WHERE run_id = ?";

export const PRUNE_SQL = `DELETE FROM runs WHERE ended < ?
  AND ended < (SELECT max(r2.ended) FROM runs r2 WHERE r2.node_id = runs.node_id)`;

const RUN_COLUMNS = `r.run_id, r.node_id, r.front_end, r.started, r.ended, r.received, r.exit_code, r.outcome,
  r.kept, r.repaired, r.not_kept, r.total, r.policy, r.policy_release`;

const NODE_SELECT = `SELECT n.id, n.name, n.addresses, n.first_seen, n.last_seen, ${RUN_COLUMNS}
  FROM nodes n LEFT JOIN runs r
    ON r.id = (SELECT id FROM runs WHERE node_id = n.id ORDER BY ended DESC, id DESC LIMIT 1)`;

export const NODES_SQL = `${NODE_SELECT} ORDER BY n.name, n.id`;
export const NODE_SQL = `${NODE_SELECT} WHERE n.id = ?`;
export const RUNS_SQL = `SELECT ${RUN_COLUMNS} FROM runs r WHERE r.node_id = ? ORDER BY r.ended DESC, r.id DESC LIMIT ?`;
export const RUN_SQL = `SELECT ${RUN_COLUMNS} FROM runs r WHERE r.run_id = ?`;
export const LINES_SQL =
  "SELECT line FROM report_lines WHERE run = (SELECT id FROM runs WHERE run_id = ?) ORDER BY seq";
export const COUNTS_SQL = `SELECT (SELECT count(*) FROM nodes) AS nodes, (SELECT count(*) FROM runs) AS runs,
  (SELECT count(*) FROM results) AS results, (SELECT count(*) FROM report_lines) AS lines`;
export const RUN_IDS_SQL = "SELECT run_id FROM runs ORDER BY run_id";
export const ADD_TOKEN_SQL = "INSERT INTO tokens (id, name, hash, created) VALUES (?, ?, ?, ?)";
export const TOKENS_SQL = "SELECT id, name, created, revoked FROM tokens ORDER BY created, id";
export const REVOKE_TOKEN_SQL = "UPDATE tokens SET revoked = ? WHERE id = ? AND revoked IS NULL";
export const TOKEN_VALID_SQL = "SELECT 1 AS ok FROM tokens WHERE hash = ? AND revoked IS NULL";

/** The results query for `filter`, with its parameters after the run id. */
export function resultsQuery(runId: string, filter: ResultFilter = {}): { sql: string; params: unknown[] } {
  const params: unknown[] = [runId];
  let where = "run = (SELECT id FROM runs WHERE run_id = ?)";
  if (filter.outcomes && filter.outcomes.length > 0) {
    where += ` AND outcome IN (${filter.outcomes.map(() => "?").join(", ")})`;
    params.push(...filter.outcomes);
  }
  params.push(Math.max(0, Math.min(filter.limit ?? 10000, 100000)), Math.max(0, filter.offset ?? 0));
  return {
    sql: `SELECT seq, type, promiser, handle, bundle, file, line, outcome, message FROM results
      WHERE ${where} ORDER BY ${OUTCOME_RANK_SQL}, seq LIMIT ? OFFSET ?`,
    params,
  };
}

/** A time as the store keeps it: ISO 8601 in UTC, to the millisecond. */
export function isoTime(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  return new Date(String(value)).toISOString();
}

type Row = Record<string, unknown>;

export function runRow(row: Row): RunRow {
  return {
    runId: String(row.run_id),
    nodeId: String(row.node_id),
    frontEnd: String(row.front_end),
    started: isoTime(row.started),
    ended: isoTime(row.ended),
    received: isoTime(row.received),
    exitCode: Number(row.exit_code),
    outcome: String(row.outcome),
    kept: Number(row.kept),
    repaired: Number(row.repaired),
    notKept: Number(row.not_kept),
    total: Number(row.total),
    policy: String(row.policy),
    policyRelease: row.policy_release === null ? null : String(row.policy_release),
  };
}

export function nodeRow(row: Row): NodeRow {
  return {
    id: String(row.id),
    name: String(row.name),
    addresses: JSON.parse(String(row.addresses)) as string[],
    firstSeen: isoTime(row.first_seen),
    lastSeen: isoTime(row.last_seen),
    ...(row.run_id === null || row.run_id === undefined ? {} : { lastRun: runRow(row) }),
  };
}

export function tokenRow(row: Row): TokenRow {
  return {
    id: String(row.id),
    name: String(row.name),
    created: isoTime(row.created),
    revoked: row.revoked === null ? null : isoTime(row.revoked),
  };
}

export function countsRow(row: Row): { nodes: number; runs: number; results: number; lines: number } {
  return {
    nodes: Number(row.nodes),
    runs: Number(row.runs),
    results: Number(row.results),
    lines: Number(row.lines),
  };
}

/** Runs per UTC day since `?` (and of node `?` when `byNode`). */
export function historySql(kind: StoreKind, byNode: boolean): string {
  const day = kind === "sqlite" ? "substr(ended, 1, 10)" : "to_char(ended AT TIME ZONE 'UTC', 'YYYY-MM-DD')";
  return `SELECT ${day} AS day, count(*) AS runs, sum(kept) AS kept, sum(repaired) AS repaired,
    sum(not_kept) AS not_kept FROM runs WHERE ended >= ?${byNode ? " AND node_id = ?" : ""}
    GROUP BY 1 ORDER BY 1`;
}

export function dayRow(row: Row): DayRow {
  return {
    day: String(row.day),
    runs: Number(row.runs),
    kept: Number(row.kept),
    repaired: Number(row.repaired),
    notKept: Number(row.not_kept),
  };
}
