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
];

const DIALECT: Readonly<Record<StoreKind, Readonly<Record<string, string>>>> = {
  sqlite: { $id: "INTEGER PRIMARY KEY", $time: "TEXT", $bigint: "INTEGER" },
  postgres: {
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
