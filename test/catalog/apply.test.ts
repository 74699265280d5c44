/**
 * The applier on fake types: order, refresh, noop, failures, cycles,
 * generated resources and the report, each compared with what Puppet 7.23
 * does with the same graph (recorded outputs quoted in the cases).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { type ApplyOptions, applyCatalog, typeRegistry } from "../../src/catalog/apply.js";
import type { Catalog } from "../../src/catalog/model.js";
import type { ResourceType } from "../../src/catalog/resource-type.js";
import { detailedExitCode, formatReportLog, type RunReport } from "../../src/catalog/report.js";
import { catalogOf, fakeTypes, type Journal, resource } from "./fakes.js";

async function run(
  catalog: Catalog,
  options: ApplyOptions = {},
): Promise<{ journal: string[]; report: RunReport; lines: string[] }> {
  const journal: Journal = { entries: [] };
  const report = await applyCatalog(catalog, typeRegistry(fakeTypes(journal)), options);
  return { journal: journal.entries, report, lines: report.logs.map(formatReportLog) };
}

test("unrelated resources run in catalog order; require and before reorder", async () => {
  const { journal } = await run(
    catalogOf([
      resource("Fake", "a", { require: "Fake[c]" }),
      resource("Fake", "b"),
      resource("Fake", "c"),
      resource("Fake", "d", { before: ["fake[b]"] }),
    ]),
  );
  assert.deepEqual(journal, ["apply c", "apply a", "apply d", "apply b"]);
});

test("a relationship to a class orders against everything it contains", async () => {
  const { journal } = await run(
    catalogOf(
      [
        resource("Fake", "first", { require: "Class[Later]" }),
        resource("Fake", "in-later-1"),
        resource("Fake", "in-later-2"),
      ],
      { "Fake[in-later-1]": "Class[Later]", "Fake[in-later-2]": "Class[Later]" },
    ),
  );
  assert.deepEqual(journal, ["apply in-later-1", "apply in-later-2", "apply first"]);
});

test("refresh runs once however many events arrive (Triggered 'refresh' from 2 events)", async () => {
  const { journal, report, lines } = await run(
    catalogOf([
      resource("Fake", "f1", { notify: "Fake[svc]" }),
      resource("Fake", "f2", { notify: "Fake[svc]" }),
      resource("Fake", "svc", { insync: true }),
    ]),
  );
  assert.deepEqual(journal, ["apply f1", "apply f2", "apply svc", "refresh svc"]);
  assert.ok(lines.includes("Notice: /Stage[main]/Main/Fake[svc]: Triggered 'refresh' from 2 events"));
  const svc = report.resource_statuses["Fake[svc]"];
  assert.equal(svc?.changed, true);
  assert.equal(svc?.restarted, true);
  assert.deepEqual(
    svc?.events.map((e) => [e.name, e.status, e.message]),
    [["refresh", "success", "Triggered 'refresh' from 2 events"]],
  );
  assert.equal(report.metrics.resources.restarted, 1);
  assert.equal(report.metrics.changes.total, 3);
});

test("subscribing to a class receives one event from its anchor", async () => {
  const { journal, lines } = await run(
    catalogOf(
      [
        resource("Fake", "f1"),
        resource("Fake", "f2"),
        resource("Fake", "e", { insync: true, subscribe: "Class[C]" }),
      ],
      { "Fake[f1]": "Class[C]", "Fake[f2]": "Class[C]" },
    ),
  );
  assert.deepEqual(journal, ["apply f1", "apply f2", "apply e", "refresh e"]);
  assert.ok(lines.includes("Notice: /Stage[main]/Main/Fake[e]: Triggered 'refresh' from 1 event"));
});

test("notifying a class refreshes what it contains", async () => {
  const { journal } = await run(
    catalogOf(
      [resource("Fake", "trigger", { notify: "Class[Svc]" }), resource("Fake", "inside", { insync: true })],
      {
        "Fake[inside]": "Class[Svc]",
      },
    ),
  );
  assert.deepEqual(journal, ["apply trigger", "apply inside", "refresh inside"]);
});

test("no events, no refresh; a type without refresh ignores events", async () => {
  const { journal } = await run(
    catalogOf([
      resource("Fake", "same", { insync: true, notify: ["Fake[svc]", "Inert[x]"] }),
      resource("Fake", "svc", { insync: true }),
      resource("Inert", "x"),
    ]),
  );
  assert.deepEqual(journal, ["apply same", "apply svc", "apply x"]);
});

test("noop: nothing refreshed, Puppet's 'Would have triggered' lines, anchors included", async () => {
  const { journal, report, lines } = await run(
    catalogOf(
      [
        resource("Fake", "f1"),
        resource("Fake", "f2"),
        resource("Fake", "e", { insync: true, subscribe: "Class[C]" }),
      ],
      { "Fake[f1]": "Class[C]", "Fake[f2]": "Class[C]" },
    ),
    { noop: true },
  );
  assert.deepEqual(journal, ["apply f1 (noop)", "apply f2 (noop)", "apply e (noop)"]);
  assert.deepEqual(lines, [
    "Notice: /Stage[main]/C/Fake[f1]/ensure: current_value 'absent', should be 'present' (noop)",
    "Notice: /Stage[main]/C/Fake[f2]/ensure: current_value 'absent', should be 'present' (noop)",
    "Notice: Class[C]: Would have triggered 'refresh' from 2 events",
    "Notice: /Stage[main]/Main/Fake[e]: Would have triggered 'refresh' from 1 event",
    "Notice: Class[Main]: Would have triggered 'refresh' from 1 event",
    "Notice: Stage[main]: Would have triggered 'refresh' from 2 events",
  ]);
  assert.equal(report.status, "unchanged");
  assert.equal(report.noop_pending, true);
  assert.equal(detailedExitCode(report), 0);
});

test("the noop metaparameter: true alone, false overriding the global noop", async () => {
  const own = await run(catalogOf([resource("Fake", "a", { noop: true }), resource("Fake", "b")]));
  assert.deepEqual(own.journal, ["apply a (noop)", "apply b"]);
  const global = await run(catalogOf([resource("Fake", "a", { noop: false }), resource("Fake", "b")]), {
    noop: true,
  });
  assert.deepEqual(global.journal, ["apply a", "apply b (noop)"]);
});

test("a failure skips its dependents, through classes; unrelated resources still run", async () => {
  const { journal, report, lines } = await run(
    catalogOf(
      [
        resource("Fake", "bad", { fail: "returned 1" }),
        resource("Fake", "dep", { require: "Fake[bad]" }),
        resource("Fake", "after", { require: "Fake[dep]" }),
        resource("Fake", "unrelated"),
        resource("Fake", "ink"),
        resource("Class", "K", { require: "Fake[bad]" }),
      ],
      { "Fake[ink]": "Class[K]" },
    ),
  );
  assert.deepEqual(journal, ["apply bad", "apply unrelated"]);
  assert.deepEqual(lines, [
    "Error: /Stage[main]/Main/Fake[bad]/ensure: change from 'absent' to 'present' failed: returned 1",
    "Notice: /Stage[main]/Main/Fake[dep]: Dependency Fake[bad] has failures: true",
    "Warning: /Stage[main]/Main/Fake[dep]: Skipping because of failed dependencies",
    "Warning: /Stage[main]/Main/Fake[after]: Skipping because of failed dependencies",
    "Notice: /Stage[main]/Main/Fake[unrelated]/ensure: created",
    "Warning: /Stage[main]/K/Fake[ink]: Skipping because of failed dependencies",
  ]);
  assert.equal(report.resource_statuses["Fake[dep]"]?.skipped, true);
  assert.equal(report.resource_statuses["Fake[dep]"]?.evaluation_time, null);
  assert.deepEqual(report.metrics.resources, {
    total: 5,
    skipped: 3,
    failed: 1,
    failed_to_restart: 0,
    restarted: 0,
    changed: 1,
    out_of_sync: 2,
    scheduled: 0,
    corrective_change: 0,
  });
  assert.deepEqual(report.metrics.events, { total: 2, failure: 1, success: 1 });
  assert.equal(report.status, "failed");
  assert.equal(detailedExitCode(report), 6);
});

test("a type that throws fails its resource with Puppet's 'Could not evaluate'", async () => {
  const { report, lines } = await run(catalogOf([resource("Fake", "x", { throw: true })]));
  assert.deepEqual(lines, ["Error: /Stage[main]/Main/Fake[x]: Could not evaluate: boom"]);
  const status = report.resource_statuses["Fake[x]"];
  assert.equal(status?.failed, true);
  assert.deepEqual(
    status?.events.map((e) => [e.name, e.status, e.message, e.property]),
    [["resource_error", "failure", "boom", null]],
  );
});

test("a failed refresh is failed_to_restart and skips dependents", async () => {
  const { journal, report, lines } = await run(
    catalogOf([
      resource("Fake", "f", { notify: "Fake[svc]" }),
      resource("Fake", "svc", { insync: true, refreshfail: true }),
      resource("Fake", "later", { require: "Fake[svc]" }),
    ]),
  );
  assert.deepEqual(journal, ["apply f", "apply svc", "refresh svc"]);
  assert.ok(lines.includes("Error: /Stage[main]/Main/Fake[svc]: Failed to call refresh: refresh broke"));
  assert.equal(report.resource_statuses["Fake[svc]"]?.failed_to_restart, true);
  assert.equal(report.resource_statuses["Fake[later]"]?.skipped, true);
  assert.equal(detailedExitCode(report), 6);
});

test("a cycle fails the run before anything is applied, named as Puppet names it", async () => {
  const { journal, report, lines } = await run(
    catalogOf([
      resource("Fake", "/a", { require: "Fake[/b]" }),
      resource("Fake", "/b", { require: "Fake[/a]" }),
      resource("Fake", "other"),
    ]),
  );
  assert.deepEqual(journal, []);
  assert.deepEqual(lines, [
    "Error: Found 1 dependency cycle:\n(Fake[/a] => Fake[/b] => Fake[/a])\\nTry the '--graph' option and opening the resulting '.dot' file in OmniGraffle or GraphViz",
    "Error: Failed to apply catalog: One or more resource dependency cycles detected in graph",
  ]);
  assert.equal(report.failure?.code, "cycle");
  assert.equal(report.transaction_completed, false);
  assert.deepEqual(Object.keys(report.resource_statuses), ["Fake[/a]", "Fake[/b]"]);
  assert.equal(
    report.resource_statuses["Fake[/a]"]?.events[0]?.message,
    "resource is part of a dependency cycle",
  );
  assert.equal(detailedExitCode(report), 1);
});

test("a cycle through classes prints their anchors as the classes (Puppet's whit names)", async () => {
  const base = catalogOf([resource("Fake", "na"), resource("Fake", "nb", { before: "Class[A]" })], {
    "Fake[na]": "Class[A]",
    "Fake[nb]": "Class[B]",
  });
  const { lines } = await run(withRelationship(base, "Class[A]", { before: "Class[B]" }));
  assert.equal(
    lines[0],
    "Error: Found 1 dependency cycle:\n(Fake[na] => Class[A] => Class[B] => Fake[nb] => Class[A] => Fake[na])\\nTry the '--graph' option and opening the resulting '.dot' file in OmniGraffle or GraphViz",
  );
});

function withRelationship(catalog: Catalog, ref: string, parameters: Record<string, string>): Catalog {
  return {
    ...catalog,
    resources: catalog.resources.map((r) =>
      `${r.type}[${r.title}]` === ref ? { ...r, parameters: { ...r.parameters, ...parameters } } : r,
    ),
  };
}

test("an unknown type or an invalid parameter fails the run before anything runs", async () => {
  const unknown = await run(catalogOf([resource("Fake", "a"), resource("Nosuch", "x")]));
  assert.deepEqual(unknown.journal, []);
  assert.equal(unknown.report.failure?.code, "unknown-type");
  assert.match(unknown.lines[0] ?? "", /Unknown resource type: 'nosuch' for Nosuch\[x\]/);
  const invalid = await run(catalogOf([resource("Fake", "a"), resource("Fake", "b", { bad: true })]));
  assert.deepEqual(invalid.journal, []);
  assert.equal(invalid.report.failure?.code, "invalid-resource");
  assert.match(invalid.lines[0] ?? "", /Fake\[b\]: parameter 'bad' must not be true/);
});

test("generated resources run right after their parent and before its dependents", async () => {
  const { journal, report } = await run(
    catalogOf([
      resource("Fake", "before-all"),
      resource("Gen", "dir", { children: ["dir/1", "dir/2"] }),
      resource("Fake", "unrelated"),
      resource("Fake", "needs-dir", { require: "Gen[dir]" }),
    ]),
  );
  assert.deepEqual(journal, [
    "apply before-all",
    "apply dir",
    "apply dir/1",
    "apply dir/2",
    "apply unrelated",
    "apply needs-dir",
  ]);
  assert.deepEqual(report.resource_statuses["Fake[dir/1]"]?.containment_path, [
    "Stage[main]",
    "Main",
    "Fake[dir/1]",
  ]);
});

test("a failed generated child skips the parent's dependents", async () => {
  const journal: Journal = { entries: [] };
  const types = fakeTypes(journal);
  const failing = {
    ...types[2],
    name: "gen",
    generate: async () => [resource("Fake", "child", { fail: "nope" })],
  } as (typeof types)[number];
  const report = await applyCatalog(
    catalogOf([resource("Gen", "p"), resource("Fake", "after", { require: "Gen[p]" })]),
    typeRegistry([types[0] as (typeof types)[number], failing]),
  );
  assert.deepEqual(journal.entries, ["apply p", "apply child"]);
  assert.equal(report.resource_statuses["Fake[after]"]?.skipped, true);
});

test("report: statuses, containment paths, event fields, metrics", async () => {
  const { report } = await run(
    catalogOf([{ ...resource("Fake", "/x"), file: "/m/site.pp", line: 3, tags: ["fake", "class"] }]),
  );
  const status = report.resource_statuses["Fake[/x]"];
  assert.ok(status);
  assert.equal(status.resource_type, "Fake");
  assert.equal(status.file, "/m/site.pp");
  assert.equal(status.line, 3);
  assert.deepEqual(status.containment_path, ["Stage[main]", "Main", "Fake[/x]"]);
  assert.equal(status.provider_used, "fake");
  const event = status.events[0];
  assert.deepEqual(
    { ...event, time: "" },
    {
      audited: false,
      property: "ensure",
      previous_value: "absent",
      desired_value: "present",
      historical_value: null,
      message: "created",
      name: "fake_created",
      status: "success",
      time: "",
      redacted: null,
      corrective_change: false,
    },
  );
  assert.match(event?.time ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}\+00:00$/);
  assert.equal(report.status, "changed");
  assert.equal(report.transaction_completed, true);
  assert.deepEqual(Object.keys(report.metrics.time), ["fake", "transaction_evaluation", "total"]);
  const log = report.logs[0];
  assert.deepEqual(
    { ...log, time: "" },
    {
      level: "notice",
      message: "created",
      source: "/Stage[main]/Main/Fake[/x]/ensure",
      tags: ["notice", "fake", "class"],
      time: "",
      file: "/m/site.pp",
      line: 3,
    },
  );
  assert.equal(detailedExitCode(report), 2);
});

test("tags: only tagged resources run, the others are skipped", async () => {
  const { journal, report } = await run(
    catalogOf([{ ...resource("Fake", "a"), tags: ["fake", "web"] }, resource("Fake", "b")]),
    { tags: ["WEB"] },
  );
  assert.deepEqual(journal, ["apply a"]);
  assert.equal(report.resource_statuses["Fake[b]"]?.skipped, true);
});

test("10,000 resources in a chain and unrelated: every one applied once, in order", async () => {
  const resources = [];
  for (let i = 0; i < 10_000; i++) {
    const parameters: Record<string, string | boolean> = { insync: true };
    if (i % 2 === 0 && i > 1) parameters.require = `Fake[r${i - 2}]`;
    resources.push(resource("Fake", `r${i}`, parameters));
  }
  const { journal, report } = await run(catalogOf(resources));
  assert.equal(journal.length, 10_000);
  assert.equal(journal[0], "apply r0");
  assert.equal(journal[9_999], "apply r9999");
  assert.equal(report.metrics.resources.total, 10_000);
  assert.equal(report.status, "unchanged");
});

test("exported resources are skipped (they are for other nodes)", async () => {
  const { journal, report } = await run(
    catalogOf([{ ...resource("Fake", "e"), exported: true }, resource("Fake", "b")]),
  );
  assert.deepEqual(journal, ["apply b"]);
  assert.equal(report.resource_statuses["Fake[e]"]?.skipped, true);
});

test("generated resources: their own relationships, checks and unknown types", async () => {
  const journal: Journal = { entries: [] };
  const types = fakeTypes(journal);
  const gen = {
    ...(types[2] as (typeof types)[number]),
    generate: async () => [
      resource("Fake", "child-first", { before: "Fake[late]" }),
      resource("Fake", "child-bad", { bad: true }),
      resource("Nosuch", "child-unknown"),
      resource("Fake", "late"),
    ],
  };
  const report = await applyCatalog(
    catalogOf([resource("Fake", "late"), resource("Gen", "p")]),
    typeRegistry([types[0] as (typeof types)[number], gen]),
  );
  // Fake[late] is the catalog's own: not generated again; it ran before Gen[p] existed as a parent.
  assert.deepEqual(journal.entries, ["apply late", "apply p", "apply child-first"]);
  assert.equal(
    report.resource_statuses["Fake[child-bad]"]?.events[0]?.message,
    "parameter 'bad' must not be true",
  );
  assert.equal(report.resource_statuses["Nosuch[child-unknown]"]?.failed, true);
});

test("events of generated resources reach the subscribers of the parent's container", async () => {
  const journal: Journal = { entries: [] };
  const types = fakeTypes(journal);
  const gen = { ...(types[2] as (typeof types)[number]), generate: async () => [resource("Fake", "made")] };
  const base = catalogOf([
    resource("Gen", "frag"),
    resource("Fake", "svc", { insync: true, subscribe: "Mydef[x]" }),
  ]);
  const withDefinedType: Catalog = {
    ...base,
    resources: [...base.resources, { ...resource("Mydef", "x"), kind: "defined_type" }],
    edges: [
      ...base.edges.filter((e) => e.target !== "Gen[frag]"),
      { source: "Class[Main]", target: "Mydef[x]" },
      { source: "Mydef[x]", target: "Gen[frag]" },
    ],
  };
  const report = await applyCatalog(withDefinedType, typeRegistry([types[0] as (typeof types)[number], gen]));
  assert.deepEqual(journal.entries, ["apply frag", "apply made", "apply svc", "refresh svc"]);
  assert.deepEqual(report.resource_statuses["Fake[made]"]?.containment_path, [
    "Stage[main]",
    "Main",
    "Mydef[x]",
    "Fake[made]",
  ]);
});

test("schedule and audit are not supported: said once, the resources still run", async () => {
  const { journal, lines } = await run(
    catalogOf([resource("Fake", "a", { schedule: "daily" }), resource("Fake", "b", { audit: "all" })]),
  );
  assert.deepEqual(journal, ["apply a", "apply b"]);
  assert.deepEqual(lines.slice(0, 2), [
    "Warning: The 'schedule' metaparameter is not supported by tend: Fake[a] applied as if always scheduled",
    "Warning: The 'audit' metaparameter is not supported by tend: Fake[b] not audited",
  ]);
});

test("a self-refreshing type refreshes after its own change, once with the events it received", async () => {
  // Puppet 7.23, mount_core's mount (self_refresh) notified by an exec that ran:
  // its own event and the exec's are one refresh, "from 2 events", after its property lines.
  const { journal, report, lines } = await run(
    catalogOf([
      resource("Fake", "f1", { notify: "Fake[m]" }),
      resource("Fake", "m", { selfrefresh: true }),
      resource("Fake", "same", { selfrefresh: true, insync: true }),
    ]),
    { logLevel: "info" },
  );
  assert.deepEqual(journal, ["apply f1", "apply m", "refresh m", "apply same"]);
  const own = lines.filter((l) => l.includes("Fake[m]"));
  assert.deepEqual(own, [
    "Info: /Stage[main]/Main/Fake[f1]: Scheduling refresh of Fake[m]",
    "Notice: /Stage[main]/Main/Fake[m]/ensure: created",
    "Info: /Stage[main]/Main/Fake[m]: Scheduling refresh of Fake[m]",
    "Notice: /Stage[main]/Main/Fake[m]: Triggered 'refresh' from 2 events",
    "Info: /Stage[main]/Main/Fake[m]: Scheduling refresh of Fake[m]",
  ]);
  const m = report.resource_statuses["Fake[m]"];
  assert.deepEqual(
    m?.events.map((e) => [e.name, e.status]),
    [
      ["fake_created", "success"],
      ["refresh", "success"],
    ],
  );
  assert.equal(m?.restarted, true);
  assert.equal(report.resource_statuses["Fake[same]"]?.events.length, 0);
});

test("a self-refresh in noop: 'Would have triggered', and its noop_restart reaches the class", async () => {
  // Puppet 7.23's mount-fstab scenario: a mount's changed property and its
  // noop_restart are two events at Class[Main].
  const { journal, lines } = await run(catalogOf([resource("Fake", "m", { selfrefresh: true })]), {
    noop: true,
  });
  assert.deepEqual(journal, ["apply m (noop)"]);
  assert.deepEqual(lines, [
    "Notice: /Stage[main]/Main/Fake[m]/ensure: current_value 'absent', should be 'present' (noop)",
    "Notice: /Stage[main]/Main/Fake[m]: Would have triggered 'refresh' from 1 event",
    "Notice: Class[Main]: Would have triggered 'refresh' from 2 events",
    "Notice: Stage[main]: Would have triggered 'refresh' from 1 event",
  ]);
});

test("a self-refresh is one event per event name; a failed change does not refresh", async () => {
  const journal: Journal = { entries: [] };
  const types = fakeTypes(journal);
  const fake = types[0] as ResourceType;
  const many: ResourceType = {
    ...fake,
    name: "many",
    async apply() {
      const event = (name: string, property: string) => ({
        property,
        name,
        status: "success" as const,
        message: `${property} changed`,
      });
      return { events: [event("a_changed", "a"), event("a_changed", "a"), event("b_changed", "b")] };
    },
  };
  const report = await applyCatalog(
    catalogOf([
      resource("Many", "m", { selfrefresh: true }),
      resource("Fake", "bad", { selfrefresh: true, fail: "nope" }),
    ]),
    typeRegistry([...types, many]),
  );
  const lines = report.logs.map(formatReportLog);
  assert.ok(lines.includes("Notice: /Stage[main]/Main/Many[m]: Triggered 'refresh' from 2 events"));
  assert.deepEqual(journal.entries, ["refresh m", "apply bad"]);
});
