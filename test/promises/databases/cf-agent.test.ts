/**
 * What Debian's cf-agent 3.21 does with databases promises: it is built
 * without PostgreSQL and MySQL clients, so every SQL promise fails after
 * "There is no PostgreSQL support compiled into this version". For MySQL
 * tend has no client either, and says and does exactly what cf-agent does;
 * that is compared here with the installed cf-agent (skipped without it).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { type Capture, runCfAgentCapturing, runTendCapturing } from "../scenario-runs.js";

const CF_AGENT = "/usr/bin/cf-agent";

const policy = (promises: string) => `body common control { bundlesequence => { "main" }; }
bundle agent main {
databases:
${promises}
reports:
  "ran";
}
body database_server my { db_server_owner => "root"; db_server_password => ""; db_server_host => "localhost"; db_server_type => "mysql"; db_server_connection_db => "mysql"; }
body database_server pg { db_server_owner => "postgres"; db_server_password => ""; db_server_host => "/nonexistent"; db_server_type => "postgres"; db_server_connection_db => "postgres"; }
`;

const MYSQL = policy(`  "shop" database_operation => "create", database_type => "sql", database_server => my;
  "shop.items" database_operation => "verify", database_type => "sql", database_server => my,
    database_columns => { "a,integer" };`);

const capture: Capture = {
  levels: new Set(["error", "warning", "notice", "info"]),
  relative: (text, dir) => text.split(dir).join("D"),
  snapshot: () => [],
};

function unavailable(): string | undefined {
  if (spawnSync(CF_AGENT, ["-V"]).error) return "cf-agent is not installed";
  if (spawnSync("unshare", ["-m", "true"]).status !== 0)
    return "needs a private mount namespace (unshare -m as root) for cf-agent's work directory";
  return undefined;
}

/** A wrapper running cf-agent with its work directory ($CFA_WD) bound over /var/lib/cfengine3. */
function wrapper(dir: string): string {
  const path = join(dir, "cfa.sh");
  writeFileSync(
    path,
    `#!/bin/sh
W=$CFA_WD
mkdir -p "$W/inputs" "$W/state" "$W/outputs" "$W/modules" && mkdir -p -m 700 "$W/ppkeys"
exec unshare -m sh -c 'mount --bind "$0" /var/lib/cfengine3 && exec "$@"' "$W" ${CF_AGENT} "$@"
`,
  );
  chmodSync(path, 0o755);
  return path;
}

function withDir<T>(body: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), "tend-databases-cfagent-"));
  try {
    return body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("MySQL promises: tend logs and fails as cf-agent 3.21 does", { skip: unavailable() ?? false }, () => {
  withDir((dir) => {
    const file = join(dir, "policy.cf");
    writeFileSync(file, MYSQL);
    const cfAgent = runCfAgentCapturing(wrapper(dir), file, dir, dir, capture);
    const tend = runTendCapturing(file, dir, dir, capture);
    assert.deepEqual(tend.log, cfAgent.log);
    assert.deepEqual(tend.reports, cfAgent.reports);
    assert.ok(
      cfAgent.log.includes("error: Could not connect to the sql_db server for 'shop'"),
      cfAgent.log.join("\n"),
    );
  });
});

test("Debian's cf-agent has no PostgreSQL client: every SQL promise fails", {
  skip: unavailable() ?? false,
}, (t) => {
  if (/libpq/.test(spawnSync("ldd", [CF_AGENT], { encoding: "utf8" }).stdout ?? "")) {
    t.skip("this cf-agent is linked with libpq");
    return;
  }
  withDir((dir) => {
    const file = join(dir, "policy.cf");
    writeFileSync(
      file,
      policy(`  "shop" database_operation => "verify", database_type => "sql", database_server => pg;`),
    );
    const cfAgent = runCfAgentCapturing(wrapper(dir), file, dir, dir, capture);
    assert.deepEqual(cfAgent.log, [
      "info: There is no PostgreSQL support compiled into this version",
      "error: Could not connect an existing database 'shop' - check server configuration?",
      "error: Promise belongs to bundle 'main' in file 'D/policy.cf' near line 4",
    ]);
  });
});
