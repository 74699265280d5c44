import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { createEvalContext } from "../../src/eval/setup.js";
import { parseVarRef } from "../../src/eval/var-ref.js";

const ENV_DATA =
  "users_high\nvalue_users=1.00\nav_users=0.70\n@listening_ports={'22','5308'}\n@none={}\nloadavg_high\n";

function withEnvData(age: number, check: (workdir: string) => void): void {
  const workdir = mkdtempSync(join(tmpdir(), "tend-mon-"));
  try {
    mkdirSync(join(workdir, "state"));
    const file = join(workdir, "state", "env_data");
    writeFileSync(file, ENV_DATA);
    const when = new Date(Date.now() - age);
    utimesSync(file, when, when);
    check(workdir);
  } finally {
    rmSync(workdir, { recursive: true, force: true });
  }
}

test("cf-monitord's env_data gives mon variables and hard classes (as 3.21's Get3Environment)", () => {
  withEnvData(0, (workdir) => {
    const ctx = createEvalContext({ workdir });
    assert.ok(ctx.isClassDefined("users_high") && ctx.isClassDefined("loadavg_high"));
    assert.deepEqual(ctx.getClassTags("users_high"), ["monitoring", "source=environment", "hardclass"]);
    assert.deepEqual(ctx.getVariable(parseVarRef("mon.value_users")), { type: "string", value: "1.00" });
    assert.deepEqual(ctx.getVariable(parseVarRef("mon.listening_ports"))?.value, ["22", "5308"]);
    assert.deepEqual(ctx.getVariable(parseVarRef("mon.none"))?.value, []);
    assert.ok(ctx.getVariable(parseVarRef("mon.env_time")));
  });
});

test("env_data older than an hour is ignored", () => {
  withEnvData(2 * 60 * 60 * 1000, (workdir) => {
    const ctx = createEvalContext({ workdir });
    assert.ok(!ctx.isClassDefined("users_high"));
    assert.equal(ctx.getVariable(parseVarRef("mon.value_users")), undefined);
  });
});
