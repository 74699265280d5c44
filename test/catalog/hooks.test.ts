/**
 * The applier's extension points, driven by a fake recipe front end with
 * Chef's semantics: guards evaluated right before a resource runs, lazy
 * values resolved at apply time, notifications immediate / delayed /
 * before, and failure policies (stop the run, ignore the failure).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { type ApplyOptions, applyCatalog, typeRegistry } from "../../src/catalog/apply.js";
import type { ApplierHooks, Notification } from "../../src/catalog/hooks.js";
import type { Catalog, CatalogResource } from "../../src/catalog/model.js";
import { formatReportLog, type RunReport } from "../../src/catalog/report.js";
import { catalogOf, fakeTypes, type Journal, resource } from "./fakes.js";

async function run(
  catalog: Catalog,
  hooks: ApplierHooks,
  options: ApplyOptions = {},
): Promise<{ journal: string[]; report: RunReport; lines: string[] }> {
  const journal: Journal = { entries: [] };
  const report = await applyCatalog(catalog, typeRegistry(fakeTypes(journal)), { ...options, hooks });
  return { journal: journal.entries, report, lines: report.logs.map(formatReportLog) };
}

/** Notifications declared as a recipe would: `notifies` parameters read by the front end. */
function notificationsFrom(resource: CatalogResource): readonly Notification[] {
  const raw = resource.parameters.notifies;
  if (!Array.isArray(raw)) return [];
  return (raw as string[]).map((spec) => {
    const [timing, target] = spec.split(" ") as [Notification["timing"], string];
    return { timing, target };
  });
}

test("a guard skips the resource with its reason; what depends on it still runs", async () => {
  const { journal, report, lines } = await run(
    catalogOf([
      resource("Fake", "guarded", { only_if: false }),
      resource("Fake", "after", { require: "Fake[guarded]" }),
    ]),
    {
      guard: (r) =>
        r.parameters.only_if === false ? { run: false, reason: "only_if returned false" } : { run: true },
    },
  );
  assert.deepEqual(journal, ["apply after"]);
  const status = report.resource_statuses["Fake[guarded]"];
  assert.equal(status?.skipped, true);
  assert.equal(status?.skip_reason, "only_if returned false");
  assert.equal(status?.evaluation_time, null);
  assert.ok(lines.includes("Notice: /Stage[main]/Main/Fake[guarded]: Skipped: only_if returned false"));
});

test("a guard runs right before its resource, after the resources before it changed", async () => {
  const seen: string[] = [];
  const state = { written: false };
  const hooks: ApplierHooks = {
    guard: (r) => {
      seen.push(`${r.title}: written=${state.written}`);
      return { run: true };
    },
  };
  const journal: Journal = { entries: [] };
  const [fake] = fakeTypes(journal);
  const writer = {
    ...fake,
    name: "fake",
    apply: async (r: CatalogResource, c: Parameters<NonNullable<typeof fake>["apply"]>[1]) => {
      if (r.title === "writer") state.written = true;
      return fake!.apply(r, c);
    },
  };
  await applyCatalog(
    catalogOf([resource("Fake", "writer"), resource("Fake", "reader")]),
    typeRegistry([writer]),
    {
      hooks,
    },
  );
  assert.deepEqual(seen, ["writer: written=false", "reader: written=true"]);
});

test("lazy values are resolved at apply time", async () => {
  let counter = 0;
  const applied: unknown[] = [];
  const journal: Journal = { entries: [] };
  const [fake] = fakeTypes(journal);
  const recording = {
    ...fake!,
    apply: async (r: CatalogResource, c: Parameters<NonNullable<typeof fake>["apply"]>[1]) => {
      counter++;
      applied.push(r.parameters.content);
      return fake!.apply(r, c);
    },
  };
  const hooks: ApplierHooks = {
    resolve: (r) =>
      r.parameters.content === "@lazy"
        ? { ...r, parameters: { ...r.parameters, content: `computed after ${counter} applies` } }
        : r,
  };
  await applyCatalog(
    catalogOf([resource("Fake", "one"), resource("Fake", "two", { content: "@lazy" })]),
    typeRegistry([recording]),
    { hooks },
  );
  assert.deepEqual(applied, [undefined, "computed after 1 applies"]);
});

test("a guard or resolve that throws fails its resource", async () => {
  const { report, lines } = await run(catalogOf([resource("Fake", "x")]), {
    resolve: () => {
      throw new Error("lazy value failed");
    },
  });
  assert.equal(report.resource_statuses["Fake[x]"]?.failed, true);
  assert.deepEqual(lines, ["Error: /Stage[main]/Main/Fake[x]: Could not evaluate: lazy value failed"]);
});

test("immediate notifications run the target right after the notifier; delayed once at the end", async () => {
  const { journal, report, lines } = await run(
    catalogOf([
      resource("Fake", "svc", { insync: true }),
      resource("Fake", "conf1", { notifies: ["immediate Fake[svc]", "delayed Fake[svc]"] }),
      resource("Fake", "conf2", { notifies: ["delayed Fake[svc]"] }),
      resource("Fake", "same", { insync: true, notifies: ["immediate Fake[svc]"] }),
      resource("Fake", "last", { insync: true }),
    ]),
    { notifications: notificationsFrom },
  );
  assert.deepEqual(journal, [
    "apply svc",
    "apply conf1",
    "refresh svc",
    "apply conf2",
    "apply same",
    "apply last",
    "refresh svc",
  ]);
  assert.ok(
    lines.includes(
      "Notice: /Stage[main]/Main/Fake[svc]: Triggered 'refresh' by immediate notification from Fake[conf1]",
    ),
  );
  assert.ok(
    lines.includes(
      "Notice: /Stage[main]/Main/Fake[svc]: Triggered 'refresh' by delayed notification from Fake[conf1]",
    ),
  );
  assert.equal(report.resource_statuses["Fake[svc]"]?.restarted, true);
});

test("before notifications run the target first, only when the notifier would change", async () => {
  const { journal } = await run(
    catalogOf([
      resource("Fake", "stop-first", { notifies: ["before Fake[svc]"] }),
      resource("Fake", "unchanged", { insync: true, notifies: ["before Fake[svc2]"] }),
      resource("Fake", "svc", { insync: true }),
      resource("Fake", "svc2", { insync: true }),
    ]),
    { notifications: notificationsFrom },
  );
  assert.deepEqual(journal, [
    "apply stop-first (noop)",
    "refresh svc",
    "apply stop-first",
    "apply unchanged (noop)",
    "apply unchanged",
    "apply svc",
    "apply svc2",
  ]);
});

test("the front end runs a notification's action when it has a runner", async () => {
  const actions: string[] = [];
  const { report } = await run(
    catalogOf([
      resource("Fake", "svc", { insync: true }),
      resource("Fake", "conf", { notifies: ["immediate Fake[svc]"] }),
    ]),
    {
      notifications: (r) => notificationsFrom(r).map((n) => ({ ...n, action: "restart" })),
      runNotification: async (target, action) => {
        actions.push(`${action} ${target.title}`);
        return { events: [] };
      },
    },
  );
  assert.deepEqual(actions, ["restart svc"]);
  assert.equal(report.resource_statuses["Fake[svc]"]?.events.at(-1)?.name, "restart");
});

test("why-run (noop): notifications are logged, not run", async () => {
  const { journal, lines } = await run(
    catalogOf([
      resource("Fake", "svc", { insync: true }),
      resource("Fake", "conf", { notifies: ["delayed Fake[svc]"] }),
    ]),
    { notifications: notificationsFrom },
    { noop: true },
  );
  assert.deepEqual(journal, ["apply svc (noop)", "apply conf (noop)"]);
  assert.ok(
    lines.includes(
      "Notice: /Stage[main]/Main/Fake[conf]: Would have notified Fake[svc] to refresh (delayed)",
    ),
  );
});

test("a notification to a missing resource is an error at the notifier", async () => {
  const { lines } = await run(catalogOf([resource("Fake", "conf", { notifies: ["immediate Fake[nope]"] })]), {
    notifications: notificationsFrom,
  });
  assert.ok(
    lines.includes(
      "Error: /Stage[main]/Main/Fake[conf]: Could not find resource 'Fake[nope]' to notify (refresh)",
    ),
  );
});

test("failure policies: stop-run skips everything after; ignore lets dependents run", async () => {
  const stop = await run(
    catalogOf([resource("Fake", "a"), resource("Fake", "bad", { fail: "no" }), resource("Fake", "c")]),
    { failurePolicy: () => "stop-run" },
  );
  assert.deepEqual(stop.journal, ["apply a", "apply bad"]);
  assert.equal(stop.report.resource_statuses["Fake[c]"]?.skipped, true);
  const ignore = await run(
    catalogOf([resource("Fake", "bad", { fail: "no" }), resource("Fake", "dep", { require: "Fake[bad]" })]),
    { failurePolicy: (r) => (r.title === "bad" ? "ignore" : "skip-dependents") },
  );
  assert.deepEqual(ignore.journal, ["apply bad", "apply dep"]);
  assert.equal(ignore.report.resource_statuses["Fake[bad]"]?.failed, true);
  assert.equal(ignore.report.status, "failed");
});
