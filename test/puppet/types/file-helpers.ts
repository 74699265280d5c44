/**
 * Drives the Puppet file types directly, without the applier: one
 * resource at a time with a fixed context, collecting the log.
 */
import type { Catalog, CatalogResource, ParamValue } from "../../../src/catalog/model.js";
import type { ApplyContext, ResourceResult, ResourceType } from "../../../src/catalog/resource-type.js";
import { findPuppetType } from "../../../src/puppet/types/index.js";
import { Logger, type LogRecord } from "../../../src/system/logger.js";

export interface Driver {
  readonly logs: LogRecord[];
  /** Applies the resource and then its generated children, as the applier would. */
  apply(
    type: ResourceType,
    title: string,
    parameters: Record<string, ParamValue>,
    noop?: boolean,
  ): Promise<Map<string, ResourceResult>>;
}

export function resource(
  type: string,
  title: string,
  parameters: Record<string, ParamValue>,
): CatalogResource {
  return { type, title, parameters, tags: [] };
}

export function driver(
  options: { modulePath?: string[]; bucketDir?: string; catalog?: CatalogResource[] } = {},
): Driver {
  const logs: LogRecord[] = [];
  const logger = new Logger((record) => logs.push(record), "debug");
  const catalog: Catalog = {
    name: "testnode",
    environment: "production",
    version: "1",
    resources: options.catalog ?? [],
    edges: [],
    classes: [],
  };
  const context = (noop: boolean): ApplyContext => ({
    noop,
    logger,
    run: { modulePath: options.modulePath ?? [], bucketDir: options.bucketDir },
    catalog,
  });
  return {
    logs,
    async apply(type, title, parameters, noop = false) {
      const results = new Map<string, ResourceResult>();
      const res = resource(type === undefined ? "File" : capitalise(type.name), title, parameters);
      const problems = type.validate?.(res) ?? [];
      if (problems.length) {
        results.set(title, { events: [], failed: problems.join("; ") });
        return results;
      }
      const children = (await type.generate?.(res, context(noop))) ?? [];
      results.set(`${res.type}[${title}]`, await type.apply(res, context(noop)));
      for (const child of children) {
        const childType = findPuppetType(child.type) ?? type;
        results.set(`${child.type}[${child.title}]`, await childType.apply(child, context(noop)));
      }
      return results;
    },
  };
}

function capitalise(name: string): string {
  return name
    .split("::")
    .map((s) => s.charAt(0).toUpperCase() + s.slice(1))
    .join("::");
}

/** `property status: message` per event, one line each, for compact assertions. */
export function eventLines(results: Map<string, ResourceResult>): string[] {
  return [...results.entries()].flatMap(([ref, result]) => [
    ...result.events.map((e) => `${ref} ${e.property} ${e.status} ${e.name}: ${e.message}`),
    ...(result.failed ? [`${ref} FAILED ${result.failed}`] : []),
  ]);
}
