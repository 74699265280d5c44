/**
 * Runs inside a DebSandbox: applies the Package and Service resources of a
 * catalog, in catalog order, with tend's types, and prints each one's
 * outcome as JSON (the shape harness.ts reads from Puppet's reports).
 *
 *   node driver.js CATALOG.json [--noop]
 */
import { readFileSync } from "node:fs";
import type { Catalog, CatalogResource } from "../../../src/catalog/model.js";
import type { ApplyContext, ResourceType } from "../../../src/catalog/resource-type.js";
import { packageType } from "../../../src/puppet/types/package.js";
import { serviceType } from "../../../src/puppet/types/service.js";
import { Logger } from "../../../src/system/logger.js";
import { ROOT, type ResourceOutcome } from "./harness.js";

const TYPES: Readonly<Record<string, ResourceType>> = { Package: packageType, Service: serviceType };

async function main(): Promise<void> {
  const [file = "", ...flags] = process.argv.slice(2);
  const catalog = JSON.parse(readFileSync(file, "utf8").split("@ROOT@").join(ROOT)) as Catalog;
  const noop = flags.includes("--noop");
  const logger = new Logger(() => {}, "debug");
  const resources: Record<string, ResourceOutcome> = {};
  for (const resource of catalog.resources as CatalogResource[]) {
    const type = TYPES[resource.type];
    if (!type) continue;
    const ref = `${resource.type}[${resource.title}]`;
    const problems = type.validate?.(resource) ?? [];
    if (problems.length > 0) throw new Error(`${ref}: ${problems.join("; ")}`);
    const context: ApplyContext = {
      noop: noop || resource.parameters.noop === true,
      logger,
      run: {},
      catalog,
    };
    const result = await type.apply(resource, context);
    resources[ref] = {
      changed: result.events.some((e) => e.status === "success"),
      failed: result.failed !== undefined,
      events: result.events.map((e) => ({
        property: e.property,
        name: e.name ?? "",
        status: e.status,
        previous_value: e.previousValue ?? null,
        desired_value: e.desiredValue ?? null,
        message: e.message,
      })),
    };
  }
  process.stdout.write(`${JSON.stringify(resources)}\n`);
}

await main();
