/**
 * A databases promise's attributes as 3.21 reads them (GetDatabaseConstraints),
 * and its sanity checks (CheckDatabaseSanity, CheckRegistrySanity) with
 * their messages.
 */
import type { SqlServer, SqlServerType } from "../../providers/databases/connection.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import { promiseRef } from "../promise-ref.js";
import { asStrings, asText } from "../values.js";

export interface DatabaseAttributes {
  readonly type: string | undefined;
  /** "delete" reads as "drop", as 3.21 makes it. */
  readonly operation: string | undefined;
  readonly columns: readonly string[];
  readonly rows: readonly string[];
  readonly host: string | undefined;
  readonly owner: string | undefined;
  readonly password: string | undefined;
  readonly connectionDb: string | undefined;
  readonly serverType: SqlServerType | undefined;
}

function serverValue(promise: ActivePromise, name: string): string | undefined {
  return asText(promise.bodyValue("database_server", name));
}

export function readDatabaseAttributes(promise: ActivePromise): DatabaseAttributes {
  const serverType = serverValue(promise, "db_server_type");
  return {
    type: promise.text("database_type"),
    operation: promise.text("database_operation"),
    columns: asStrings(promise.value("database_columns")),
    rows: asStrings(promise.value("database_rows")),
    host: serverValue(promise, "db_server_host"),
    owner: serverValue(promise, "db_server_owner"),
    password: serverValue(promise, "db_server_password"),
    connectionDb: serverValue(promise, "db_server_connection_db"),
    serverType: serverType === "postgres" || serverType === "mysql" ? serverType : undefined,
  };
}

/** The server to connect to (the sanity check made sure host, owner and password are set). */
export function sqlServer(a: DatabaseAttributes): SqlServer {
  return { type: a.serverType, host: a.host ?? "", user: a.owner ?? "", password: a.password ?? "" };
}

const commas = (text: string) => text.split(",").length - 1;
const isRoot = (promiser: string) => !/[./\\]/.test(promiser);

function sqlSanity(a: DatabaseAttributes, promiser: string, env: PromiseEnvironment): boolean {
  let ok = true;
  const problem = (message: string) => {
    env.log.error(message);
    ok = false;
  };
  // 3.21's two messages name the wrong attribute each; kept as they are.
  if (isRoot(promiser) && a.columns.length > 0)
    problem("Row values promised for an SQL table, but only the root database was promised");
  if (isRoot(promiser) && a.rows.length > 0)
    problem("Columns promised for an SQL table, but only the root database was promised");
  if (a.host === undefined) problem("No server host is promised for connecting to the SQL server");
  if (a.owner === undefined) problem("No database login user is promised for connecting to the SQL server");
  if (a.password === undefined)
    problem("No database authentication password is promised for connecting to the SQL server");
  for (const column of a.columns) {
    const n = commas(column);
    if (n > 2 || n < 1) problem("SQL Column format should be NAME,TYPE[,SIZE]");
  }
  return ok;
}

const REGISTRY_ROOTS = [
  "HKEY_CLASSES_ROOT",
  "HKEY_CURRENT_CONFIG",
  "HKEY_CURRENT_USER",
  "HKEY_LOCAL_MACHINE",
  "HKEY_USERS",
];

function registrySanity(a: DatabaseAttributes, promise: ActivePromise, env: PromiseEnvironment): boolean {
  const slash = promise.promiser.indexOf("\\");
  if (slash < 0) {
    env.log.error(`Cannot locate '\\' in '${promise.promiser}'`);
    env.log.error("Failed validating registry promiser");
    promiseRef(env, "error", promise);
  } else if (!REGISTRY_ROOTS.includes(promise.promiser.slice(0, slash))) {
    env.log.error(`Non-editable registry prefix '${promise.promiser.slice(0, slash)}'`);
    promiseRef(env, "error", promise);
  }
  let ok = true;
  const problem = (message: string) => {
    env.log.error(message);
    ok = false;
  };
  if (a.operation === "create") {
    if (a.rows.length === 0) env.log.info("No row values promised for the MS registry database");
    if (a.columns.length > 0)
      problem("Columns are only used to delete promised values for the MS registry database");
  }
  if (a.operation === "delete" || a.operation === "drop") {
    if (a.columns.length === 0) env.log.info("No columns were promised deleted in the MS registry database");
    if (a.rows.length > 0) problem("Rows cannot be deleted in the MS registry database, only entire columns");
  }
  for (const row of a.rows)
    if (commas(row) !== 2) problem(`Registry row format should be NAME,REG_SZ,VALUE, not '${row}'`);
  for (const column of a.columns)
    if (commas(column) > 0) problem("MS registry column format should be NAME only in deletion");
  return ok;
}

/** 3.21's CheckDatabaseSanity: false (after its messages) when the promise cannot be kept as written. */
export function checkDatabaseSanity(
  a: DatabaseAttributes,
  promise: ActivePromise,
  env: PromiseEnvironment,
): boolean {
  let ok = true;
  if (a.type === "ms_registry") ok = registrySanity(a, promise, env);
  else if (a.type === "sql") ok = sqlSanity(a, promise.promiser, env);
  if ((a.operation === "delete" || a.operation === "drop") && promise.raw("comment") === undefined) {
    env.log.error(
      "When specifying a delete/drop from an SQL database you must add a comment. Take a backup of the database before making this change. This is a highly destructive operation.",
    );
    ok = false;
  }
  return ok;
}
