/**
 * The statements both drivers run, written once with `?` placeholders
 * (PostgreSQL's driver numbers them), and the mapping of their rows to the
 * store's types. Only the node upsert differs (SQLite's two-argument
 * `max` is PostgreSQL's `GREATEST`).
 */
import { countOutcomes, type NodeReport } from "../../reporting/report.js";
import {
  type DayRow,
  type FleetNode,
  type FleetQuery,
  type FleetStatus,
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

/** Keeps each node's latest run (nodes.last_run): it never ends before a node's other runs. */
export const PRUNE_SQL = `DELETE FROM runs WHERE ended < ?
  AND id NOT IN (SELECT last_run FROM nodes WHERE last_run IS NOT NULL)`;

/**
 * Makes run `?` its node's latest when it ended after the latest stored
 * (ties: the higher key, as the old per-query lookup ordered them).
 * Parameters: latestParams().
 */
export const UPDATE_LATEST_SQL = `UPDATE nodes SET last_run = ?, last_ended = ?, last_status = ?
  WHERE id = ? AND (last_run IS NULL OR last_ended < ? OR (last_ended = ? AND last_run < ?))`;

export function latestParams(report: NodeReport, run: unknown): unknown[] {
  const counts = countOutcomes(report.run.promises);
  const status = counts.notKept > 0 ? "failed" : counts.repaired > 0 ? "repaired" : "kept";
  const ended = isoTime(report.ended);
  return [run, ended, status, report.node.id, ended, ended, run];
}

/** Adds one run to its UTC day's totals. Parameters: dayParams(). */
export const ADD_DAY_SQL = `INSERT INTO run_days (day, runs, kept, repaired, not_kept) VALUES (?, 1, ?, ?, ?)
  ON CONFLICT (day) DO UPDATE SET runs = run_days.runs + 1, kept = run_days.kept + excluded.kept,
    repaired = run_days.repaired + excluded.repaired, not_kept = run_days.not_kept + excluded.not_kept`;

export function dayParams(report: NodeReport): unknown[] {
  const counts = countOutcomes(report.run.promises);
  return [isoTime(report.ended).slice(0, 10), counts.kept, counts.repaired, counts.notKept];
}

const RUN_COLUMNS = `r.run_id, r.node_id, r.front_end, r.started, r.ended, r.received, r.exit_code, r.outcome,
  r.kept, r.repaired, r.not_kept, r.total, r.policy, r.policy_release`;

const NODE_SELECT = `SELECT n.id, n.name, n.addresses, n.first_seen, n.last_seen, ${RUN_COLUMNS}
  FROM nodes n LEFT JOIN runs r ON r.id = n.last_run`;

/** Every node with its latest run, by name (byte order on both databases). */
export function nodesSql(kind: StoreKind): string {
  return `${NODE_SELECT} ORDER BY n.name${kind === "postgres" ? ' COLLATE "C"' : ""}, n.id`;
}
export const NODE_SQL = `${NODE_SELECT} WHERE n.id = ?`;
export const RUNS_SQL = `SELECT ${RUN_COLUMNS} FROM runs r WHERE r.node_id = ? ORDER BY r.ended DESC, r.id DESC LIMIT ?`;
export const RUN_SQL = `SELECT ${RUN_COLUMNS} FROM runs r WHERE r.run_id = ?`;
export const LINES_SQL =
  "SELECT line FROM report_lines WHERE run = (SELECT id FROM runs WHERE run_id = ?) ORDER BY seq";
export const COUNTS_SQL = `SELECT (SELECT count(*) FROM nodes) AS nodes, (SELECT count(*) FROM runs) AS runs,
  (SELECT count(*) FROM results) AS results, (SELECT count(*) FROM report_lines) AS lines`;
export const RUN_IDS_SQL = "SELECT run_id FROM runs ORDER BY run_id";
export const RUN_TOTALS_SQL = `SELECT r.run_id, r.total, (SELECT count(*) FROM results s WHERE s.run = r.id) AS results
  FROM runs r ORDER BY r.run_id`;

export function runTotalRow(row: Row): { runId: string; total: number; results: number } {
  return { runId: String(row.run_id), total: Number(row.total), results: Number(row.results) };
}
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

/** The whole fleet's runs per UTC day from day `?` (YYYY-MM-DD) on: the daily totals kept by ingest. */
export const FLEET_HISTORY_SQL =
  "SELECT day, runs, kept, repaired, not_kept FROM run_days WHERE day >= ? ORDER BY day";

/** Node `?`'s runs per UTC day from time `?` on (its runs, through the (node, ended) index). */
export function nodeHistorySql(kind: StoreKind): string {
  const day = kind === "sqlite" ? "substr(ended, 1, 10)" : "to_char(ended AT TIME ZONE 'UTC', 'YYYY-MM-DD')";
  return `SELECT ${day} AS day, count(*) AS runs, sum(kept) AS kept, sum(repaired) AS repaired,
    sum(not_kept) AS not_kept FROM runs WHERE node_id = ? AND ended >= ? GROUP BY 1 ORDER BY 1`;
}

/** The start of `since`'s UTC day: history counts whole days. */
export function dayStart(since: Date): { day: string; time: string } {
  const day = since.toISOString().slice(0, 10);
  return { day, time: `${day}T00:00:00.000Z` };
}

/** A node's status as the fleet sees it; `?` is the stale cutoff (not seen since). */
const STATUS_SQL = `CASE WHEN n.last_status = 'failed' THEN 'failed' WHEN n.last_seen < ? THEN 'stale'
  ELSE COALESCE(n.last_status, 'no-run') END`;
const RANK_SQL =
  "CASE status WHEN 'failed' THEN 0 WHEN 'stale' THEN 1 WHEN 'repaired' THEN 2 WHEN 'no-run' THEN 3 ELSE 4 END";

/** `text` as a LIKE pattern matching it anywhere, with LIKE's own characters escaped (by `\`). */
function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The fleet page's statements: nodes counted by status, the nodes
 * matching the filters counted (none without a filter), and one page of
 * them with their latest runs, failures first, then by name. Statuses are
 * computed in SQL from the columns ingest keeps (schema.ts), so a page of
 * 10,000 nodes reads one page of rows and no runs beyond its own.
 */
export function fleetQueries(
  kind: StoreKind,
  query: FleetQuery,
): { counts: Statement; matching?: Statement; page: Statement } {
  const stale = isoTime(query.staleBefore);
  const where: string[] = [];
  const params: unknown[] = [stale];
  if (query.status !== undefined) {
    where.push("status = ?");
    params.push(query.status);
  }
  if (query.text !== undefined && query.text !== "") {
    where.push("(lower(name) LIKE ? ESCAPE '\\' OR lower(id) LIKE ? ESCAPE '\\')");
    params.push(containsPattern(query.text), containsPattern(query.text));
  }
  const filter = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
  const collate = kind === "postgres" ? ' COLLATE "C"' : "";
  const inner = `SELECT n.id, n.name, n.addresses, n.first_seen, n.last_seen, n.last_run, ${STATUS_SQL} AS status FROM nodes n`;
  const limit = Math.max(0, Math.floor(query.limit));
  const offset = Math.max(0, Math.floor(query.offset));
  return {
    counts: { sql: `SELECT status, count(*) AS n FROM (${inner}) s GROUP BY status`, params: [stale] },
    ...(where.length > 0
      ? { matching: { sql: `SELECT count(*) AS n FROM (${inner}) s ${filter}`, params } }
      : {}),
    page: {
      sql: `SELECT p.id, p.name, p.addresses, p.first_seen, p.last_seen, p.status, ${RUN_COLUMNS}
        FROM (SELECT s.*, ${RANK_SQL} AS rank FROM (${inner}) s ${filter}
          ORDER BY rank, s.name${collate}, s.id LIMIT ? OFFSET ?) p
        LEFT JOIN runs r ON r.id = p.last_run ORDER BY p.rank, p.name${collate}, p.id`,
      params: [...params, limit, offset],
    },
  };
}

export interface Statement {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/** The counts per status, every status present. */
export function statusCounts(rows: readonly Row[]): Record<FleetStatus, number> {
  const counts: Record<FleetStatus, number> = { failed: 0, stale: 0, repaired: 0, "no-run": 0, kept: 0 };
  for (const row of rows) {
    const status = String(row.status) as FleetStatus;
    if (status in counts) counts[status] = Number(row.n);
  }
  return counts;
}

export function fleetRow(row: Row): FleetNode {
  return { node: nodeRow(row), status: String(row.status) as FleetStatus };
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

export const INSERT_RUN_COMPLIANCE_SQL =
  "INSERT INTO run_compliance (run, rudder_node, compliance, detail) VALUES (?, ?, ?, ?)";
export const INSERT_RULE_COMPLIANCE_SQL =
  "INSERT INTO rule_compliance (run, rule_id, details) VALUES (?, ?, ?)";
export const RUN_COMPLIANCE_SQL =
  "SELECT detail FROM run_compliance WHERE run = (SELECT id FROM runs WHERE run_id = ?)";
export const LATEST_RULE_COMPLIANCE_SQL = `SELECT rc.rule_id, rc.details FROM nodes n
  JOIN rule_compliance rc ON rc.run = n.last_run ORDER BY rc.rule_id, n.id`;
