/**
 * Opens the store a `--database` value names: `sqlite:PATH` (or a plain
 * path) for SQLite, `postgres://…` / `postgresql://…` for PostgreSQL.
 * Each driver is loaded only when it is used.
 */
import type { HubStore, StoreKind } from "./store.js";

export interface DatabaseSpec {
  readonly kind: StoreKind;
  /** The file (SQLite) or the connection string (PostgreSQL). */
  readonly target: string;
}

/** What `text` names, or an error message saying what was expected. */
export function parseDatabaseSpec(text: string): DatabaseSpec | { error: string } {
  if (/^postgres(?:ql)?:\/\//.test(text)) return { kind: "postgres", target: text };
  const path = text.startsWith("sqlite:") ? text.slice("sqlite:".length) : text;
  if (path === "" || /^[a-z][a-z0-9+.-]*:\/\//i.test(path))
    return { error: `unknown database '${text}': expected sqlite:PATH or postgres://USER@HOST/DATABASE` };
  return { kind: "sqlite", target: path };
}

/** Opens and migrates the store. Throws the driver's error when it cannot (a message fit to print). */
export async function openStore(spec: DatabaseSpec): Promise<HubStore> {
  if (spec.kind === "sqlite") return (await import("./sqlite.js")).openSqliteStore(spec.target);
  return (await import("./postgres.js")).openPostgresStore(spec.target);
}

/** The spec with any password in a PostgreSQL URL hidden, for logs. */
export function describeDatabase(spec: DatabaseSpec): string {
  if (spec.kind === "sqlite") return `sqlite:${spec.target}`;
  return spec.target.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1:***@");
}
