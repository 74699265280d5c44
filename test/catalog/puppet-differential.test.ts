/**
 * The applier against Puppet 7.23 itself: each scenario of
 * test/fixtures/catalog/puppet/ is a manifest of notify and exec
 * resources that Puppet compiled and applied (scripts/record-applier.ts
 * recorded the catalog and the outcome of each run). Here the recorded
 * catalog runs through applyCatalog with fake notify and exec types that
 * say what Puppet's types say, so every difference left is the applier's:
 * order, refresh, noop, failures and skipping, cycles; compared are each
 * resource's status and events, the log lines in order, the report's
 * status and the detailed exit code.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { applyCatalog, typeRegistry } from "../../src/catalog/apply.js";
import { parseCatalog } from "../../src/catalog/load.js";
import type { CatalogResource, ParamValue } from "../../src/catalog/model.js";
import { detailedExitCode, type RunReport } from "../../src/catalog/report.js";
import type { ApplyContext, ResourceResult, ResourceType } from "../../src/catalog/resource-type.js";

const DIR = fileURLToPath(new URL("../../../test/fixtures/catalog/puppet/", import.meta.url));

/** Puppet's notify: logs its message and reports it changed, every run. */
const notify: ResourceType = {
  name: "notify",
  async apply(r: CatalogResource, context: ApplyContext): Promise<ResourceResult> {
    const message = String(r.parameters.message ?? r.title);
    const base = {
      property: "message",
      previousValue: "absent",
      desiredValue: message,
      name: "message_changed",
    };
    if (context.noop)
      return {
        events: [
          { ...base, status: "noop", message: `current_value 'absent', should be '${message}' (noop)` },
        ],
      };
    context.runLogger?.notice(message);
    return { events: [{ ...base, status: "success", message: `defined 'message' as '${message}'` }] };
  },
};

function returned(command: ParamValue | undefined): string | undefined {
  return command === "/bin/false" ? "'/bin/false' returned 1 instead of one of [0]" : undefined;
}

/** Puppet's exec, simulated: /bin/false fails, anything else succeeds; refreshonly waits for refresh. */
const exec: ResourceType = {
  name: "exec",
  async apply(r, context) {
    if (r.parameters.refreshonly === true) return { events: [] };
    const base = {
      property: "returns",
      previousValue: "notrun",
      desiredValue: ["0"],
      name: "executed_command",
    };
    if (context.noop)
      return {
        events: [{ ...base, status: "noop", message: "current_value 'notrun', should be ['0'] (noop)" }],
      };
    const failure = returned(r.parameters.command);
    if (failure === undefined)
      return { events: [{ ...base, status: "success", message: "executed successfully" }] };
    context.runLogger?.error(failure);
    const message = `change from 'notrun' to ['0'] failed: ${failure}`;
    return { events: [{ ...base, status: "failure", message }], failed: failure };
  },
  async refresh(r) {
    const failure = returned(r.parameters.command);
    return failure === undefined ? { events: [] } : { events: [], failed: failure };
  },
};

interface Expected {
  runs: {
    exitCode: number;
    status?: string;
    resources: Record<string, unknown>;
    logs: { level: string; source: string; message: string }[];
  }[];
}

function outcome(report: RunReport): Expected["runs"][number] {
  const resources: Record<string, unknown> = {};
  for (const [ref, s] of Object.entries(report.resource_statuses)) {
    resources[ref] = {
      changed: s.changed,
      skipped: s.skipped,
      failed: s.failed,
      failed_to_restart: s.failed_to_restart,
      out_of_sync: s.out_of_sync,
      events: s.events.map((e) => ({
        property: String(e.property),
        name: String(e.name),
        status: e.status,
        previous_value: e.previous_value,
        desired_value: e.desired_value,
        message: e.message,
      })),
    };
  }
  return {
    exitCode: detailedExitCode(report),
    status: report.status,
    resources,
    logs: report.logs.map((l) => ({ level: l.level, source: l.source, message: l.message })),
  };
}

const scenarios = readdirSync(DIR).filter((name) => existsSync(join(DIR, name, "expected.json")));

test("the applier's scenarios were recorded", () => {
  assert.ok(scenarios.length >= 8, `${scenarios.length} scenarios`);
});

for (const name of scenarios) {
  test(`as Puppet 7.23 applies it: ${name}`, async () => {
    const dir = join(DIR, name);
    const loaded = parseCatalog(readFileSync(join(dir, "catalog.json"), "utf8"), "catalog.json");
    assert.ok(loaded.ok, JSON.stringify(loaded.diagnostics));
    const spec = existsSync(join(dir, "scenario.json"))
      ? (JSON.parse(readFileSync(join(dir, "scenario.json"), "utf8")) as { runs: { noop?: boolean }[] })
      : { runs: [{}] };
    const expected = JSON.parse(readFileSync(join(dir, "expected.json"), "utf8")) as Expected;
    for (const [i, run] of spec.runs.entries()) {
      const report = await applyCatalog(loaded.catalog, typeRegistry([notify, exec]), {
        noop: run.noop === true,
      });
      const { tree: _tree, ...wanted } = expected.runs[i] as Expected["runs"][number] & { tree?: unknown };
      assert.deepEqual(outcome(report), wanted, `run ${i + 1}${run.noop ? " (noop)" : ""}`);
    }
  });
}
