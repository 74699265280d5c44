/**
 * The databases provider's view of an SQL server's structure: which
 * databases and tables exist, a table's columns, and the changes that make
 * them as promised (create a database, a table, add a column). Each change
 * is returned as data and made only when not a dry run. Statements are the
 * ones 3.21 sends (PostgreSQL's catalogue queries, `create database x`,
 * `create table t(c type(size),...)`, `ALTER TABLE t ADD c type`); names
 * and types are checked to be plain SQL words first, so nothing a policy
 * writes can become another statement.
 */
import type { QueryResult, SqlConnection } from "./connection.js";

/** A column as promised (`name,type[,size]`) or found. */
export interface Column {
  readonly name: string;
  /** Lower case, as 3.21 compares it. */
  readonly type: string;
  /** The size of an array type (`varchar,256`); 0 when none. */
  readonly size: number;
}

/** One change made (or, in a dry run, that would be made). */
export interface Change {
  readonly property: "database" | "table" | "column";
  readonly old: string | null;
  readonly new: string;
  readonly message: string;
  /** The statement sent; undefined in a dry run. */
  readonly statement?: string;
  /** Whether the server accepted it (true in a dry run). */
  readonly done: boolean;
  readonly error?: string;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]*$/;
const TYPE_NAME = /^[A-Za-z][A-Za-z0-9_ ]*$/;

/** Whether `name` is a plain SQL identifier (what tend will put in a statement). */
export function isPlainIdentifier(name: string): boolean {
  return IDENTIFIER.test(name) && name.length < 64;
}

/** Whether `type` is a plain SQL type name (words only). */
export function isPlainType(type: string): boolean {
  return TYPE_NAME.test(type);
}

/** The databases the server lists (3.21's query for PostgreSQL); undefined when the query failed. */
export function listDatabases(conn: SqlConnection): QueryResult {
  return conn.query("SELECT pg_database.datname FROM pg_database");
}

/**
 * The relations of the public schema (3.21's query: tables, and also
 * indexes and sequences, which it counts as tables too).
 */
export function listTables(conn: SqlConnection): QueryResult {
  return conn.query(
    "SELECT c.relname as \"Name\" FROM pg_catalog.pg_class c JOIN pg_catalog.pg_roles r ON r.oid = c.relowner LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'",
  );
}

/**
 * A table's columns (name, type, character_maximum_length) from the
 * information schema. 3.21 means to send this query but misspells it
 * (`information_schema->columns`, and the database as the schema), so its
 * check of an existing table always fails; tend asks what 3.21 documents.
 */
export function listColumns(conn: SqlConnection, table: string): QueryResult {
  if (!isPlainIdentifier(table)) return { ok: false, rows: [], error: `'${table}' is not a plain SQL name` };
  return conn.query(
    `SELECT column_name,data_type,character_maximum_length FROM information_schema.columns WHERE table_name = '${table.toLowerCase()}' AND table_schema = 'public' ORDER BY ordinal_position`,
  );
}

/** Parses `name,type[,size]` as 3.21's NewSQLColumns does; undefined when malformed. */
export function parseColumn(text: string): Column | undefined {
  const [name, type, size] = text.split(",");
  if (!name || type === undefined) return undefined;
  const parsed = size === undefined || size === "" ? 0 : Number.parseInt(size, 10);
  return { name, type, size: Number.isNaN(parsed) ? 0 : parsed };
}

function columnSql(column: Column): string {
  return column.size > 0 ? `${column.name} ${column.type}(${column.size})` : `${column.name} ${column.type}`;
}

function refuse(property: Change["property"], name: string, message: string): Change {
  return { property, old: null, new: name, message, done: false, error: message };
}

function apply(
  conn: SqlConnection,
  dryRun: boolean,
  change: Omit<Change, "done" | "statement">,
  statement: string,
): Change {
  if (dryRun) return { ...change, done: true };
  const result = conn.query(statement);
  return { ...change, statement, done: result.ok, error: result.error };
}

/** Creates database `name` (connected to another database of the server). */
export function createDatabase(conn: SqlConnection, name: string, dryRun: boolean): Change {
  if (!isPlainIdentifier(name)) return refuse("database", name, `'${name}' is not a plain SQL name`);
  const message = `create database ${name}`;
  return apply(conn, dryRun, { property: "database", old: null, new: name, message }, message);
}

/** Creates `table` with `columns` (3.21 sends `create table t(...)`). */
export function createTable(
  conn: SqlConnection,
  table: string,
  columns: readonly Column[],
  dryRun: boolean,
): Change {
  const bad = [table, ...columns.map((c) => c.name)].find((n) => !isPlainIdentifier(n));
  if (bad !== undefined) return refuse("table", table, `'${bad}' is not a plain SQL name`);
  const badType = columns.find((c) => !isPlainType(c.type));
  if (badType) return refuse("table", table, `'${badType.type}' is not a plain SQL type`);
  const statement = `create table ${table}(${columns.map(columnSql).join(",")})`;
  return apply(conn, dryRun, { property: "table", old: null, new: table, message: statement }, statement);
}

/** Adds `column` to `table`. */
export function addColumn(conn: SqlConnection, table: string, column: Column, dryRun: boolean): Change {
  if (!isPlainIdentifier(table) || !isPlainIdentifier(column.name))
    return refuse("column", column.name, `'${table}.${column.name}' is not a plain SQL name`);
  if (!isPlainType(column.type))
    return refuse("column", column.name, `'${column.type}' is not a plain SQL type`);
  const statement = `ALTER TABLE ${table} ADD ${columnSql(column)}`;
  return apply(
    conn,
    dryRun,
    { property: "column", old: null, new: columnSql(column), message: statement },
    statement,
  );
}
