/**
 * databases scenarios, each run twice by tend against one throwaway
 * PostgreSQL (the harness gives `$(s)`, its socket directory, as the
 * server's host). `setup` statements prepare the server first; `state`
 * queries read it after both runs. The expected lines follow 3.21's
 * verify_databases.c as a cf-agent built with PostgreSQL would log them
 * (Debian's is not: see cf-agent.test.ts), with the differences sql.ts
 * states. `S` stands for the socket directory in messages.
 */
export interface DatabasesScenario {
  readonly name: string;
  /** Statements run (as postgres, on database postgres unless `db:` prefixes them) before the first run. */
  readonly setup?: readonly string[];
  /** The databases: section of bundle agent main. */
  readonly promises: string;
  /** Lines (`level: message`, reports as `R: text`) of the first and of the second run. */
  readonly first: readonly string[];
  readonly second: readonly string[];
  /** A query on the server after both runs, and its rows. */
  readonly state: { readonly sql: string; readonly db?: string; readonly rows: readonly string[] };
}

const NO_DB = (db: string) =>
  `error: Failed to connect to existing PostgreSQL database. (PQconnectdb: connection to server on socket "S/.s.PGSQL.5432" failed: FATAL:  database "${db}" does not exist)`;
/** Which of `names` (and postgres) exist. */
const DATABASES = (...names: string[]) =>
  `SELECT datname FROM pg_database WHERE datname IN ('postgres'${names.map((n) => `,'${n}'`).join("")}) ORDER BY 1`;
const COLUMNS = (table: string) =>
  `SELECT column_name||':'||data_type||':'||coalesce(character_maximum_length,0) FROM information_schema.columns WHERE table_name='${table}' ORDER BY ordinal_position`;
const outcome = 'classes => outcome("p")';

export const databasesScenarios: readonly DatabasesScenario[] = [
  {
    name: "01-create-database",
    promises: `"app1" database_operation => "create", database_type => "sql", database_server => pg, ${outcome};`,
    first: [NO_DB("app1"), "info: Created the database 'app1'", "R: p repaired"],
    second: ["R: p kept"],
    state: { sql: DATABASES("app1"), rows: ["app1", "postgres"] },
  },
  {
    name: "02-create-table-in-existing-database",
    setup: ["CREATE DATABASE app2"],
    promises: `"app2.users" database_operation => "create", database_type => "sql", database_server => pg,
      database_columns => { "name,varchar,256", "id,integer" }, ${outcome};`,
    first: [
      "error: The database did not contain the promised table 'app2.users'",
      "error: Database.table 'app2.users' doesn't seem to exist, creating",
      "error: Trying to create table 'users'",
      "info: Table 'app2.users' is as promised",
      "R: p repaired",
      "R: p kept",
    ],
    second: ["info: Table 'app2.users' is as promised", "R: p kept"],
    state: { sql: COLUMNS("users"), db: "app2", rows: ["name:character varying:256", "id:integer:0"] },
  },
  {
    name: "03-create-database-and-table",
    promises: `"app3/items" database_operation => "create", database_type => "sql", database_server => pg,
      database_columns => { "sku,varchar,32", "qty,integer" }, ${outcome};`,
    first: [
      NO_DB("app3"),
      "info: Created the database 'app3'",
      "error: The database did not contain the promised table 'app3.items'",
      "error: Database.table 'app3.items' doesn't seem to exist, creating",
      "error: Trying to create table 'items'",
      "info: Table 'app3.items' is as promised",
      "R: p repaired",
      "R: p kept",
    ],
    second: ["info: Table 'app3.items' is as promised", "R: p kept"],
    state: { sql: COLUMNS("items"), db: "app3", rows: ["sku:character varying:32", "qty:integer:0"] },
  },
  {
    name: "04-missing-column-added",
    setup: ["CREATE DATABASE app4", "app4:CREATE TABLE t (a integer)"],
    promises: `"app4.t" database_operation => "create", database_type => "sql", database_server => pg,
      database_columns => { "a,integer", "b,varchar,20" }, ${outcome};`,
    first: [
      "error: Promised column 'b' missing from database table 'app4.t'",
      "error: Adding promised column 'b' to database table 't'",
      "info: Table 'app4.t' is as promised",
      "R: p repaired",
      "R: p kept",
    ],
    second: ["info: Table 'app4.t' is as promised", "R: p kept"],
    state: { sql: COLUMNS("t"), db: "app4", rows: ["a:integer:0", "b:character varying:20"] },
  },
  {
    name: "05-extra-column-fails",
    setup: ["CREATE DATABASE app5", "app5:CREATE TABLE t (a integer, x text)"],
    promises: `"app5.t" database_operation => "create", database_type => "sql", database_server => pg,
      database_columns => { "a,integer" }, ${outcome};`,
    first: [
      "error: Column 'x' found in database.table 'app5.t' is not part of its promise.",
      "error: Table 'app5.t' is not as promised",
      "R: p failed",
    ],
    second: [
      "error: Column 'x' found in database.table 'app5.t' is not part of its promise.",
      "error: Table 'app5.t' is not as promised",
      "R: p failed",
    ],
    state: { sql: COLUMNS("t"), db: "app5", rows: ["a:integer:0", "x:text:0"] },
  },
  {
    name: "06-size-mismatch-fails",
    setup: ["CREATE DATABASE app6", "app6:CREATE TABLE t (name varchar(10))"],
    promises: `"app6.t" database_operation => "create", database_type => "sql", database_server => pg,
      database_columns => { "name,varchar,20" }, ${outcome};`,
    first: [
      "error: Promised column 'name' in database.table 'app6.t' has a non-matching array size (10 != 20)",
      "info: Table 'app6.t' is as promised",
      "R: p kept",
      "R: p failed",
    ],
    second: [
      "error: Promised column 'name' in database.table 'app6.t' has a non-matching array size (10 != 20)",
      "info: Table 'app6.t' is as promised",
      "R: p kept",
      "R: p failed",
    ],
    state: { sql: COLUMNS("t"), db: "app6", rows: ["name:character varying:10"] },
  },
  {
    name: "07-verify-missing-table",
    setup: ["CREATE DATABASE app7"],
    promises: `"app7.t" database_operation => "verify", database_type => "sql", database_server => pg,
      database_columns => { "a,integer" }, ${outcome};`,
    first: [
      "error: The database did not contain the promised table 'app7.t'",
      "error: Table 'app7.t' is not as promised",
      "R: p failed",
    ],
    second: [
      "error: The database did not contain the promised table 'app7.t'",
      "error: Table 'app7.t' is not as promised",
      "R: p failed",
    ],
    state: { sql: COLUMNS("t"), db: "app7", rows: [] },
  },
  {
    name: "08-verify-missing-database",
    promises: `"nodb8" database_operation => "verify", database_type => "sql", database_server => pg, ${outcome};`,
    first: [
      NO_DB("nodb8"),
      "error: Could not connect an existing database 'nodb8' - check server configuration?",
      "error: Promise belongs to bundle 'main' in file 'P' near line 4",
      "R: p failed",
    ],
    second: [
      NO_DB("nodb8"),
      "error: Could not connect an existing database 'nodb8' - check server configuration?",
      "error: Promise belongs to bundle 'main' in file 'P' near line 4",
      "R: p failed",
    ],
    state: { sql: DATABASES("nodb8"), rows: ["postgres"] },
  },
  {
    name: "09-drop-needs-a-comment",
    setup: ["CREATE DATABASE app9"],
    promises: `"app9" database_operation => "drop", database_type => "sql", database_server => pg, ${outcome};`,
    first: [
      "error: When specifying a delete/drop from an SQL database you must add a comment. Take a backup of the database before making this change. This is a highly destructive operation.",
      "R: p failed",
    ],
    second: [
      "error: When specifying a delete/drop from an SQL database you must add a comment. Take a backup of the database before making this change. This is a highly destructive operation.",
      "R: p failed",
    ],
    state: { sql: DATABASES("app9"), rows: ["app9", "postgres"] },
  },
  {
    name: "10-delete-with-comment-keeps-the-database",
    setup: ["CREATE DATABASE app10"],
    promises: `"app10" database_operation => "delete", comment => "backed up", database_type => "sql", database_server => pg, ${outcome};`,
    first: ["R: p kept"],
    second: ["R: p kept"],
    state: { sql: DATABASES("app10"), rows: ["app10", "postgres"] },
  },
  {
    name: "11-drop-table-reports-extra-columns",
    setup: ["CREATE DATABASE app11", "app11:CREATE TABLE t (a integer, x text)"],
    promises: `"app11.t" database_operation => "drop", comment => "c", database_type => "sql", database_server => pg,
      database_columns => { "a,integer", "b,integer" }, ${outcome};`,
    first: [
      "error: Column 'x' found in database.table 'app11.t' is not part of its promise.",
      "error: CFEngine will not promise to repair this, as the operation is potentially too destructive.",
      "error: Table 'app11.t' is not as promised",
      "R: p failed",
    ],
    second: [
      "error: Column 'x' found in database.table 'app11.t' is not part of its promise.",
      "error: CFEngine will not promise to repair this, as the operation is potentially too destructive.",
      "error: Table 'app11.t' is not as promised",
      "R: p failed",
    ],
    state: { sql: COLUMNS("t"), db: "app11", rows: ["a:integer:0", "x:text:0"] },
  },
  {
    name: "12-warn-only-changes-nothing",
    setup: ["CREATE DATABASE app12"],
    promises: `"app12.t" database_operation => "create", database_type => "sql", database_server => pg, action => warn_only,
      database_columns => { "a,integer" }, ${outcome};
    "app12b" database_operation => "create", database_type => "sql", database_server => pg, action => warn_only;`,
    first: [
      "error: The database did not contain the promised table 'app12.t'",
      "warning: Database.table 'app12.t' doesn't seem to exist, but only a warning was promised",
      "error: Table 'app12.t' is not as promised",
      NO_DB("app12b"),
      "warning: Need to create the database 'app12b' but only a warning was promised",
      "R: p failed",
    ],
    second: [
      "error: The database did not contain the promised table 'app12.t'",
      "warning: Database.table 'app12.t' doesn't seem to exist, but only a warning was promised",
      "error: Table 'app12.t' is not as promised",
      NO_DB("app12b"),
      "warning: Need to create the database 'app12b' but only a warning was promised",
      "R: p failed",
    ],
    state: { sql: DATABASES("app12", "app12b"), rows: ["app12", "postgres"] },
  },
  {
    name: "13-mysql-has-no-client",
    promises: `"app13" database_operation => "create", database_type => "sql", database_server => my, ${outcome};`,
    first: [
      "info: There is no MySQL support compiled into this version",
      "info: There is no MySQL support compiled into this version",
      "error: Could not connect to the sql_db server for 'app13'",
      "R: p failed",
    ],
    second: [
      "info: There is no MySQL support compiled into this version",
      "info: There is no MySQL support compiled into this version",
      "error: Could not connect to the sql_db server for 'app13'",
      "R: p failed",
    ],
    state: { sql: DATABASES("app13"), rows: ["postgres"] },
  },
  {
    name: "14-sanity-checks",
    promises: `"app14" database_operation => "create", database_type => "sql", database_server => incomplete,
      database_columns => { "a" }, database_rows => { "x,y" }, ${outcome};`,
    first: [
      "error: Row values promised for an SQL table, but only the root database was promised",
      "error: Columns promised for an SQL table, but only the root database was promised",
      "error: No server host is promised for connecting to the SQL server",
      "error: No database authentication password is promised for connecting to the SQL server",
      "error: SQL Column format should be NAME,TYPE[,SIZE]",
      "R: p failed",
    ],
    second: [
      "error: Row values promised for an SQL table, but only the root database was promised",
      "error: Columns promised for an SQL table, but only the root database was promised",
      "error: No server host is promised for connecting to the SQL server",
      "error: No database authentication password is promised for connecting to the SQL server",
      "error: SQL Column format should be NAME,TYPE[,SIZE]",
      "R: p failed",
    ],
    state: { sql: DATABASES("app14"), rows: ["postgres"] },
  },
  {
    name: "15-rows-are-not-supported",
    setup: ["CREATE DATABASE app15", "app15:CREATE TABLE t (a integer)"],
    promises: `"app15.t" database_operation => "create", database_type => "sql", database_server => pg,
      database_columns => { "a,integer" }, database_rows => { "1,2" }, ${outcome};`,
    first: [
      "info: Table 'app15.t' is as promised",
      "info: Database row operations are not currently supported. Please contact cfengine with suggestions.",
      "R: p kept",
    ],
    second: [
      "info: Table 'app15.t' is as promised",
      "info: Database row operations are not currently supported. Please contact cfengine with suggestions.",
      "R: p kept",
    ],
    state: { sql: "SELECT count(*) FROM t", db: "app15", rows: ["0"] },
  },
  {
    name: "16-names-are-never-sql",
    setup: ["CREATE DATABASE app16"],
    promises: `"app16.t;drop" database_operation => "create", database_type => "sql", database_server => pg,
      database_columns => { "a,integer" }, ${outcome};`,
    first: [
      "error: The database did not contain the promised table 'app16.t;drop'",
      "error: Database.table 'app16.t;drop' doesn't seem to exist, creating",
      "error: Trying to create table 't;drop'",
      "error: Could not create table 't;drop': 't;drop' is not a plain SQL name",
      "info: Table 'app16.t;drop' is as promised",
      "R: p repaired",
      "R: p kept",
    ],
    second: [
      "error: The database did not contain the promised table 'app16.t;drop'",
      "error: Database.table 'app16.t;drop' doesn't seem to exist, creating",
      "error: Trying to create table 't;drop'",
      "error: Could not create table 't;drop': 't;drop' is not a plain SQL name",
      "info: Table 'app16.t;drop' is as promised",
      "R: p repaired",
      "R: p kept",
    ],
    state: { sql: "SELECT count(*) FROM pg_tables WHERE schemaname='public'", db: "app16", rows: ["0"] },
  },
  {
    name: "17-two-separators",
    setup: ["CREATE DATABASE app17"],
    promises: `"app17.x.t" database_operation => "create", database_type => "sql", database_server => pg,
      database_columns => { "a,integer" }, ${outcome};`,
    first: [
      'error: SQL database promiser syntax should be of the form "database.table"',
      "error: Promise belongs to bundle 'main' in file 'P' near line 4",
      "error: The database did not contain the promised table 'app17.t'",
      "error: Database.table 'app17.t' doesn't seem to exist, creating",
      "error: Trying to create table 't'",
      "info: Table 'app17.t' is as promised",
      "R: p repaired",
      "R: p kept",
      "R: p failed",
    ],
    second: [
      'error: SQL database promiser syntax should be of the form "database.table"',
      "error: Promise belongs to bundle 'main' in file 'P' near line 4",
      "info: Table 'app17.t' is as promised",
      "R: p kept",
      "R: p failed",
    ],
    state: { sql: COLUMNS("t"), db: "app17", rows: ["a:integer:0"] },
  },
  {
    name: "18-registry-is-left-alone",
    promises: `"HKEY_LOCAL_MACHINE\\\\SOFTWARE\\\\x" database_operation => "create", database_type => "ms_registry",
      database_rows => { "v,REG_SZ,1" }, ${outcome};`,
    first: ["R: p kept"],
    second: ["R: p kept"],
    state: { sql: DATABASES(), rows: ["postgres"] },
  },
  {
    name: "19-no-database-type",
    promises: `"app19" database_operation => "create", database_server => pg, ${outcome};`,
    first: [
      `error: Database promise 'app19' has no database_type; expected "sql" or "ms_registry"`,
      "R: p failed",
    ],
    second: [
      `error: Database promise 'app19' has no database_type; expected "sql" or "ms_registry"`,
      "R: p failed",
    ],
    state: { sql: DATABASES("app19"), rows: ["postgres"] },
  },
];
