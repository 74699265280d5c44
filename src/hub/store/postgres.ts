/**
 * The PostgreSQL driver (pg): the same schema and statements as SQLite's,
 * through a small pool. An ingest is one transaction: the node upserted,
 * the run inserted with ON CONFLICT (run_id) DO NOTHING (a concurrent copy
 * of the same run waits for the first and then inserts nothing), then its
 * results and lines in one statement each (`unnest` over arrays, one round
 * trip whatever their number). Migrations run under an advisory lock, so
 * two hubs starting on one database do not apply them twice.
 */
import { createRequire } from "node:module";
import type { Pool, PoolClient } from "pg";
import type { NodeReport } from "../../reporting/report.js";
import {
  ADD_TOKEN_SQL,
  COUNTS_SQL,
  countsRow,
  dayRow,
  ADD_DAY_SQL,
  dayParams,
  dayStart,
  FLEET_HISTORY_SQL,
  fleetQueries,
  fleetRow,
  INSERT_RULE_COMPLIANCE_SQL,
  INSERT_RUN_COMPLIANCE_SQL,
  INSERT_RUN_SQL,
  LATEST_RULE_COMPLIANCE_SQL,
  LINES_SQL,
  latestParams,
  NODE_SQL,
  nodeHistorySql,
  nodesSql,
  nodeParams,
  nodeRow,
  PRUNE_SQL,
  REVOKE_TOKEN_SQL,
  RUN_COMPLIANCE_SQL,
  RUN_DIGEST_SQL,
  RUN_IDS_SQL,
  RUN_TOTALS_SQL,
  RUN_SQL,
  RUNS_SQL,
  resultsQuery,
  runParams,
  runRow,
  runTotalRow,
  statusCounts,
  TOKEN_VALID_SQL,
  TOKENS_SQL,
  tokenRow,
  UPDATE_LATEST_SQL,
  upsertNodeSql,
} from "./queries.js";
import { MIGRATIONS_TABLE, migrations } from "./schema.js";
import {
  type FleetQuery,
  type HubStore,
  type IngestMeta,
  type IngestResult,
  type ResultFilter,
  resultMessage,
} from "./store.js";

type Row = Record<string, unknown>;

const MIGRATION_LOCK = 0x74656e64; // "tend"

/** `?` placeholders numbered as PostgreSQL wants them ($1, $2…); the statements hold no `?` of their own. */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** Connects to `url` (postgres://…, or options libpq reads from the environment) and migrates. */
export async function openPostgresStore(url: string, poolSize = 8): Promise<HubStore> {
  // require, not import(): the bundled CLI runs in node:vm, which has no dynamic import.
  const PoolClass = (createRequire(import.meta.url)("pg") as { Pool: typeof Pool }).Pool;
  const pool = new PoolClass({ connectionString: url, max: poolSize });
  // An idle client losing its server must not take the hub down: the next query reconnects.
  pool.on("error", () => {});
  try {
    await migrate(pool);
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
  return new PostgresStore(pool);
}

async function migrate(pool: Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    await client.query(MIGRATIONS_TABLE);
    const applied = new Set(
      (await client.query("SELECT version FROM hub_migrations")).rows.map((r: Row) => Number(r.version)),
    );
    for (const { version, statements } of migrations("postgres")) {
      if (applied.has(version)) continue;
      await client.query("BEGIN");
      try {
        for (const statement of statements) await client.query(statement);
        await client.query("INSERT INTO hub_migrations (version, applied) VALUES ($1, $2)", [
          version,
          new Date().toISOString(),
        ]);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw error;
      }
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
}

const INSERT_RESULTS_SQL = `INSERT INTO results (run, seq, type, promiser, handle, bundle, file, line, outcome, message)
  SELECT $1::bigint, * FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[], $9::text[], $10::text[])`;
const INSERT_LINES_SQL =
  "INSERT INTO report_lines (run, seq, line) SELECT $1::bigint, * FROM unnest($2::int[], $3::text[])";

/** PostgreSQL text cannot hold NUL; JSON can. Stored as U+FFFD, as the one lossy step. */
function pgText(value: string): string {
  return value.includes("\u0000") ? value.replace(/\u0000/g, "\ufffd") : value;
}

class PostgresStore implements HubStore {
  readonly kind = "postgres";
  private readonly upsertNode = numbered(upsertNodeSql("postgres"));

  constructor(private readonly pool: Pool) {}

  private async query(sql: string, params: unknown[] = []): Promise<Row[]> {
    return (await this.pool.query(numbered(sql), params)).rows as Row[];
  }

  async ingest(report: NodeReport, meta: IngestMeta): Promise<IngestResult> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      const result = await this.write(client, report, meta);
      await client.query(result === "stored" ? "COMMIT" : "ROLLBACK");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  private async write(client: PoolClient, report: NodeReport, meta: IngestMeta): Promise<IngestResult> {
    const clean = (params: unknown[]) => params.map((p) => (typeof p === "string" ? pgText(p) : p));
    await client.query(this.upsertNode, clean(nodeParams(report, meta)));
    const inserted = await client.query(
      `${numbered(INSERT_RUN_SQL)} RETURNING id`,
      clean(runParams(report, meta)),
    );
    if (inserted.rowCount === 0) {
      const row = (await client.query(numbered(RUN_DIGEST_SQL), [report.runId])).rows[0] as Row | undefined;
      return row?.digest === meta.digest ? "duplicate" : "conflict";
    }
    const run = (inserted.rows[0] as Row).id;
    const promises = report.run.promises;
    if (promises.length > 0) {
      const column = (pick: (p: (typeof promises)[number]) => string) => promises.map((p) => pgText(pick(p)));
      await client.query(INSERT_RESULTS_SQL, [
        run,
        promises.map((_, i) => i),
        column((p) => p.type),
        column((p) => p.promiser),
        column((p) => p.handle),
        column((p) => p.bundle),
        column((p) => p.file),
        promises.map((p) => p.line),
        column((p) => p.outcome),
        column((p) => resultMessage(p)),
      ]);
    }
    if (report.lines.length > 0)
      await client.query(INSERT_LINES_SQL, [run, report.lines.map((_, i) => i), report.lines.map(pgText)]);
    const compliance = meta.compliance;
    if (compliance) {
      await client.query(
        numbered(INSERT_RUN_COMPLIANCE_SQL),
        clean([run, compliance.rudderNode, compliance.compliance, compliance.json]),
      );
      for (const rule of compliance.rules)
        await client.query(numbered(INSERT_RULE_COMPLIANCE_SQL), clean([run, rule.ruleId, rule.details]));
    }
    await client.query(numbered(UPDATE_LATEST_SQL), clean(latestParams(report, run)));
    // Last: the day's row is shared by every node, so it stays locked only until the commit.
    await client.query(numbered(ADD_DAY_SQL), dayParams(report));
    return "stored";
  }

  async prune(cutoff: Date): Promise<number> {
    return (await this.pool.query(numbered(PRUNE_SQL), [cutoff.toISOString()])).rowCount ?? 0;
  }

  async nodes() {
    return (await this.query(nodesSql("postgres"))).map(nodeRow);
  }

  async fleet(query: FleetQuery) {
    const clean = (params: readonly unknown[]) => params.map((p) => (typeof p === "string" ? pgText(p) : p));
    const { counts, matching, page } = fleetQueries("postgres", query);
    const [countRows, matchingRows, pageRows] = await Promise.all([
      this.query(counts.sql, clean(counts.params)),
      matching ? this.query(matching.sql, clean(matching.params)) : Promise.resolve(undefined),
      this.query(page.sql, clean(page.params)),
    ]);
    const byStatus = statusCounts(countRows);
    const total = Object.values(byStatus).reduce((a, b) => a + b, 0);
    return {
      counts: byStatus,
      total,
      matching: matchingRows ? Number(matchingRows[0]?.n ?? 0) : total,
      nodes: pageRows.map(fleetRow),
    };
  }

  async node(id: string) {
    const row = (await this.query(NODE_SQL, [pgText(id)]))[0];
    return row && nodeRow(row);
  }

  async runs(nodeId: string, limit: number) {
    return (await this.query(RUNS_SQL, [pgText(nodeId), limit])).map(runRow);
  }

  async run(runId: string) {
    const row = (await this.query(RUN_SQL, [pgText(runId)]))[0];
    return row && runRow(row);
  }

  async results(runId: string, filter?: ResultFilter) {
    const { sql, params } = resultsQuery(runId, filter);
    return (
      await this.query(
        sql,
        params.map((p) => (typeof p === "string" ? pgText(p) : p)),
      )
    ).map((r) => ({
      seq: Number(r.seq),
      type: String(r.type),
      promiser: String(r.promiser),
      handle: String(r.handle),
      bundle: String(r.bundle),
      file: String(r.file),
      line: Number(r.line),
      outcome: String(r.outcome),
      message: String(r.message),
    }));
  }

  async history(since: Date, nodeId?: string) {
    const start = dayStart(since);
    const rows =
      nodeId === undefined
        ? await this.query(FLEET_HISTORY_SQL, [start.day])
        : await this.query(nodeHistorySql("postgres"), [pgText(nodeId), start.time]);
    return rows.map(dayRow);
  }

  async runCompliance(runId: string) {
    const row = (await this.query(RUN_COMPLIANCE_SQL, [pgText(runId)]))[0];
    return row && String(row.detail);
  }

  async latestRuleCompliance() {
    return (await this.query(LATEST_RULE_COMPLIANCE_SQL)).map((r) => ({
      ruleId: String(r.rule_id),
      details: String(r.details),
    }));
  }

  async lines(runId: string) {
    return (await this.query(LINES_SQL, [pgText(runId)])).map((r) => String(r.line));
  }

  async counts() {
    return countsRow((await this.query(COUNTS_SQL))[0] as Row);
  }

  async runTotals() {
    return (await this.query(RUN_TOTALS_SQL)).map(runTotalRow);
  }

  async runIds() {
    return (await this.query(RUN_IDS_SQL)).map((r) => String(r.run_id));
  }

  async addToken(id: string, name: string, hash: string, created: Date) {
    await this.query(ADD_TOKEN_SQL, [id, pgText(name), hash, created.toISOString()]);
  }

  async tokens() {
    return (await this.query(TOKENS_SQL)).map(tokenRow);
  }

  async revokeToken(id: string, when: Date) {
    return (
      ((await this.pool.query(numbered(REVOKE_TOKEN_SQL), [when.toISOString(), pgText(id)])).rowCount ?? 0) >
      0
    );
  }

  async tokenValid(hash: string) {
    return (await this.query(TOKEN_VALID_SQL, [pgText(hash)])).length > 0;
  }

  async close() {
    await this.pool.end();
  }
}
