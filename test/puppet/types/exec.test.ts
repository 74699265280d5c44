import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { Catalog, CatalogResource } from "../../../src/catalog/model.js";
import type { ApplyContext, ResourceResult } from "../../../src/catalog/resource-type.js";
import { puppetTypes } from "../../../src/puppet/types/index.js";
import { type LogRecord, Logger } from "../../../src/system/logger.js";
import { scratchDirectory } from "../../scratch.js";

// Puppet 7.23's behaviour for these cases is recorded in test/fixtures/puppet/exec-*/.

const catalog: Catalog = {
  name: "n",
  environment: "production",
  version: "1",
  resources: [],
  edges: [],
  classes: [],
};
const exec = puppetTypes.get("exec")!;

interface Logs {
  own: LogRecord[];
  run: LogRecord[];
}

function context(noop = false): { ctx: ApplyContext; logs: Logs } {
  const logs: Logs = { own: [], run: [] };
  const ctx: ApplyContext = {
    noop,
    logger: new Logger((r) => logs.own.push(r), "info"),
    runLogger: new Logger((r) => logs.run.push(r), "info"),
    run: {},
    catalog,
  };
  return { ctx, logs };
}

function resource(title: string, parameters: CatalogResource["parameters"] = {}): CatalogResource {
  return { type: "Exec", title, parameters, tags: ["exec"] };
}

const ran = (message = "executed successfully") => [
  {
    property: "returns",
    previousValue: "notrun",
    desiredValue: ["0"],
    name: "executed_command",
    status: "success",
    message,
  },
];

async function apply(r: CatalogResource, noop = false): Promise<ResourceResult & { logs: Logs }> {
  const { ctx, logs } = context(noop);
  assert.deepEqual(exec.validate?.(r) ?? [], []);
  return { ...(await exec.apply(r, ctx)), logs };
}

test("exec: an unqualified command without path is refused with Puppet's words", () => {
  assert.deepEqual(exec.validate?.(resource("touch x")), [
    "'touch' is not qualified and no path was specified. Please qualify the command or specify a path.",
  ]);
  assert.deepEqual(exec.validate?.(resource("touch x", { path: "/bin" })), []);
  assert.deepEqual(exec.validate?.(resource("touch x", { provider: "shell" })), []);
  assert.deepEqual(exec.validate?.(resource("/bin/true", { tries: "x" })), ["Tries must be an integer"]);
  assert.deepEqual(exec.validate?.(resource("/bin/true", { environment: "x" })), [
    "Invalid environment setting 'x'",
  ]);
});

test("exec: creates, unless and onlyif decide whether it runs", async () => {
  const root = scratchDirectory("tend-exec-");
  writeFileSync(join(root, "present"), "here\n");
  const touch = (name: string, extra: CatalogResource["parameters"]) =>
    resource(name, { command: `/bin/touch ${join(root, name)}`, ...extra });
  assert.deepEqual((await apply(touch("c1", { creates: join(root, "present") }))).events, []);
  assert.deepEqual((await apply(touch("c2", { creates: join(root, "absent") }))).events, ran());
  assert.deepEqual((await apply(touch("u1", { unless: "/bin/true" }))).events, []);
  assert.deepEqual((await apply(touch("u2", { unless: [["/bin/false"]] }))).events, ran());
  assert.deepEqual((await apply(touch("o1", { onlyif: ["/bin/true", "/bin/false"] }))).events, []);
  assert.deepEqual((await apply(touch("o2", { onlyif: "/bin/true" }))).events, ran());
  assert.deepEqual((await apply(touch("r1", { refreshonly: true }))).events, []);
  assert.equal(
    existsSync(join(root, "c2")) && existsSync(join(root, "u2")) && existsSync(join(root, "o2")),
    true,
  );
  assert.equal(
    existsSync(join(root, "c1")) || existsSync(join(root, "u1")) || existsSync(join(root, "o1")),
    false,
  );
});

test("exec: a status outside returns fails with Puppet's message and logs the output", async () => {
  const result = await apply(
    resource("fail", { command: '/bin/sh -c "echo first; echo second >&2; exit 2"' }),
  );
  const detail = `'/bin/sh -c "echo first; echo second >&2; exit 2"' returned 2 instead of one of [0]`;
  assert.equal(result.failed, detail);
  assert.equal(result.events[0]?.status, "failure");
  assert.equal(result.events[0]?.message, `change from 'notrun' to ['0'] failed: ${detail}`);
  assert.deepEqual(result.logs.own, [
    { level: "notice", message: "first" },
    { level: "notice", message: "second" },
  ]);
  assert.deepEqual(result.logs.run, [{ level: "error", message: detail }]);
  const accepted = await apply(resource("three", { command: '/bin/sh -c "exit 3"', returns: [0, 3] }));
  assert.deepEqual(accepted.events[0]?.desiredValue, ["0", "3"]);
  assert.equal(accepted.failed, undefined);
  const quiet = await apply(resource("q", { command: "/bin/echo hidden", logoutput: false, returns: 1 }));
  assert.deepEqual(quiet.logs.own, []);
});

test("exec: cwd, environment and path reach the command; HOME is not passed on", async () => {
  const root = scratchDirectory("tend-exec-");
  mkdirSync(join(root, "work"));
  await apply(resource("pwd > where", { cwd: join(root, "work"), path: "/usr/bin:/bin", provider: "shell" }));
  assert.equal(readFileSync(join(root, "work/where"), "utf8"), `${join(root, "work")}\n`);
  const env = join(root, "env.txt");
  await apply(
    resource("env", {
      command: `echo "$GREETING $WHO [\${HOME-nohome}]" > ${env}`,
      environment: ["GREETING=hello", "WHO=world"],
      provider: "shell",
    }),
  );
  assert.equal(readFileSync(env, "utf8"), "hello world [nohome]\n");
  const missing = await apply(resource("/bin/true", { cwd: join(root, "absent") }));
  assert.equal(missing.failed, `Working directory ${join(root, "absent")} does not exist!`);
  const notFound = await apply(resource("no-such-command-anywhere", { path: "/bin" }));
  assert.equal(notFound.failed, "Could not find command 'no-such-command-anywhere'");
});

test("exec: tries until accepted; a timeout fails the command and blocks on a check", async () => {
  const root = scratchDirectory("tend-exec-");
  const count = join(root, "count");
  const lucky = await apply(
    resource("lucky", {
      command: `n=$(cat ${count} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${count}; test $n -ge 3`,
      provider: "shell",
      tries: 3,
    }),
  );
  assert.deepEqual(lucky.events, ran());
  assert.equal(readFileSync(count, "utf8"), "3\n");
  const slow = await apply(resource("/bin/sleep 30", { timeout: 1 }));
  assert.equal(slow.failed, "Command exceeded timeout");
  const check = await apply(resource("/bin/true", { onlyif: "/bin/sleep 30", timeout: 1 }));
  assert.deepEqual(check.events, []);
  assert.deepEqual(check.logs.own, [{ level: "error", message: 'Check "/bin/sleep 30" exceeded timeout' }]);
});

test("exec: noop runs the checks only; refresh runs the refresh command, or the command", async () => {
  const root = scratchDirectory("tend-exec-");
  const log = join(root, "log");
  const noop = await apply(resource("n", { command: `/bin/touch ${join(root, "ran")}` }), true);
  assert.equal(noop.events[0]?.status, "noop");
  assert.equal(noop.events[0]?.message, "current_value 'notrun', should be ['0'] (noop)");
  assert.equal(existsSync(join(root, "ran")), false);
  const withRefresh = resource("r", {
    command: `/bin/sh -c "echo command >> ${log}"`,
    refresh: `/bin/sh -c "echo refresh >> ${log}"`,
    refreshonly: true,
  });
  assert.deepEqual((await apply(withRefresh)).events, []);
  const { ctx } = context();
  assert.deepEqual(await exec.refresh?.(withRefresh, ctx), { events: [] });
  const plain = resource("p", { command: `/bin/sh -c "echo plain >> ${log}"` });
  await exec.refresh?.(plain, ctx);
  const blocked = resource("b", { command: `/bin/sh -c "echo blocked >> ${log}"`, unless: "/bin/true" });
  await exec.refresh?.(blocked, ctx);
  assert.equal(readFileSync(log, "utf8"), "refresh\nplain\n");
});
