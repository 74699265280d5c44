/**
 * The hub's schema, one list of migrations for both databases. Each
 * migration is a list of statements written once, with the few words that
 * differ between SQLite and PostgreSQL (`$id`, `$time`, `$bigint`) filled
 * in per dialect. `hub_migrations` records which versions are applied;
 * a driver applies the missing ones in order, each in a transaction.
 *
 * Times are ISO 8601 text in SQLite and `timestamptz` in PostgreSQL; both
 * sort by time. Results and raw lines hang off a run's integer key and go
 * with it (ON DELETE CASCADE).
 *
 * Migration 2 is for reading a large fleet fast, both kept by ingest in the
 * report's own transaction (so a killed hub leaves them consistent):
 * - each node's latest run (`last_run`, by end time then key), its end
 *   time and its status (failed, repaired or kept), so the fleet page
 *   neither looks for the latest run per node nor joins runs to count;
 * - `run_days`: runs and outcome counts per UTC day of their end, so the
 *   fleet's plot reads 30 rows instead of every run of 30 days. These
 *   counts outlive retention: pruning details leaves the daily totals.
 *
 * Migration 3 keeps a run's Rudder compliance, computed by the hub at
 * ingest (../compliance.ts): the whole result as JSON, and each rule's
 * counters, which the fleet's compliance by rule sums over latest runs.
 */
import type { StoreKind } from "./store.js";

const MIGRATIONS: readonly (readonly string[])[] = [
  [
    `CREATE TABLE nodes (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      addresses TEXT NOT NULL,
      public_key TEXT NOT NULL,
      first_seen $time NOT NULL,
      last_seen $time NOT NULL
    )`,
    `CREATE TABLE runs (
      id $id,
      run_id TEXT NOT NULL UNIQUE,
      node_id TEXT NOT NULL REFERENCES nodes(id),
      front_end TEXT NOT NULL,
      started $time NOT NULL,
      ended $time NOT NULL,
      received $time NOT NULL,
      exit_code INTEGER NOT NULL,
      outcome TEXT NOT NULL,
      kept INTEGER NOT NULL,
      repaired INTEGER NOT NULL,
      not_kept INTEGER NOT NULL,
      total INTEGER NOT NULL,
      policy TEXT NOT NULL,
      policy_release TEXT,
      address TEXT NOT NULL,
      digest TEXT NOT NULL
    )`,
    "CREATE INDEX runs_node_ended ON runs (node_id, ended)",
    "CREATE INDEX runs_ended ON runs (ended)",
    `CREATE TABLE results (
      run $bigint NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      seq INTEGER NOT NULL,
      type TEXT NOT NULL,
      promiser TEXT NOT NULL,
      handle TEXT NOT NULL,
      bundle TEXT NOT NULL,
      file TEXT NOT NULL,
      line INTEGER NOT NULL,
      outcome TEXT NOT NULL,
      message TEXT NOT NULL,
      PRIMARY KEY (run, seq)
    )`,
    `CREATE TABLE report_lines (
      run $bigint NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      seq INTEGER NOT NULL,
      line TEXT NOT NULL,
      PRIMARY KEY (run, seq)
    )`,
    `CREATE TABLE tokens (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      hash TEXT NOT NULL UNIQUE,
      created $time NOT NULL,
      revoked $time
    )`,
  ],
  [
    "ALTER TABLE nodes ADD COLUMN last_run $bigint",
    "ALTER TABLE nodes ADD COLUMN last_ended $time",
    "ALTER TABLE nodes ADD COLUMN last_status TEXT",
    `UPDATE nodes SET last_run = (SELECT r.id FROM runs r WHERE r.node_id = nodes.id
      ORDER BY r.ended DESC, r.id DESC LIMIT 1)`,
    `UPDATE nodes SET last_ended = (SELECT r.ended FROM runs r WHERE r.id = nodes.last_run),
      last_status = (SELECT CASE WHEN r.not_kept > 0 THEN 'failed' WHEN r.repaired > 0 THEN 'repaired'
        ELSE 'kept' END FROM runs r WHERE r.id = nodes.last_run)`,
    `CREATE TABLE run_days (
      day TEXT PRIMARY KEY,
      runs $bigint NOT NULL,
      kept $bigint NOT NULL,
      repaired $bigint NOT NULL,
      not_kept $bigint NOT NULL
    )`,
    `INSERT INTO run_days (day, runs, kept, repaired, not_kept)
      SELECT $day, count(*), sum(kept), sum(repaired), sum(not_kept) FROM runs GROUP BY 1`,
    "CREATE INDEX runs_node_ended_id ON runs (node_id, ended, id)",
    "DROP INDEX runs_node_ended",
  ],
  [
    `CREATE TABLE run_compliance (
      run $bigint PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
      rudder_node TEXT NOT NULL,
      compliance $real NOT NULL,
      detail TEXT NOT NULL
    )`,
    `CREATE TABLE rule_compliance (
      run $bigint NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      rule_id TEXT NOT NULL,
      details TEXT NOT NULL,
      PRIMARY KEY (run, rule_id)
    )`,
  ],
];

const DIALECT: Readonly<Record<StoreKind, Readonly<Record<string, string>>>> = {
  sqlite: {
    $id: "INTEGER PRIMARY KEY",
    $time: "TEXT",
    $bigint: "INTEGER",
    $real: "REAL",
    $day: "substr(ended, 1, 10)",
  },
  postgres: {
    $day: "to_char(ended AT TIME ZONE 'UTC', 'YYYY-MM-DD')",
    $real: "DOUBLE PRECISION",
    $id: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
    $time: "TIMESTAMPTZ",
    $bigint: "BIGINT",
  },
};

export const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS hub_migrations (
  version INTEGER PRIMARY KEY,
  applied TEXT NOT NULL
)`;

/** The migrations as statements for `kind`, numbered from 1. */
export function migrations(kind: StoreKind): { version: number; statements: string[] }[] {
  const words = DIALECT[kind];
  return MIGRATIONS.map((statements, i) => ({
    version: i + 1,
    statements: statements.map((s) => s.replace(/\$[a-z]+/g, (w) => words[w] ?? w)),
  }));
}

/** The newest schema version this hub knows. */
export const SCHEMA_VERSION = MIGRATIONS.length;
