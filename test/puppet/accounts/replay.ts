/**
 * Applies a recorded catalog's user, group, cron and host resources with
 * tend's Puppet types, in catalog order, and prints the outcome as JSON
 * (exit code as --detailed-exitcodes gives it, each resource's status and
 * events as a report holds them). Run inside a scenario's sandbox by the
 * differential test, until `tend puppet apply --catalog` can host these
 * scenarios (the shared applier).
 *
 *   node replay.js CATALOG.json [--noop]
 */
import { readFileSync } from "node:fs";
import type { Catalog } from "../../../src/catalog/model.js";
import { CONTAINER_TYPES, findPuppetType } from "../../../src/puppet/types/index.js";
import { silentLogger } from "../../../src/system/logger.js";

async function main(): Promise<void> {
  const [file, flag] = process.argv.slice(2);
  const catalog = JSON.parse(readFileSync(file as string, "utf8")) as Catalog;
  const noop = flag === "--noop";
  const resources: Record<string, unknown> = {};
  let changed = false;
  let failed = false;
  for (const resource of catalog.resources) {
    if (CONTAINER_TYPES.has(resource.type.toLowerCase())) continue;
    const type = findPuppetType(resource.type);
    if (!type) throw new Error(`no type ${resource.type}`);
    const problems = type.validate?.(resource) ?? [];
    if (problems.length > 0) throw new Error(problems.join("; "));
    const result = await type.apply(resource, { noop, logger: silentLogger, run: {}, catalog });
    const events = result.events.map((e) => ({
      property: e.property,
      name: e.name ?? "",
      status: e.status,
      previous_value: e.previousValue ?? null,
      desired_value: e.desiredValue ?? null,
      message: e.message,
    }));
    const isChanged = events.some((e) => e.status === "success");
    changed ||= isChanged;
    failed ||= result.failed !== undefined;
    resources[`${resource.type}[${resource.title}]`] = {
      changed: isChanged,
      failed: result.failed !== undefined,
      skipped: false,
      events,
    };
  }
  const exitCode = (changed ? 2 : 0) + (failed ? 4 : 0);
  process.stdout.write(JSON.stringify({ exitCode, resources }));
}

await main();
