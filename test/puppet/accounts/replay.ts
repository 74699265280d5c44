/**
 * Applies a recorded catalog with the shared applier and tend's Puppet
 * types, and prints the outcome as JSON (exit code as --detailed-exitcodes
 * gives it, each resource's status and events as the report holds them).
 * Run inside a scenario's sandbox by the differential test, until `tend
 * puppet apply --catalog` hosts these scenarios.
 *
 *   node replay.js CATALOG.json [--noop]
 */
import { applyCatalog } from "../../../src/catalog/apply.js";
import { formatCatalogDiagnostic, loadCatalogFile } from "../../../src/catalog/load.js";
import { puppetTypes } from "../../../src/puppet/types/index.js";

async function main(): Promise<void> {
  const [file, flag] = process.argv.slice(2);
  const loaded = await loadCatalogFile(file as string);
  if (!loaded.ok) throw new Error(loaded.diagnostics.map(formatCatalogDiagnostic).join("\n"));
  const catalog = loaded.catalog;
  const report = await applyCatalog(catalog, puppetTypes, { noop: flag === "--noop" });
  if (report.failure) throw new Error(report.failure.message);
  const resources: Record<string, unknown> = {};
  let changed = false;
  let failed = false;
  for (const [ref, status] of Object.entries(report.resource_statuses)) {
    if (/^(Class|Stage|Node|Schedule|Filebucket)\[/.test(ref)) continue;
    changed ||= status.changed;
    failed ||= status.failed;
    const events = status.events.map((e) => ({
      property: String(e.property),
      name: String(e.name),
      status: e.status,
      previous_value: e.previous_value ?? null,
      desired_value: e.desired_value ?? null,
      message: e.message,
    }));
    resources[ref] = { changed: status.changed, failed: status.failed, skipped: status.skipped, events };
  }
  const exitCode = (changed ? 2 : 0) + (failed ? 4 : 0);
  process.stdout.write(JSON.stringify({ exitCode, resources }));
}

await main();
