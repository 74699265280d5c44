/**
 * `databases` promises, as 3.21's verify_databases.c keeps them: SQL
 * databases and tables on PostgreSQL through the databases provider (see
 * sql.ts), MySQL refused as by a cf-agent built without its client, and
 * the Windows registry (`ms_registry`) checked and otherwise left alone, as
 * 3.21 does off Windows.
 *
 * Debian's cf-agent 3.21 is built without PostgreSQL and MySQL clients: it
 * logs "There is no PostgreSQL support compiled into this version" and
 * fails every SQL promise. tend does what 3.21 does with the client.
 */
import type { Outcome } from "../outcome.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "../contract.js";
import { checkDatabaseSanity, readDatabaseAttributes } from "./attributes.js";
import { verifySqlPromise } from "./sql.js";

function evaluateDatabase(promise: ActivePromise, env: PromiseEnvironment): Outcome {
  const a = readDatabaseAttributes(promise);
  if (!checkDatabaseSanity(a, promise, env)) return "failed";
  if (a.type === "sql") return verifySqlPromise(promise, env, a);
  if (a.type === "ms_registry") return "kept";
  // 3.21 crashes here (it compares the missing type with "sql").
  env.log.error(
    `Database promise '${promise.promiser}' has no database_type; expected "sql" or "ms_registry"`,
  );
  return "failed";
}

export const databasesPromiseType: PromiseType = {
  name: "databases",
  oncePerRun: true,
  evaluate: evaluateDatabase,
};
