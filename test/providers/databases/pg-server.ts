/**
 * A throwaway PostgreSQL server for tests: initdb and pg_ctl from Debian's
 * postgresql package, a cluster in a temporary directory, listening only on
 * a Unix socket in that directory (no TCP), trust authentication for its
 * superuser `postgres`. As root the server runs as the `postgres` account
 * (PostgreSQL refuses root). `stop()` stops it and removes the directory.
 */
import { spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";

export interface PgServer {
  /** The directory holding the server's socket: a libpq "host". */
  readonly socketDir: string;
  /** Runs one statement through psql as `postgres` on `database`; returns its rows (fields split by `|`). */
  sql(statement: string, database?: string): string[];
  stop(): void;
}

/** The directory of PostgreSQL's server programs, or undefined when not installed. */
export function findPgBin(): string | undefined {
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, "bin", "initdb")) && existsSync(join(base, v, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(base, versions[0], "bin");
}

/** Why a server cannot be started here; undefined when it can. */
export function pgUnavailable(): string | undefined {
  if (!findPgBin()) return "PostgreSQL server programs (initdb, pg_ctl) are not installed";
  if (spawnSync("psql", ["--version"]).error) return "psql is not installed";
  if (process.getuid?.() === 0 && !accountIds("postgres"))
    return "running as root and there is no postgres account to run the server as";
  return undefined;
}

function accountIds(name: string): { uid: number; gid: number } | undefined {
  const id = (flag: string) => spawnSync("id", [flag, name], { encoding: "utf8" });
  const uid = id("-u");
  const gid = id("-g");
  if (uid.status !== 0 || gid.status !== 0) return undefined;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** Starts a server; throws with the server's log when it does not start. */
export function startPgServer(): PgServer {
  const bin = findPgBin();
  if (!bin) throw new Error("PostgreSQL is not installed");
  const root = mkdtempSync(join(tmpdir(), "tend-pg-"));
  const owner = process.getuid?.() === 0 ? accountIds("postgres") : undefined;
  if (owner) chownSync(root, owner.uid, owner.gid);
  const as = owner ? { uid: owner.uid, gid: owner.gid } : {};
  const env = { ...process.env, LC_ALL: "C", PGTZ: "UTC" };
  const data = join(root, "data");
  const run = (program: string, args: string[]) =>
    spawnSync(join(bin, program), args, { ...as, env, encoding: "utf8", cwd: root });
  const init = run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  if (init.status !== 0) {
    rmSync(root, { recursive: true, force: true });
    throw new Error(`initdb failed: ${init.stderr}`);
  }
  const options = `-c listen_addresses='' -k ${root} -c fsync=off -c unix_socket_permissions=0777`;
  const start = run("pg_ctl", ["-D", data, "-o", options, "-l", join(root, "log"), "-w", "-s", "start"]);
  if (start.status !== 0) {
    const log = spawnSync("cat", [join(root, "log")], { encoding: "utf8" }).stdout;
    rmSync(root, { recursive: true, force: true });
    throw new Error(`pg_ctl start failed: ${start.stderr}${log}`);
  }
  return {
    socketDir: root,
    sql(statement, database = "postgres") {
      const out = spawnSync(
        "psql",
        [
          "-X",
          "-q",
          "-A",
          "-t",
          "-h",
          root,
          "-U",
          "postgres",
          "-d",
          database,
          "-v",
          "ON_ERROR_STOP=1",
          "-c",
          statement,
        ],
        { encoding: "utf8" },
      );
      if (out.status !== 0) throw new Error(`psql: ${out.stderr}`);
      return out.stdout.split("\n").filter((line) => line !== "");
    },
    stop() {
      run("pg_ctl", ["-D", data, "-m", "immediate", "-s", "stop"]);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** The name of the user running the tests (for messages). */
export const testUser = userInfo().username;
