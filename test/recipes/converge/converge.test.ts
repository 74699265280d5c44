/**
 * Converge semantics of the recipes front end (issue 17, must-show 3):
 * guards, lazy values, delayed (de-duplicated) / immediate / before
 * notifications, subscriptions, ignore-failure, a failure stopping the
 * run, handlers on success and failure, why-run, and a second run that
 * changes nothing. Files live in a temporary directory; services are a
 * fake machine kept in memory.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { HandlerRunStatus } from "../../../src/recipes/dsl.js";
import { compile, fakeService, fakeServices, run, tempDir } from "./helpers.js";

test("guards: onlyIf and notIf as functions and commands, creates; evaluated at converge time", async (t) => {
  const dir = tempDir(t);
  const marker = join(dir, "marker");
  const collection = await compile((r) => {
    r.file(marker, { content: "x" });
    r.file(join(dir, "a"), { content: "a", onlyIf: () => existsSync(marker) });
    r.file(join(dir, "b"), { content: "b", notIf: `test -e ${marker}` });
    r.file(join(dir, "c"), { content: "c", onlyIf: "false" });
    r.execute(`touch ${join(dir, "d")}`, { creates: marker });
  });
  const { journal, status } = await run(collection);
  assert.deepEqual(journal, [
    `file[${marker}] create updated`,
    `file[${join(dir, "a")}] create updated`,
    `file[${join(dir, "b")}] create skipped (not_if)`,
    `file[${join(dir, "c")}] create skipped (only_if)`,
    `execute[touch ${join(dir, "d")}] run skipped (creates)`,
  ]);
  assert.equal(existsSync(join(dir, "a")), true);
  assert.equal(existsSync(join(dir, "d")), false);
  assert.equal(status.allResources.filter((s) => s.skipped).length, 3);
});

test("lazy values are computed right before their resource converges", async (t) => {
  const dir = tempDir(t);
  const collection = await compile((r) => {
    r.file(join(dir, "first"), { content: "one" });
    r.file(join(dir, "second"), {
      content: r.lazy(() => `first says ${readFileSync(join(dir, "first"), "utf8")}`),
      mode: r.lazy(() => "0600"),
    });
  });
  const lazyParam = collection.toCatalog().resources[1]?.parameters.content;
  assert.ok(typeof lazyParam === "object" && lazyParam !== null && "lazy" in lazyParam);
  await run(collection);
  assert.equal(readFileSync(join(dir, "second"), "utf8"), "first says one");
});

test("delayed notifications run once at the end; immediate right after; before ahead of the notifier", async (t) => {
  const dir = tempDir(t);
  const machine = fakeServices();
  machine.running.add("web");
  const collection = await compile((r) => {
    r.service("web", { ...fakeService("web") });
    r.file(join(dir, "one"), { content: "1", notifies: r.notifies("restart", "service[web]", "delayed") });
    r.file(join(dir, "two"), {
      content: "2",
      notifies: [
        r.notifies("restart", "service[web]", "delayed"),
        r.notifies("run", "execute[now]", "immediately"),
      ],
    });
    r.execute("now", { command: `touch ${join(dir, "now")}`, action: "nothing" });
    r.file(join(dir, "three"), {
      content: "3",
      notifies: r.notifies("write", "log[before three]", "before"),
    });
    r.log("before three", { action: "nothing" });
    r.file(join(dir, "same"), {
      content: "",
      notifies: r.notifies("run", "execute[now]", "immediately"),
      action: "create_if_missing",
      onlyIf: "false",
    });
  });
  const { journal } = await run(collection, { system: { tools: machine.tools } });
  assert.deepEqual(journal, [
    "service[web] nothing up-to-date",
    `file[${join(dir, "one")}] create updated`,
    `file[${join(dir, "two")}] create updated`,
    "execute[now] run updated (notified)",
    "execute[now] nothing up-to-date",
    "log[before three] write updated (notified)",
    `file[${join(dir, "three")}] create updated`,
    "log[before three] nothing up-to-date",
    `file[${join(dir, "same")}] create_if_missing skipped (only_if)`,
    "service[web] restart updated (notified)",
  ]);
  assert.deepEqual(
    machine.calls.filter((c) => c.startsWith("restart")),
    ["restart web"],
  );
});

test("subscriptions: the subscriber's action runs when the source changes, not otherwise", async (t) => {
  const dir = tempDir(t);
  const machine = fakeServices();
  machine.running.add("db");
  const recipe = (r: Parameters<Parameters<typeof compile>[0]>[0]) => {
    r.file(join(dir, "db.conf"), { content: "port 5432\n" });
    r.service("db", {
      ...fakeService("db"),
      subscribes: r.subscribes("restart", `file[${join(dir, "db.conf")}]`),
    });
    r.execute("reindex", {
      command: `echo x >> ${join(dir, "reindexed")}`,
      action: "nothing",
      subscribes: r.subscribes("run", `file[${join(dir, "db.conf")}]`, "immediately"),
    });
  };
  const first = await run(await compile(recipe), { system: { tools: machine.tools } });
  assert.deepEqual(first.journal, [
    `file[${join(dir, "db.conf")}] create updated`,
    "execute[reindex] run updated (notified)",
    "service[db] nothing up-to-date",
    "execute[reindex] nothing up-to-date",
    "service[db] restart updated (notified)",
  ]);
  const second = await run(await compile(recipe), { system: { tools: machine.tools } });
  assert.ok(second.journal.every((line) => !line.includes("notified")));
  assert.equal(readFileSync(join(dir, "reindexed"), "utf8"), "x\n");
});

test("a failed resource stops the run; ignoreFailure goes on; delayed notifications still run", async (t) => {
  const dir = tempDir(t);
  const collection = await compile((r) => {
    r.file(join(dir, "one"), { content: "1", notifies: r.notifies("write", "log[end]") });
    r.execute("false", { ignoreFailure: true });
    r.file(join(dir, "two"), { content: "2" });
    r.execute("exit 3");
    r.file(join(dir, "three"), { content: "3" });
    r.log("end", { action: "nothing" });
  });
  const { journal, status } = await run(collection);
  assert.deepEqual(journal, [
    `file[${join(dir, "one")}] create updated`,
    "execute[false] run failed",
    `file[${join(dir, "two")}] create updated`,
    "execute[exit 3] run failed",
    "log[end] write updated (notified)",
  ]);
  assert.equal(status.success, false);
  assert.equal(status.exception?.resource, "execute[exit 3]");
  assert.match(status.exception?.message ?? "", /Expected process to exit with \[0\], but received '3'/);
  assert.equal(existsSync(join(dir, "three")), false);
  const ignored = status.allResources.find((s) => s.ref === "execute[false]");
  assert.equal(ignored?.ignoredFailure, true);
});

test("report handlers run on success, exception handlers on failure, with the run status", async (t) => {
  const dir = tempDir(t);
  const seen: { kind: string; status: HandlerRunStatus }[] = [];
  const ok = await compile((r) => {
    r.file(join(dir, "a"), { content: "a" });
    r.file(join(dir, "b"), { content: "b", action: "create_if_missing" });
    r.onReport((status) => void seen.push({ kind: "report", status }));
    r.onException((status) => void seen.push({ kind: "exception", status }));
  });
  writeFileSync(join(dir, "b"), "already");
  await run(ok);
  assert.equal(seen.length, 1);
  const report = seen[0];
  assert.equal(report?.kind, "report");
  assert.equal(report?.status.success, true);
  assert.deepEqual(
    report?.status.allResources.map((s) => s.ref),
    [`file[${join(dir, "a")}]`, `file[${join(dir, "b")}]`],
  );
  assert.deepEqual(
    report?.status.updatedResources.map((s) => s.ref),
    [`file[${join(dir, "a")}]`],
  );
  assert.equal(typeof report?.status.elapsedMs, "number");
  assert.equal(report?.status.exception, undefined);

  seen.length = 0;
  const failing = await compile((r) => {
    r.execute("exit 7");
    r.onReport((status) => void seen.push({ kind: "report", status }));
    r.onException((status) => void seen.push({ kind: "exception", status }));
  });
  const outcome = await run(failing, { reportHandlers: [() => assert.fail("report handler on failure")] });
  assert.equal(outcome.status.success, false);
  assert.deepEqual(
    seen.map((s) => s.kind),
    ["exception"],
  );
  assert.equal(seen[0]?.status.exception?.resource, "execute[exit 7]");
});

test("why-run: every resource says what it would do, guards and notifications included; nothing changes", async (t) => {
  const dir = tempDir(t);
  const machine = fakeServices();
  const collection = await compile((r) => {
    r.directory(join(dir, "etc"), { mode: "0750" });
    r.file(join(dir, "etc", "app.conf"), {
      content: "x=1\n",
      notifies: r.notifies("restart", "service[app]", "delayed"),
    });
    r.execute("never", { command: "exit 1", onlyIf: "false" });
    r.service("app", { ...fakeService("app"), action: ["start"] });
  });
  const { events, journal, status } = await run(collection, {
    whyRun: true,
    system: { tools: machine.tools },
  });
  assert.deepEqual(journal, [
    `directory[${join(dir, "etc")}] create updated`,
    `file[${join(dir, "etc", "app.conf")}] create updated`,
    "Would have notified Service[app] to restart (delayed)",
    "execute[never] run skipped (only_if)",
    "service[app] start updated",
    // As in Chef's why-run, the notified action runs in why-run and says what it would do.
    "service[app] restart updated (notified)",
  ]);
  const file = events.find((e) => e.kind === "action" && e.ref.endsWith("app.conf]"));
  assert.ok(file?.kind === "action" && file.whyRun);
  assert.deepEqual(file?.kind === "action" ? file.lines : [], [
    `create new file ${join(dir, "etc", "app.conf")}`,
    `update content in file ${join(dir, "etc", "app.conf")} from none to 98752e`,
  ]);
  assert.equal(existsSync(join(dir, "etc")), false);
  assert.deepEqual(
    machine.calls.filter((c) => !c.startsWith("status")),
    [],
  );
  assert.equal(status.whyRun, true);
  assert.equal(status.updatedResources.length, 3);
  const restart = events.find((e) => e.kind === "action" && e.notified);
  assert.ok(restart?.kind === "action" && restart.whyRun);
});

test("a second run changes nothing", async (t) => {
  const dir = tempDir(t);
  const machine = fakeServices();
  const recipe = (r: Parameters<Parameters<typeof compile>[0]>[0]) => {
    r.directory(join(dir, "srv"), { mode: "0755" });
    r.file(join(dir, "srv", "index.html"), { content: "hello\n", mode: "0644" });
    r.link(join(dir, "current"), { to: join(dir, "srv") });
    r.template(join(dir, "srv", "conf"), { source: join(dir, "conf.mustache"), variables: { port: 80 } });
    r.service("www", { ...fakeService("www"), action: ["start"] });
    r.execute(`touch ${join(dir, "ran")}`, { creates: join(dir, "ran") });
  };
  writeFileSync(join(dir, "conf.mustache"), "listen {{port}}\n");
  const first = await run(await compile(recipe), { system: { tools: machine.tools } });
  assert.equal(first.status.updatedResources.length, 6);
  assert.equal(readFileSync(join(dir, "srv", "conf"), "utf8"), "listen 80\n");
  const second = await run(await compile(recipe), { system: { tools: machine.tools } });
  assert.equal(second.status.success, true);
  assert.deepEqual(
    second.status.updatedResources.map((s) => s.ref),
    [],
  );
});
