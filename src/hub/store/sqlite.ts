/**
 * The SQLite driver (better-sqlite3): one file, WAL journal, foreign keys
 * on. `synchronous = NORMAL` with WAL keeps every committed transaction
 * when the hub process dies (SIGKILL included); only a crash of the whole
 * system may lose the last ones, never corrupt the file. A hub answers a
 * node only after the commit, so a node keeps a report it got no answer for
 * and sends it again, and the run id makes that second copy a duplicate.
 *
 * better-sqlite3 is synchronous: one ingest runs at a time, which is what
 * SQLite's single writer wants anyway.
 */
import { createRequire } from "node:module";
import { dirname } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import type { NodeReport } from "../../reporting/report.js";
import { makeDirectoriesSync } from "../../system/make-directories.js";
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
  resultMessage,
} from "./store.js";

type Row = Record<string, unknown>;

/** Opens (creating it and its directory when missing) and migrates the database file `path`. */
export async function openSqliteStore(path: string): Promise<HubStore> {
  // require, not import(): the bundled CLI runs in node:vm, which has no dynamic import.
  const Database = createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;
  if (path !== ":memory:") makeDirectoriesSync(dirname(path), 0o750);
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 10000");
  migrate(db);
  return new SqliteStore(db);
}

function migrate(db: BetterSqlite3.Database): void {
  db.exec(MIGRATIONS_TABLE);
  const applied = new Set(
    (db.prepare("SELECT version FROM hub_migrations").all() as Row[]).map((r) => Number(r.version)),
  );
  for (const { version, statements } of migrations("sqlite")) {
    if (applied.has(version)) continue;
    db.transaction(() => {
      for (const statement of statements) db.exec(statement);
      db.prepare("INSERT INTO hub_migrations (version, applied) VALUES (?, ?)").run(
        version,
        new Date().toISOString(),
      );
    }).immediate();
  }
}

class SqliteStore implements HubStore {
  readonly kind = "sqlite";
  private readonly insertRun: BetterSqlite3.Statement;
  private readonly upsertNode: BetterSqlite3.Statement;
  private readonly runDigest: BetterSqlite3.Statement;
  private readonly insertResult: BetterSqlite3.Statement;
  private readonly insertLine: BetterSqlite3.Statement;
  private readonly updateLatest: BetterSqlite3.Statement;
  private readonly addDay: BetterSqlite3.Statement;
  private readonly insertRunCompliance: BetterSqlite3.Statement;
  private readonly insertRuleCompliance: BetterSqlite3.Statement;
  private readonly ingestTransaction: (report: NodeReport, meta: IngestMeta) => IngestResult;

  constructor(private readonly db: BetterSqlite3.Database) {
    this.insertRun = db.prepare(INSERT_RUN_SQL);
    this.upsertNode = db.prepare(upsertNodeSql("sqlite"));
    this.runDigest = db.prepare(RUN_DIGEST_SQL);
    this.insertResult = db.prepare(
      "INSERT INTO results (run, seq, type, promiser, handle, bundle, file, line, outcome, message) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    this.insertLine = db.prepare("INSERT INTO report_lines (run, seq, line) VALUES (?, ?, ?)");
    this.updateLatest = db.prepare(UPDATE_LATEST_SQL);
    this.addDay = db.prepare(ADD_DAY_SQL);
    this.insertRunCompliance = db.prepare(INSERT_RUN_COMPLIANCE_SQL);
    this.insertRuleCompliance = db.prepare(INSERT_RULE_COMPLIANCE_SQL);
    const transaction = db.transaction((report: NodeReport, meta: IngestMeta) => this.write(report, meta));
    this.ingestTransaction = (report, meta) => transaction.immediate(report, meta);
  }

  private write(report: NodeReport, meta: IngestMeta): IngestResult {
    this.upsertNode.run(...nodeParams(report, meta));
    const info = this.insertRun.run(...runParams(report, meta));
    if (info.changes === 0) {
      const row = this.runDigest.get(report.runId) as Row | undefined;
      // Rolls the node's update back with the rest: nothing of a refused report is kept.
      throw new Refused(row?.digest === meta.digest ? "duplicate" : "conflict");
    }
    const run = info.lastInsertRowid;
    report.run.promises.forEach((p, seq) => {
      this.insertResult.run(
        run,
        seq,
        p.type,
        p.promiser,
        p.handle,
        p.bundle,
        p.file,
        p.line,
        p.outcome,
        resultMessage(p),
      );
    });
    report.lines.forEach((line, seq) => {
      this.insertLine.run(run, seq, line);
    });
    const compliance = meta.compliance;
    if (compliance) {
      this.insertRunCompliance.run(run, compliance.rudderNode, compliance.compliance, compliance.json);
      for (const rule of compliance.rules) this.insertRuleCompliance.run(run, rule.ruleId, rule.details);
    }
    this.updateLatest.run(...latestParams(report, run));
    this.addDay.run(...dayParams(report));
    return "stored";
  }

  async ingest(report: NodeReport, meta: IngestMeta): Promise<IngestResult> {
    try {
      return this.ingestTransaction(report, meta);
    } catch (error) {
      if (error instanceof Refused) return error.result;
      throw error;
    }
  }

  async prune(cutoff: Date): Promise<number> {
    return this.db.prepare(PRUNE_SQL).run(cutoff.toISOString()).changes;
  }

  async nodes() {
    return (this.db.prepare(nodesSql("sqlite")).all() as Row[]).map(nodeRow);
  }

  async fleet(query: FleetQuery) {
    const { counts, matching, page } = fleetQueries("sqlite", query);
    const byStatus = statusCounts(this.db.prepare(counts.sql).all(...counts.params) as Row[]);
    const total = Object.values(byStatus).reduce((a, b) => a + b, 0);
    return {
      counts: byStatus,
      total,
      matching: matching ? Number((this.db.prepare(matching.sql).get(...matching.params) as Row).n) : total,
      nodes: (this.db.prepare(page.sql).all(...page.params) as Row[]).map(fleetRow),
    };
  }

  async node(id: string) {
    const row = this.db.prepare(NODE_SQL).get(id) as Row | undefined;
    return row && nodeRow(row);
  }

  async runs(nodeId: string, limit: number) {
    return (this.db.prepare(RUNS_SQL).all(nodeId, limit) as Row[]).map(runRow);
  }

  async run(runId: string) {
    const row = this.db.prepare(RUN_SQL).get(runId) as Row | undefined;
    return row && runRow(row);
  }

  async results(runId: string, filter?: Parameters<HubStore["results"]>[1]) {
    const { sql, params } = resultsQuery(runId, filter);
    return (this.db.prepare(sql).all(...params) as Row[]).map((r) => ({
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
        ? this.db.prepare(FLEET_HISTORY_SQL).all(start.day)
        : this.db.prepare(nodeHistorySql("sqlite")).all(nodeId, start.time);
    return (rows as Row[]).map(dayRow);
  }

  async runCompliance(runId: string) {
    const row = this.db.prepare(RUN_COMPLIANCE_SQL).get(runId) as Row | undefined;
    return row && String(row.detail);
  }

  async latestRuleCompliance() {
    return (this.db.prepare(LATEST_RULE_COMPLIANCE_SQL).all() as Row[]).map((r) => ({
      ruleId: String(r.rule_id),
      details: String(r.details),
    }));
  }

  async lines(runId: string) {
    return (this.db.prepare(LINES_SQL).all(runId) as Row[]).map((r) => String(r.line));
  }

  async counts() {
    return countsRow(this.db.prepare(COUNTS_SQL).get() as Row);
  }

  async runTotals() {
    return (this.db.prepare(RUN_TOTALS_SQL).all() as Row[]).map(runTotalRow);
  }

  async runIds() {
    return (this.db.prepare(RUN_IDS_SQL).all() as Row[]).map((r) => String(r.run_id));
  }

  async addToken(id: string, name: string, hash: string, created: Date) {
    this.db.prepare(ADD_TOKEN_SQL).run(id, name, hash, created.toISOString());
  }

  async tokens() {
    return (this.db.prepare(TOKENS_SQL).all() as Row[]).map(tokenRow);
  }

  async revokeToken(id: string, when: Date) {
    return this.db.prepare(REVOKE_TOKEN_SQL).run(when.toISOString(), id).changes > 0;
  }

  async tokenValid(hash: string) {
    return this.db.prepare(TOKEN_VALID_SQL).get(hash) !== undefined;
  }

  async close() {
    this.db.close();
  }
}

/** Thrown inside the transaction to roll it back with the reason. */
class Refused extends Error {
  constructor(readonly result: IngestResult) {
    super(result);
  }
}
