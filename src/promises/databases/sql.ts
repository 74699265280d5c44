/**
 * 3.21's VerifySQLPromise and VerifyTablePromise over the databases
 * provider: the promiser is `database` or `database.table` (`/` or `\`
 * also separate), `create` makes a missing database (connected through
 * `db_server_connection_db`) and a missing table, and missing columns are
 * added; columns the table has beyond its promise fail the promise. The
 * messages, their levels and the outcome of each step are 3.21's.
 *
 * Where tend deliberately differs from a cf-agent built with PostgreSQL
 * support: a database it creates makes the promise repaired (3.21 ignores
 * the result and calls it kept); an existing table's columns are read with
 * the query 3.21 means (it misspells it, so its check of any existing table
 * fails), and a column without a size has size 0 (3.21 gives up on it);
 * unquoted names compare in lower case, as PostgreSQL folds them.
 */
import type { Outcome } from "../outcome.js";
import { applyOutcomeClasses } from "../outcome-classes.js";
import { type SqlConnection, type SqlServer, connectSql } from "../../providers/databases/connection.js";
import {
  type Change,
  type Column,
  addColumn,
  createDatabase,
  createTable,
  listColumns,
  listDatabases,
  listTables,
  parseColumn,
} from "../../providers/databases/schema.js";
import { combineOutcomes } from "../outcome.js";
import type { LogLevel } from "../../system/logger.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import { promiseRef } from "../promise-ref.js";
import { asText } from "../values.js";
import { type DatabaseAttributes, sqlServer } from "./attributes.js";

/** One promise's run: its verdicts so far, and whether it may change anything. */
class SqlRun {
  result: Outcome = "kept";

  constructor(
    readonly promise: ActivePromise,
    readonly env: PromiseEnvironment,
    readonly a: DatabaseAttributes,
    readonly server: SqlServer,
  ) {}

  get mayChange(): boolean {
    return !this.env.dryRun && asText(this.promise.bodyValue("action", "action_policy")) !== "warn";
  }

  /** 3.21's cfPS: a message that is also a verdict, with its classes. */
  verdict(level: LogLevel, outcome: Outcome, message: string): void {
    this.env.log.log(level, message);
    applyOutcomeClasses(this.promise, this.env, outcome);
    this.result = combineOutcomes(this.result, outcome);
  }

  /** 3.21's CfConnectDB, with its messages. */
  connect(database: string | undefined): SqlConnection {
    const { log } = this.env;
    const name = database ?? "no db specified";
    const type = this.server.type === "mysql" ? 1 : this.server.type === "postgres" ? 2 : 0;
    log.verbose(
      `Connect to SQL database '${name}', user '${this.server.user}', host '${this.server.host}', type ${type}`,
    );
    if (this.server.type === "postgres") log.verbose("This is a PotsgreSQL database");
    if (this.server.type === "mysql") log.verbose("This is a MySQL database");
    const conn = connectSql(this.server, name);
    if (conn.connected) return conn;
    if (conn.error === "no-type") log.verbose("There is no SQL database selected");
    else if (conn.error === "no-client") log.info("There is no MySQL support compiled into this version");
    else log.error(`Failed to connect to existing PostgreSQL database. (PQconnectdb: ${conn.error ?? ""})`);
    return conn;
  }

  /** A query that failed, as 3.21 logs it. */
  queryFailed(sql: string, error: string | undefined): void {
    this.env.log.info(`PostgreSQL query '${sql}' failed. (PQExec: ${error ?? ""})`);
  }
}

/** The database and table named by the promiser, as 3.21 splits it; undefined after its error. */
function splitPromiser(run: SqlRun): { database: string; table: string } | undefined {
  const { promiser } = run.promise;
  const separators = [...promiser].filter((c) => "./\\".includes(c)).length;
  if (separators === 0) return { database: promiser, table: "" };
  const database = promiser.split(/[./\\]/)[0] ?? "";
  if (database === "") {
    run.verdict("error", "failed", 'SQL database promiser syntax should be of the form "database.table"');
    promiseRef(run.env, "error", run.promise);
    return undefined;
  }
  if (separators > 1) {
    run.verdict("error", "failed", 'SQL database promiser syntax should be of the form "database.table"');
    promiseRef(run.env, "error", run.promise);
  }
  // The table is what follows the last separator.
  const last = Math.max(promiser.lastIndexOf("."), promiser.lastIndexOf("/"), promiser.lastIndexOf("\\"));
  const table = promiser.slice(last + 1);
  return { database, table };
}

function reportChange(run: SqlRun, change: Change, failed: string): boolean {
  if (change.error === undefined || change.done) return true;
  if (change.statement) run.queryFailed(change.statement, change.error);
  else run.env.log.error(`${failed}: ${change.error}`);
  return false;
}

/** 3.21's VerifyDatabasePromise: the database exists, or is created. */
function verifyDatabase(run: SqlRun, conn: SqlConnection, database: string): void {
  const { log } = run.env;
  log.verbose("Verifying promised database");
  const listed = listDatabases(conn);
  if (!listed.ok) {
    run.queryFailed("SELECT pg_database.datname FROM pg_database", listed.error);
    log.error("The schema did not promise the expected number of fields - got 0 expected >= 1");
    return;
  }
  let found = false;
  for (const [name = ""] of listed.rows) {
    log.verbose(`Discovered a database called '${name}'`);
    if (name === database.toLowerCase() || name === database) found = true;
  }
  if (found) {
    log.verbose(`Database '${database}' exists on this connection`);
    return;
  }
  log.verbose(`Database '${database}' does not seem to exist on this connection`);
  if (!run.mayChange) {
    log.warning(`Need to create the database '${database}' but only a warning was promised`);
    return;
  }
  log.verbose(`Attempting to create the database '${database}'`);
  const change = createDatabase(conn, database, false);
  if (reportChange(run, change, `Could not create the database '${database}'`)) {
    log.info(`Created the database '${database}'`);
    applyOutcomeClasses(run.promise, run.env, "repaired");
    run.result = combineOutcomes(run.result, "repaired");
  } else run.result = combineOutcomes(run.result, "failed");
}

/** The promised columns; undefined (after 3.21's message) when one is malformed. */
function promisedColumns(run: SqlRun, table: string): Column[] | undefined {
  const columns: Column[] = [];
  for (const text of run.a.columns) {
    const column = parseColumn(text);
    if (!column) {
      run.env.log.error(
        `Malformed column '${text.split(",")[0] ?? ""}' promised for table '${table}' - missing a type`,
      );
      return undefined;
    }
    columns.push(column);
  }
  return columns;
}

/** A missing table: created under `create`, as 3.21's CreateTableColumns does. */
function missingTable(run: SqlRun, conn: SqlConnection, path: string, table: string): boolean {
  const { log } = run.env;
  log.error(`The database did not contain the promised table '${path}'`);
  if (run.a.operation !== "create") return false;
  if (!run.mayChange) {
    log.warning(`Database.table '${path}' doesn't seem to exist, but only a warning was promised`);
    return false;
  }
  run.verdict("error", "repaired", `Database.table '${path}' doesn't seem to exist, creating`);
  log.error(`Trying to create table '${table}'`);
  const columns = promisedColumns(run, table);
  if (!columns) return false;
  for (const c of columns) log.verbose(`Forming column template ${c.name} ${c.type} ${c.size}`);
  reportChange(run, createTable(conn, table, columns, false), `Could not create table '${table}'`);
  return true;
}

/** 3.21's VerifyTablePromise: true when the table is (now) as promised. */
function verifyTable(run: SqlRun, conn: SqlConnection, database: string, table: string): boolean {
  const { log } = run.env;
  const path = `${database}.${table}`;
  log.verbose(`Verifying promised table structure for '${path}'`);
  log.verbose(`Assuming database '${database}' with table '${table}'`);
  const tables = listTables(conn);
  if (!tables.ok) log.error("Could not make sense of the columns");
  const exists = tables.rows.some(([name]) => name === table || name === table.toLowerCase());
  if (!exists) return missingTable(run, conn, path, table);
  const found = listColumns(conn, table);
  if (!found.ok) {
    run.verdict("error", "failed", "Could not make sense of the columns");
    return false;
  }
  const promised = promisedColumns(run, table);
  if (!promised) {
    run.verdict("error", "failed", "Could not make sense of the columns");
    return false;
  }
  return compareColumns(run, conn, path, table, found.rows, promised);
}

function compareColumns(
  run: SqlRun,
  conn: SqlConnection,
  path: string,
  table: string,
  rows: readonly (readonly string[])[],
  promised: readonly Column[],
): boolean {
  const { log } = run.env;
  const done = new Set<Column>();
  let ok = true;
  for (const [name = "", rawType = "", rawSize = ""] of rows) {
    const type = rawType.toLowerCase();
    const size = rawSize === "" ? 0 : Number.parseInt(rawSize, 10);
    log.verbose(`Discovered database column (${name},${type},${size})`);
    const match = promised.find((c) => !done.has(c) && (c.name === name || c.name.toLowerCase() === name));
    if (match) {
      done.add(match);
      checkType(run, type, match.type);
      if (size !== match.size)
        run.verdict(
          "error",
          "failed",
          `Promised column '${name}' in database.table '${path}' has a non-matching array size (${size} != ${match.size})`,
        );
      else log.verbose(`Promised column '${name}' in database.table '${path}' is as promised`);
      continue;
    }
    run.verdict(
      "error",
      "failed",
      `Column '${name}' found in database.table '${path}' is not part of its promise.`,
    );
    if (run.a.operation === "drop")
      run.verdict(
        "error",
        "failed",
        "CFEngine will not promise to repair this, as the operation is potentially too destructive.",
      );
    ok = false;
  }
  if (run.a.operation === "drop") return ok;
  for (const column of promised) {
    if (done.has(column)) continue;
    log.error(`Promised column '${column.name}' missing from database table '${run.promise.promiser}'`);
    if (!run.mayChange) {
      run.verdict(
        "warning",
        "warn",
        `Promised column '${column.name}' missing from database table '${table}' but only a warning was promised`,
      );
      ok = false;
      continue;
    }
    reportChange(run, addColumn(conn, table, column, false), `Could not add column '${column.name}'`);
    run.verdict("error", "repaired", `Adding promised column '${column.name}' to database table '${table}'`);
    ok = true;
  }
  return ok;
}

/** 3.21's CheckSQLDataType: a different type is only mentioned (varchar and character varying are one). */
function checkType(run: SqlRun, type: string, promised: string): void {
  const varchar = (t: string) => t === "varchar" || t === "character varying" || t === "character@varying";
  if (type === promised || (varchar(type) && varchar(promised.toLowerCase()))) return;
  run.env.log.verbose(
    `Promised column in database '${run.promise.promiser}' has a non-matching type (${promised} != ${type})`,
  );
}

/** Runs an SQL databases promise; returns its outcome. */
export function verifySqlPromise(
  promise: ActivePromise,
  env: PromiseEnvironment,
  a: DatabaseAttributes,
): Outcome {
  const run = new SqlRun(promise, env, a, sqlServer(a));
  const names = splitPromiser(run);
  if (!names) return "failed";
  const { database, table } = names;
  if (a.operation === undefined) {
    run.verdict("error", "failed", "Missing database_operation in database promise");
    promiseRef(env, "error", promise);
    return "failed";
  }
  const first = run.connect(database);
  if (!first.connected && a.operation !== "create") {
    env.log.error(`Could not connect an existing database '${database}' - check server configuration?`);
    promiseRef(env, "error", promise);
    return "failed";
  }
  if (a.operation === "create") {
    const server = run.connect(a.connectionDb);
    if (!server.connected) {
      env.log.error(`Could not connect to the sql_db server for '${database}'`);
      return "failed";
    }
    verifyDatabase(run, server, database);
  }
  if (table === "") return run.result;
  const conn = run.connect(database);
  if (!conn.connected) {
    env.log.info(`Database '${database}' is not connected`);
    return run.result;
  }
  const path = `${database}.${table}`;
  if (verifyTable(run, conn, database, table)) run.verdict("info", "kept", `Table '${path}' is as promised`);
  else run.verdict("error", "failed", `Table '${path}' is not as promised`);
  if (a.rows.length > 0)
    env.log.info(
      "Database row operations are not currently supported. Please contact cfengine with suggestions.",
    );
  return run.result;
}
