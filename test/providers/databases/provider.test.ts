/**
 * The databases provider without a server: the client's command line (no
 * shell, no password on it), the rows it reads back, names refused before
 * any statement is sent, and changes returned as data in a dry run.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { connectSql, postgresConnInfo } from "../../../src/providers/databases/connection.js";
import type { ProgramRunner } from "../../../src/providers/databases/runner.js";
import {
  addColumn,
  createTable,
  listDatabases,
  parseColumn,
} from "../../../src/providers/databases/schema.js";

const server = { type: "postgres", host: "/run/pg", user: "u", password: "secret" } as const;

function recording(stdout = ""): {
  run: ProgramRunner;
  calls: { argv: readonly string[]; env: Record<string, string> }[];
} {
  const calls: { argv: readonly string[]; env: Record<string, string> }[] = [];
  return {
    calls,
    run: (argv, env) => {
      calls.push({ argv, env: { ...env } });
      return { status: 0, stdout, stderr: "" };
    },
  };
}

test("the connection string is 3.21's, without the password; localhost means the default socket", () => {
  assert.equal(postgresConnInfo(server, "app"), "dbname=app host=/run/pg user=u");
  assert.equal(postgresConnInfo({ ...server, host: "localhost" }, "app"), "dbname=app user=u");
});

test("psql runs without a shell, the password in PGPASSWORD, rows split on control characters", () => {
  const { run, calls } = recording("a\u001fb\u001ec\u001fd\n");
  const conn = connectSql(server, "app", { run });
  assert.equal(conn.connected, true);
  const result = listDatabases(conn);
  assert.deepEqual(result.rows, [
    ["a", "b"],
    ["c", "d"],
  ]);
  for (const call of calls) {
    assert.equal(call.argv[0], "psql");
    assert.ok(!call.argv.some((a) => a.includes("secret")));
    assert.equal(call.env.PGPASSWORD, "secret");
  }
});

test("a failed connection keeps the client's message without psql's prefix", () => {
  const run: ProgramRunner = () => ({ status: 2, stdout: "", stderr: "psql: error: connection refused\n" });
  const conn = connectSql(server, "app", { run });
  assert.equal(conn.connected, false);
  assert.equal(conn.error, "connection refused");
});

test("MySQL and no server type are never connected", () => {
  assert.equal(connectSql({ ...server, type: "mysql" }, "x").error, "no-client");
  assert.equal(connectSql({ ...server, type: undefined }, "x").error, "no-type");
});

test("names and types that are not plain SQL are refused before anything is sent", () => {
  const { run, calls } = recording();
  const conn = connectSql(server, "app", { run });
  const sent = calls.length;
  const table = createTable(conn, "t; drop table x", [{ name: "a", type: "integer", size: 0 }], false);
  assert.equal(table.done, false);
  const column = addColumn(conn, "t", { name: "a", type: "int); drop table x; --", size: 0 }, false);
  assert.equal(column.done, false);
  assert.equal(calls.length, sent);
});

test("a dry run returns the change as data and sends nothing", () => {
  const { run, calls } = recording();
  const conn = connectSql(server, "app", { run });
  const sent = calls.length;
  const change = addColumn(conn, "t", { name: "b", type: "varchar", size: 20 }, true);
  assert.deepEqual(change, {
    property: "column",
    old: null,
    new: "b varchar(20)",
    message: "ALTER TABLE t ADD b varchar(20)",
    done: true,
  });
  assert.equal(calls.length, sent);
});

test("columns parse as 3.21's NAME,TYPE[,SIZE]", () => {
  assert.deepEqual(parseColumn("name,varchar,256"), { name: "name", type: "varchar", size: 256 });
  assert.deepEqual(parseColumn("id,integer"), { name: "id", type: "integer", size: 0 });
  assert.equal(parseColumn("id"), undefined);
});
