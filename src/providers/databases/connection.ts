/**
 * A connection to an SQL server, as the databases provider sees one: it is
 * connected or not (with the client's reason), and runs one statement at a
 * time, returning the rows as text. PostgreSQL is reached through `psql`
 * (one process per statement, no shell, the password in PGPASSWORD rather
 * than on the command line). tend has no MySQL client: such a connection
 * is never made, as with a cf-agent built without MySQL support.
 */
import { type ProgramRunner, runProgram } from "./runner.js";

export type SqlServerType = "postgres" | "mysql";

/** Where and as whom to connect (the database_server body of CFEngine). */
export interface SqlServer {
  /** undefined: no server type given (no connection is attempted). */
  readonly type: SqlServerType | undefined;
  /** A host name, or a directory holding the server's Unix socket; "localhost" or "" means the default socket. */
  readonly host: string;
  readonly user: string;
  readonly password: string;
}

export interface QueryResult {
  readonly ok: boolean;
  /** Each row's fields as text (NULL reads as ""). */
  readonly rows: readonly (readonly string[])[];
  /** The server's or client's message when not ok. */
  readonly error?: string;
}

export interface SqlConnection {
  readonly connected: boolean;
  /** Why the connection failed (the client's own message). */
  readonly error?: string;
  /** The database connected to. */
  readonly database: string;
  query(sql: string): QueryResult;
}

export interface ConnectOptions {
  readonly run?: ProgramRunner;
  /** The psql program (default `psql` on PATH). */
  readonly psql?: string;
}

/** The reason a connection is not made when the server type has no client in tend. */
export type Unsupported = "no-client" | "no-type";

const FIELD = "\u001f";
const RECORD = "\u001e";

/**
 * The connection string 3.21 builds (cf_sql.c): values unquoted, so a value
 * with a space breaks it as it breaks cf-agent's; the host is left out for
 * "localhost". The password goes in the environment instead.
 */
export function postgresConnInfo(server: SqlServer, database: string): string {
  const host = server.host === "localhost" || server.host === "" ? "" : ` host=${server.host}`;
  return `dbname=${database}${host} user=${server.user}`;
}

class PsqlConnection implements SqlConnection {
  connected = false;
  error?: string;

  constructor(
    private readonly server: SqlServer,
    readonly database: string,
    private readonly options: ConnectOptions,
  ) {}

  open(): this {
    const probe = this.query("SELECT 1");
    this.connected = probe.ok;
    if (!probe.ok) this.error = probe.error;
    return this;
  }

  query(sql: string): QueryResult {
    const run = this.options.run ?? runProgram;
    const argv = [
      this.options.psql ?? "psql",
      "-X",
      "-q",
      "-A",
      "-t",
      "-F",
      FIELD,
      "-R",
      RECORD,
      "-v",
      "ON_ERROR_STOP=1",
      "-d",
      postgresConnInfo(this.server, this.database),
      "-c",
      sql,
    ];
    const result = run(argv, { PGPASSWORD: this.server.password, PGCONNECT_TIMEOUT: "10" });
    if (result.status !== 0) return { ok: false, rows: [], error: clientMessage(result.stderr) };
    return { ok: true, rows: parseRows(result.stdout) };
  }
}

/** psql's message without its own prefix, as the library (libpq) gives it. */
function clientMessage(stderr: string): string {
  return stderr.replace(/^psql: error: /, "").replace(/\n+$/, "");
}

function parseRows(stdout: string): string[][] {
  const text = stdout.replace(/\n$/, "");
  if (text === "") return [];
  return text.split(RECORD).map((row) => row.split(FIELD));
}

/** A connection that was never made. */
function unconnected(database: string, reason: Unsupported): SqlConnection {
  return {
    connected: false,
    error: reason,
    database,
    query: () => ({ ok: false, rows: [], error: reason }),
  };
}

/**
 * Connects to `database` on `server`; look at `connected`. A MySQL server,
 * or none named, gives a connection that is not connected (error
 * "no-client" or "no-type").
 */
export function connectSql(server: SqlServer, database: string, options: ConnectOptions = {}): SqlConnection {
  if (server.type === undefined) return unconnected(database, "no-type");
  if (server.type === "mysql") return unconnected(database, "no-client");
  return new PsqlConnection(server, database, options).open();
}
