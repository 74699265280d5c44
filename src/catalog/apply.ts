/**
 * The applier's entry point: `applyCatalog(catalog, registry, options)`
 * checks that every resource has a type and valid parameters, builds the
 * relationship graph, refuses a graph with dependency cycles (naming them,
 * changing nothing), then walks it (see transaction.ts) and returns the
 * run report. Bad catalogs and failing resources are in the report, never
 * thrown.
 */
import { monotonicMs } from "../system/clock.js";
import { randomUuid } from "../system/uuid.js";
import { buildGraph } from "./graph.js";
import { describeCycles, findCycles } from "./cycles.js";
import type { ApplierHooks } from "./hooks.js";
import type { Catalog, CatalogEdge, CatalogResource } from "./model.js";
import { capitalizeType } from "./refs.js";
import {
  finalizeReport,
  type ReportLog,
  type ReportLogLevel,
  type RunFailure,
  type RunReport,
  reportTime,
} from "./report.js";
import type { ResourceType, RunSettings } from "./resource-type.js";
import { RunLog } from "./run-log.js";
import { Transaction } from "./transaction.js";

/** Resource types by lower-case name (`file`, `concat::fragment`). */
export type ResourceTypeRegistry = ReadonlyMap<string, ResourceType>;

/** A registry of the given types, by their names. */
export function typeRegistry(types: readonly ResourceType[]): ResourceTypeRegistry {
  return new Map(types.map((t) => [t.name.toLowerCase(), t]));
}

export interface ApplyOptions {
  /** Puppet's --noop: nothing changes unless a resource says `noop => false`. */
  readonly noop?: boolean;
  /** Messages from this level up go to the report and `onLog` (default notice). */
  readonly logLevel?: ReportLogLevel;
  /** Called with each log entry as it is written (the CLI prints them). */
  readonly onLog?: (log: ReportLog) => void;
  /** Settings handed to every type (module path, filebucket...). */
  readonly run?: RunSettings;
  readonly hooks?: ApplierHooks;
  /**
   * Types that are defined types (containers with no type of their own)
   * even when an instance contains nothing; an instance that contains
   * resources is known to be one anyway.
   */
  readonly definedTypes?: readonly string[];
  /** Puppet's --tags: only resources with one of these tags run; the rest are skipped. */
  readonly tags?: readonly string[];
  /** Puppet's --skip_tags. */
  readonly skipTags?: readonly string[];
  /** The report's host (default: the catalog's name). */
  readonly host?: string;
  readonly transactionUuid?: string;
}

/** Types that only structure the graph; they have no type to apply. */
const GRAPH_ONLY = new Set(["Class", "Stage", "Node", "Whit", "Component"]);

/** Applies a catalog and reports what happened. */
export async function applyCatalog(
  catalog: Catalog,
  registry: ResourceTypeRegistry,
  options: ApplyOptions = {},
): Promise<RunReport> {
  const started = monotonicMs();
  const report = emptyReport(catalog, options);
  const log = new RunLog(report.logs, options.logLevel ?? "notice", options.onLog);
  const containers = containerTypes(catalog, options.definedTypes ?? []);
  const isContainer = (r: CatalogResource): boolean =>
    r.kind === "defined_type" || containers.has(capitalizeType(r.type));
  // Asked for every resource, several times: one answer per type name.
  const byTypeName = new Map<string, ResourceType | undefined>();
  const typeOf = (r: CatalogResource): ResourceType | undefined => {
    if (isContainer(r)) return undefined;
    if (!byTypeName.has(r.type)) byTypeName.set(r.type, registry.get(r.type.toLowerCase()));
    return byTypeName.get(r.type);
  };
  const refused = checkResources(catalog, isContainer, typeOf, log);
  if (refused) return finish(report, refused, started);

  const built = buildGraph(catalog.resources, catalog.edges, {
    isContainer,
    autorequire: (r) => typeOf(r)?.autorequire?.(r) ?? [],
  });
  const transaction = new Transaction({
    catalog,
    built,
    typeOf,
    report,
    log,
    noop: options.noop === true,
    run: options.run ?? {},
    hooks: options.hooks ?? {},
    tags: (options.tags ?? []).map((t) => t.toLowerCase()),
    skipTags: (options.skipTags ?? []).map((t) => t.toLowerCase()),
  });
  const cycles = findCycles(built.graph);
  if (cycles.length > 0) {
    log.run("err", describeCycles(built.graph, cycles));
    transaction.failCycle(cycles.flat());
    log.run("err", "Failed to apply catalog: One or more resource dependency cycles detected in graph");
    return finish(report, { code: "cycle", message: describeCycles(built.graph, cycles) }, started);
  }
  if (catalog.version !== "") log.run("info", `Applying configuration version '${catalog.version}'`);
  const walkStarted = monotonicMs();
  await transaction.run();
  report.transaction_completed = true;
  return finish(report, undefined, started, (monotonicMs() - walkStarted) / 1000);
}

function emptyReport(catalog: Catalog, options: ApplyOptions): RunReport {
  return {
    host: options.host ?? catalog.name,
    time: reportTime(),
    configuration_version: catalog.version,
    transaction_uuid: options.transactionUuid ?? randomUuid(),
    report_format: 12,
    status: "failed",
    transaction_completed: false,
    noop: options.noop === true,
    noop_pending: false,
    environment: catalog.environment,
    corrective_change: false,
    catalog_uuid: catalog.catalogUuid ?? null,
    code_id: catalog.codeId ?? null,
    logs: [],
    metrics: { resources: {}, time: {}, changes: {}, events: {} },
    resource_statuses: {},
  };
}

function finish(
  report: RunReport,
  failure: RunFailure | undefined,
  started: number,
  evaluation?: number,
): RunReport {
  if (failure) report.failure = failure;
  const times: Record<string, number> = {};
  if (evaluation !== undefined) times.transaction_evaluation = evaluation;
  times.total = (monotonicMs() - started) / 1000;
  finalizeReport(report, times);
  return report;
}

/** Capitalised type names that are containers: graph-only types, defined types, anything containing others. */
function containerTypes(catalog: Catalog, definedTypes: readonly string[]): Set<string> {
  const containers = new Set([...GRAPH_ONLY, ...definedTypes.map(capitalizeType)]);
  // Index loops over the catalog: a for-of makes an iterator and a result per step in code not optimised yet.
  for (let i = 0; i < catalog.edges.length; i++) {
    const edge = catalog.edges[i] as CatalogEdge;
    const open = edge.source.indexOf("[");
    if (open > 0) containers.add(capitalizeType(edge.source.slice(0, open)));
  }
  return containers;
}

/**
 * Every resource must have a type and pass its checks before anything
 * runs: an unknown type or an invalid parameter fails the whole run, as
 * Puppet fails a catalog it cannot turn into resources.
 */
function checkResources(
  catalog: Catalog,
  isContainer: (r: CatalogResource) => boolean,
  typeOf: (r: CatalogResource) => ResourceType | undefined,
  log: RunLog,
): RunFailure | undefined {
  const unknown: string[] = [];
  const invalid: string[] = [];
  for (let i = 0; i < catalog.resources.length; i++) {
    const resource = catalog.resources[i] as CatalogResource;
    if (isContainer(resource)) continue;
    const type = typeOf(resource);
    // The reference is made only for a message: most resources have none.
    if (!type) {
      const message = `Unknown resource type: '${resource.type.toLowerCase()}' for ${resource.type}[${resource.title}]${where(resource)}`;
      log.run("err", message);
      unknown.push(message);
      continue;
    }
    for (const problem of type.validate?.(resource) ?? []) {
      const message = `${resource.type}[${resource.title}]: ${problem}${where(resource)}`;
      log.run("err", message);
      invalid.push(message);
    }
  }
  warnUnsupported(catalog, log);
  if (unknown.length > 0) return refuse(log, "unknown-type", unknown);
  if (invalid.length > 0) return refuse(log, "invalid-resource", invalid);
  return undefined;
}

/** What tend does not do (yet), said once per run rather than silently ignored. */
const UNSUPPORTED: Readonly<Record<string, string>> = {
  schedule: "applied as if always scheduled",
  audit: "not audited",
};

function warnUnsupported(catalog: Catalog, log: RunLog): void {
  for (const [param, effect] of Object.entries(UNSUPPORTED)) {
    const refs = catalog.resources
      .filter((r) => r.parameters[param] !== undefined && r.parameters[param] !== null)
      .map((r) => `${r.type}[${r.title}]`);
    if (refs.length === 0) continue;
    const shown =
      refs.length > 3 ? `${refs.slice(0, 3).join(", ")} and ${refs.length - 3} more` : refs.join(", ");
    log.run("warning", `The '${param}' metaparameter is not supported by tend: ${shown} ${effect}`);
  }
}

function refuse(log: RunLog, code: RunFailure["code"], messages: readonly string[]): RunFailure {
  const first = messages[0] as string;
  const more = messages.length > 1 ? ` (and ${messages.length - 1} more)` : "";
  const message = `Failed to apply catalog: ${first}${more}`;
  log.run("err", message);
  return { code, message };
}

function where(resource: CatalogResource): string {
  if (resource.file === undefined) return "";
  return ` (file: ${resource.file}${resource.line !== undefined ? `, line: ${resource.line}` : ""})`;
}
