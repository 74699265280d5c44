/**
 * The report's pieces for one resource: its containment path (Puppet's
 * pathbuilder: `["Stage[main]", "Main", "File[/x]"]`, a class by its title),
 * its status as Puppet's Resource::Status starts it, and events in the
 * report's shape, from a type's events or made by the applier
 * (`resource_error`, `refresh`).
 */
import type { BuiltGraph, Vertex } from "./graph.js";
import type { Catalog, CatalogResource } from "./model.js";
import { capitalizeType, refKey } from "./refs.js";
import { type ReportEvent, type ResourceStatus, reportTime } from "./report.js";
import type { ResourceEvent } from "./resource-type.js";

/** Containment paths of catalog and generated resources, each computed once. */
export class ContainmentPaths {
  private readonly paths = new Map<CatalogResource, readonly string[]>();

  constructor(
    private readonly catalog: Catalog,
    private readonly built: BuiltGraph,
  ) {}

  /** The path of a vertex's resource. */
  of(vertex: Vertex): readonly string[] {
    return this.paths.get(vertex.resource) ?? this.fromIndex(vertex.index);
  }

  /** Records the path of a generated resource. */
  set(resource: CatalogResource, path: readonly string[]): void {
    this.paths.set(resource, path);
  }

  /** `/Stage[main]/Main/File[/x]`, the source of the resource's messages. */
  text(vertex: Vertex): string {
    return `/${this.of(vertex).join("/")}`;
  }

  private fromIndex(index: number | undefined): readonly string[] {
    if (index === undefined) return [];
    const resource = this.catalog.resources[index] as CatalogResource;
    const known = this.paths.get(resource);
    if (known) return known;
    const parent = this.built.parent.get(index);
    // The reference its vertex has (its entry's, for a container): not made again.
    const vertex = this.built.graph.vertices[this.built.entry[index] as number];
    const ref = vertex?.resource === resource ? vertex.ref : refKey(resource.type, resource.title);
    // A class appears by its title alone (`Main`), as Puppet's component pathbuilder writes it.
    const own = ref.startsWith("Class[") ? ref.slice(6, -1) : ref;
    // concat, not a spread: no iterator, in code not optimised yet.
    const path = (parent === undefined ? [] : this.fromIndex(parent)).concat(own);
    this.paths.set(resource, path);
    return path;
  }
}

/** A fresh status for a resource vertex, nothing happened yet. */
export function newStatus(vertex: Vertex, containmentPath: readonly string[]): ResourceStatus {
  const resource = vertex.resource;
  return {
    title: resource.title,
    file: resource.file ?? null,
    line: resource.line ?? null,
    resource: vertex.ref,
    resource_type: capitalizeType(resource.type),
    provider_used: null,
    containment_path: containmentPath,
    evaluation_time: null,
    tags: resource.tags,
    time: reportTime(),
    failed: false,
    failed_to_restart: false,
    changed: false,
    out_of_sync: false,
    skipped: false,
    change_count: 0,
    out_of_sync_count: 0,
    events: [],
    corrective_change: false,
    restarted: false,
  };
}

/** A type's event in the report's shape. */
export function reportEvent(event: ResourceEvent): ReportEvent {
  return {
    audited: event.status === "audit",
    property: event.property,
    previous_value: event.previousValue ?? null,
    desired_value: event.desiredValue ?? null,
    historical_value: event.historicalValue ?? null,
    message: event.message,
    name: event.name ?? null,
    status: event.status,
    time: reportTime(),
    redacted: event.redacted ?? null,
    corrective_change: event.correctiveChange ?? false,
  };
}

/** An event of the resource itself, with no property (Puppet's `resource.event`). */
export function resourceEvent(name: string, status: ReportEvent["status"], message: string): ReportEvent {
  return {
    audited: false,
    property: null,
    previous_value: null,
    desired_value: null,
    historical_value: null,
    message,
    name,
    status,
    time: reportTime(),
    redacted: false,
    corrective_change: false,
  };
}
