/**
 * databases scenarios (scenarios.ts) run twice each by tend against a
 * throwaway PostgreSQL started in a temporary directory (Unix socket only);
 * skipped, with the reason, where PostgreSQL is not installed.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { runAgent } from "../../../src/agent/run.js";
import { type PgServer, pgUnavailable, startPgServer } from "../../providers/databases/pg-server.js";
import { type DatabasesScenario, databasesScenarios } from "./scenarios.js";

const PRELUDE = `
body database_server pg
{
  db_server_owner => "postgres";
  db_server_password => "";
  db_server_host => "$(main.s)";
  db_server_type => "postgres";
  db_server_connection_db => "postgres";
}
body database_server my
{
  db_server_owner => "root";
  db_server_password => "";
  db_server_host => "localhost";
  db_server_type => "mysql";
  db_server_connection_db => "mysql";
}
body database_server incomplete
{
  db_server_owner => "postgres";
  db_server_type => "postgres";
}
body action warn_only { action_policy => "warn"; }
body classes outcome(p)
{
  promise_kept => { "$(p)_kept" };
  promise_repaired => { "$(p)_repaired" };
  repair_failed => { "$(p)_failed" };
  scope => "namespace";
}
bundle agent end
{
reports:
  "p repaired" if => "p_repaired";
  "p kept" if => "p_kept";
  "p failed" if => "p_failed";
}
`;

function policyText(scenario: DatabasesScenario, socketDir: string): string {
  return `body common control { bundlesequence => { "main", "end" }; }
bundle agent main {
databases:
  ${scenario.promises}
vars:
  "s" string => "${socketDir}";
}
${PRELUDE}`;
}

/** One run's lines: `level: message` for info and above, `R: text` for reports. */
function runOnce(policy: string, workdir: string, socketDir: string): string[] {
  const lines: string[] = [];
  const tidy = (text: string) => text.split(socketDir).join("S").split(policy).join("P");
  runAgent(
    { file: policy, ignoreLocks: true, logLevel: "info", workdir },
    {
      log: (r) => {
        if (["error", "warning", "notice", "info"].includes(r.level))
          lines.push(`${r.level}: ${tidy(r.message)}`);
      },
      report: (text) => lines.push(`R: ${tidy(text)}`),
    },
  );
  return lines;
}

const unavailable = pgUnavailable();
let server: PgServer | undefined;
let startError: string | undefined;

before(() => {
  if (unavailable) return;
  try {
    server = startPgServer();
  } catch (error) {
    startError = (error as Error).message;
  }
});
after(() => server?.stop());

for (const scenario of databasesScenarios) {
  test(`databases scenario ${scenario.name}`, { skip: unavailable ?? false }, (t) => {
    if (!server) {
      t.skip(`the throwaway PostgreSQL did not start: ${startError}`);
      return;
    }
    for (const statement of scenario.setup ?? []) {
      const [db, sql] = /^(\w+):(.*)$/.exec(statement)?.slice(1) ?? ["postgres", statement];
      server.sql(sql as string, db);
    }
    const root = mkdtempSync(join(tmpdir(), "tend-databases-scenario-"));
    try {
      const policy = join(root, "policy.cf");
      writeFileSync(policy, policyText(scenario, server.socketDir));
      const workdir = join(root, "wd");
      assert.deepEqual(runOnce(policy, workdir, server.socketDir), scenario.first, "first run");
      assert.deepEqual(runOnce(policy, workdir, server.socketDir), scenario.second, "second run");
      const { sql, db, rows } = scenario.state;
      const state = server.sql(sql, db);
      assert.deepEqual(state, rows, "server state");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
}
