/**
 * One walk of the relationship graph, as Puppet 7's transaction does it
 * (transaction.rb, transaction/event_manager.rb): each vertex in order;
 * failures recorded and propagated to what depends on them, which is
 * skipped; events queued along refresh edges and each receiver's refresh
 * called once after its own apply, however many arrived; anchors (whits)
 * pass events and failures on without appearing in the report. Nothing is
 * thrown across the walk: a type that throws fails its resource.
 */
import type { Logger } from "../system/logger.js";
import { monotonicMs } from "../system/clock.js";
import { directoriesMayHaveChanged, reuseCheckedDirectories } from "../system/safe-fs.js";
import type { BuiltGraph, GraphEdge, RelationshipGraph, Vertex } from "./graph.js";
import type { ApplierHooks } from "./hooks.js";
import type { Catalog, CatalogResource } from "./model.js";
import { Notifications } from "./notifications.js";
import { RELATIONSHIP_PARAMS, refKey, refKeyOf, relationshipRefs } from "./refs.js";
import {
  addEvent,
  type ReportEvent,
  type ReportLogLevel,
  type ResourceStatus,
  type RunReport,
  reportTime,
} from "./report.js";
import type {
  ApplyContext,
  ResourceEvent,
  ResourceResult,
  ResourceType,
  RunSettings,
} from "./resource-type.js";
import type { RunLog } from "./run-log.js";
import { ResourceContext } from "./resource-context.js";
import { ContainmentPaths, newStatus, reportEvent, resourceEvent } from "./statuses.js";
import { Walk } from "./walk.js";

/** An event waiting at its receiver: only its name and status matter there. */
interface QueuedEvent {
  readonly name: string;
  readonly status: ReportEvent["status"];
}

interface VertexState {
  status?: ResourceStatus;
  failed: boolean;
  failedToRestart: boolean;
  failedDeps?: Set<number>;
  queue?: QueuedEvent[];
}

export interface TransactionSettings {
  readonly catalog: Catalog;
  readonly built: BuiltGraph;
  /** The type of each catalog resource (undefined for containers). */
  readonly typeOf: (resource: CatalogResource) => ResourceType | undefined;
  readonly report: RunReport;
  readonly log: RunLog;
  readonly noop: boolean;
  readonly run: RunSettings;
  readonly hooks: ApplierHooks;
  /** Puppet's --tags / --skip_tags, lower-case. */
  readonly tags: readonly string[];
  readonly skipTags: readonly string[];
}

export class Transaction {
  private readonly graph: RelationshipGraph;
  private readonly walk: Walk;
  private readonly states: VertexState[] = [];
  private readonly paths: ContainmentPaths;
  private readonly announcedFailures = new Set<number>();
  private readonly generatedCount = new Map<number, number>();
  /** Generated resources by canonical reference. */
  private readonly generatedIndex = new Map<string, number>();
  private stopped = false;
  private readonly runLogger: Logger;
  private readonly notifications: Notifications;

  constructor(private readonly s: TransactionSettings) {
    this.graph = s.built.graph;
    this.walk = new Walk(this.graph);
    this.paths = new ContainmentPaths(s.catalog, s.built);
    this.runLogger = s.log.loggerFor("Puppet", undefined);
    this.notifications = new Notifications(s.hooks, {
      vertexOf: (ref) => {
        const vertex = this.endsOf(ref)?.entry;
        return vertex !== undefined && this.graph.vertices[vertex]?.kind === "resource" ? vertex : undefined;
      },
      runAction: (target, action, why) => this.runNotification(target, action, why),
      log: (level, message, from) => {
        const vertex = this.graph.vertices[from] as Vertex;
        this.s.log.resource(level, message, this.pathOf(vertex), vertex.resource);
      },
    });
  }

  /** Applies every vertex in order; resolves when the walk is over. */
  async run(): Promise<void> {
    // Directories checked by one file resource are trusted by the next
    // until something else runs: every step below that runs other code
    // (a hook, a refresh, a resource of another kind) says so first and after.
    await reuseCheckedDirectories(async () => {
      for (let v = this.walk.next(); v !== undefined; v = this.walk.next()) {
        if (this.stopped) this.cancel(v);
        else {
          const waiting = this.evaluate(v);
          if (waiting !== undefined) await waiting;
        }
        this.walk.finish(v);
      }
      directoriesMayHaveChanged();
      await this.notifications.flushDelayed();
    });
  }

  /** Marks every resource of these vertices failed as part of a cycle (nothing is applied). */
  failCycle(vertices: readonly number[]): void {
    for (const v of vertices) {
      const status = this.statusOf(v);
      if (status)
        addEvent(
          status,
          resourceEvent("resource_error", "failure", "resource is part of a dependency cycle"),
        );
    }
  }

  /** Evaluates a vertex; undefined when it is done already, else the promise of its end. */
  private evaluate(v: number): Promise<void> | undefined {
    const vertex = this.graph.vertices[v] as Vertex;
    const state = this.state(v);
    const status = this.statusOf(v);
    this.propagateFailure(v, state);
    if (this.skip(vertex, state)) {
      if (status) status.skipped = true;
      this.dequeueAll(v);
      return undefined;
    }
    if (vertex.kind === "resource") {
      const waiting = this.applyResource(v, vertex, status as ResourceStatus);
      if (waiting !== undefined) return waiting.then(() => this.processQueue(v, state));
    }
    return this.processQueue(v, state);
  }

  private processQueue(v: number, state: VertexState): Promise<void> | undefined {
    return state.queue?.length ? this.processEvents(v) : undefined;
  }

  private cancel(v: number): void {
    const status = this.statusOf(v);
    if (status) status.skipped = true;
  }

  private state(v: number): VertexState {
    let state = this.states[v];
    if (!state) {
      state = { failed: false, failedToRestart: false };
      this.states[v] = state;
    }
    return state;
  }

  // ---- failures and skipping ----

  private propagateFailure(v: number, state: VertexState): void {
    let failed: Set<number> | undefined;
    const into = this.graph.in[v] ?? [];
    // Index loops at every vertex: a for-of makes an iterator and a result
    // per step in code not optimised yet.
    for (let i = 0; i < into.length; i++) {
      const edge = into[i] as GraphEdge;
      const dep = this.states[edge.source];
      if (!dep || !(dep.failedDeps || dep.failed || dep.failedToRestart)) continue;
      failed ??= new Set<number>();
      if (dep.failedDeps) for (const d of dep.failedDeps) failed.add(d);
      if (dep.failed || dep.failedToRestart) failed.add(edge.source);
    }
    if (failed) state.failedDeps = failed;
  }

  private skip(vertex: Vertex, state: VertexState): boolean {
    // Exported resources are for other nodes (Puppet's virtual): skipped here.
    if (vertex.resource.exported === true) return true;
    if (this.s.skipTags.length > 0 && tagged(vertex.resource, this.s.skipTags)) return true;
    if (this.s.tags.length > 0 && !tagged(vertex.resource, this.s.tags)) return true;
    if (!state.failedDeps) return false;
    if (vertex.kind !== "resource") return true;
    const source = this.pathOf(vertex);
    for (const dep of state.failedDeps) {
      if (this.announcedFailures.has(dep)) continue;
      this.announcedFailures.add(dep);
      const failed = this.states[dep]?.failed === true;
      this.s.log.resource(
        "notice",
        `Dependency ${this.refOf(dep)} has failures: ${failed}`,
        source,
        vertex.resource,
      );
    }
    this.s.log.resource("warning", "Skipping because of failed dependencies", source, vertex.resource);
    return true;
  }

  // ---- applying one resource ----

  /**
   * Applies a resource; undefined when it is done already. Without hooks
   * or notifications (a Puppet run), a type whose apply returns its result
   * rather than a promise (the file type) is applied without an await: an
   * async function and a turn of the microtask queue at each of three
   * levels per resource cost ~1.2 ms per thousand in code not optimised yet.
   */
  private applyResource(v: number, vertex: Vertex, status: ResourceStatus): Promise<void> | undefined {
    const type = this.s.typeOf(vertex.resource);
    if (!type) {
      // Only a generated resource can get here: catalog resources were checked before the run.
      this.failResource(v, vertex, status, `Unknown resource type: '${vertex.resource.type.toLowerCase()}'`);
      return undefined;
    }
    const context = this.context(vertex, vertex.resource);
    const started = monotonicMs();
    status.time = reportTime();
    const hooks = this.s.hooks;
    if (hooks.guard || hooks.resolve || this.notifications.active)
      return this.applyWithHooks(v, vertex, status, type, context, started);
    // What applyWithHooks does when there are no hooks and no notifications, up to the first wait.
    let waiting: Promise<void> | undefined;
    try {
      const resource = vertex.resource;
      const problems = vertex.index === undefined ? (type.validate?.(resource) ?? []) : [];
      if (problems.length > 0) {
        this.failResource(v, vertex, status, problems.join("; "));
        return undefined;
      }
      const keeps = type.keepsDirectories?.(resource) === true;
      if (!keeps) directoriesMayHaveChanged();
      const result =
        type.generate && type.generates?.(resource) !== false
          ? this.generate(v, vertex, type, resource, context).then(() => type.apply(resource, context))
          : type.apply(resource, context);
      if (result instanceof Promise) {
        waiting = this.recordWhenApplied(v, vertex, status, result, keeps, started);
        return waiting;
      }
      this.applied(v, vertex, status, result, keeps);
    } catch (error) {
      this.applyFailed(v, vertex, status, error);
    } finally {
      if (waiting === undefined) timed(status, started);
    }
    return undefined;
  }

  /** What a type's apply returned, recorded; a type that may have changed directories says so. */
  private applied(
    v: number,
    vertex: Vertex,
    status: ResourceStatus,
    result: ResourceResult,
    keeps: boolean,
  ): void {
    if (!keeps) directoriesMayHaveChanged();
    this.record(v, vertex, status, result);
  }

  /** A type's apply that threw: the resource failed, and anything may have changed. */
  private applyFailed(v: number, vertex: Vertex, status: ResourceStatus, error: unknown): void {
    directoriesMayHaveChanged();
    this.failResource(v, vertex, status, errorMessage(error));
  }

  /** The end of applyResource for a type that returned a promise. */
  private async recordWhenApplied(
    v: number,
    vertex: Vertex,
    status: ResourceStatus,
    applied: Promise<ResourceResult>,
    keeps: boolean,
    started: number,
  ): Promise<void> {
    try {
      const result = await applied;
      this.applied(v, vertex, status, result, keeps);
    } catch (error) {
      this.applyFailed(v, vertex, status, error);
    } finally {
      timed(status, started);
    }
  }

  /** applyResource with the front end's hooks or notifications, which may wait at each step. */
  private async applyWithHooks(
    v: number,
    vertex: Vertex,
    status: ResourceStatus,
    type: ResourceType,
    context: ResourceContext,
    started: number,
  ): Promise<void> {
    let resource = vertex.resource;
    try {
      if (this.s.hooks.guard || this.s.hooks.resolve) directoriesMayHaveChanged();
      const guard = this.s.hooks.guard ? await this.s.hooks.guard(resource, context) : undefined;
      if (guard && !guard.run) {
        status.skipped = true;
        status.skip_reason = guard.reason;
        this.s.log.resource("notice", `Skipped: ${guard.reason}`, this.pathOf(vertex), resource);
        return;
      }
      if (this.s.hooks.resolve) resource = await this.s.hooks.resolve(resource, context);
      if (this.s.hooks.guard || this.s.hooks.resolve) directoriesMayHaveChanged();
      // Catalog resources were checked before the run; generated ones are checked now.
      const problems = vertex.index === undefined ? (type.validate?.(resource) ?? []) : [];
      if (problems.length > 0) {
        this.failResource(v, vertex, status, problems.join("; "));
        return;
      }
      const applyContext = resource === vertex.resource ? context : this.context(vertex, resource);
      const keeps = type.keepsDirectories?.(resource) === true;
      if (!keeps) directoriesMayHaveChanged();
      if (this.notifications.hasBefore(resource)) await this.notifyBefore(v, type, resource, applyContext);
      if (type.generate && type.generates?.(resource) !== false)
        await this.generate(v, vertex, type, resource, applyContext);
      const result = await type.apply(resource, applyContext);
      this.applied(v, vertex, status, result, keeps);
      // No await without notifications (a Puppet run has none): a turn of the microtask queue per resource.
      if (this.notifications.active && !this.state(v).failed) {
        const changed = result.events.some((e) => e.status === "success" || e.status === "noop");
        await this.notifications.afterApply(v, resource, changed, applyContext.noop);
        directoriesMayHaveChanged();
      }
    } catch (error) {
      this.applyFailed(v, vertex, status, error);
    } finally {
      timed(status, started);
    }
  }

  /** `before` notifications need to know whether the resource would change: a dry run first. */
  private async notifyBefore(
    v: number,
    type: ResourceType,
    resource: CatalogResource,
    context: ResourceContext,
  ): Promise<void> {
    const dry = await type.apply(resource, context.inNoop());
    const wouldChange = dry.events.some((e) => e.status === "noop" || e.status === "success");
    await this.notifications.beforeApply(v, resource, wouldChange, context.noop);
  }

  private record(v: number, vertex: Vertex, status: ResourceStatus, result: ResourceResult): void {
    if (result.provider) status.provider_used = result.provider;
    const level = logLevelOf(vertex.resource);
    for (let i = 0; i < result.events.length; i++) {
      const event = result.events[i] as ResourceEvent;
      addEvent(status, reportEvent(event));
      const source = `${this.pathOf(vertex)}/${event.property}`;
      this.s.log.resource(event.status === "failure" ? "err" : level, event.message, source, vertex.resource);
    }
    result.afterEvents?.();
    if (result.failed !== undefined && !status.failed) this.failResource(v, vertex, status, result.failed);
    else if (status.failed) this.markFailed(v, vertex);
    if (this.state(v).failed || result.events.length === 0) return;
    const events = result.events.map((e) => ({ name: e.name ?? `${e.property}_changed`, status: e.status }));
    this.queueEvents(v, events);
    this.queueSelfRefresh(v, vertex, events, true);
    if (result.events.some((e) => e.invalidatesRefresh)) this.dequeueRefresh(v);
  }

  /** A failure with no failure event to show for it: Puppet's "Could not evaluate". */
  private failResource(v: number, vertex: Vertex, status: ResourceStatus, message: string): void {
    this.s.log.resource("err", `Could not evaluate: ${message}`, this.pathOf(vertex), vertex.resource);
    addEvent(status, resourceEvent("resource_error", "failure", message));
    this.markFailed(v, vertex);
  }

  private markFailed(v: number, vertex: Vertex): void {
    const policy = this.s.hooks.failurePolicy?.(vertex.resource) ?? "skip-dependents";
    // An ignored failure is reported, but neither skips dependents nor stops events.
    this.state(v).failed = policy !== "ignore";
    if (policy === "stop-run") this.stopped = true;
  }

  private async generate(
    v: number,
    vertex: Vertex,
    type: ResourceType,
    resource: CatalogResource,
    context: ApplyContext,
  ): Promise<void> {
    const children = await (type.generate as NonNullable<ResourceType["generate"]>)(resource, context);
    const made: number[] = [];
    for (const child of children) {
      const key = refKey(child.type, child.title);
      // A resource the catalog (or an earlier generation) already has is managed as declared there.
      if (this.s.built.index.has(key) || this.generatedIndex.has(key)) continue;
      const merged = { ...child, tags: [...new Set([...child.tags, ...resource.tags])] };
      const id = this.graph.addVertex("resource", merged, undefined, this.childPriority(v, vertex));
      made.push(id);
      this.generatedIndex.set(key, id);
      const container = this.paths.of(vertex).slice(0, -1);
      this.paths.set(merged, [...container, key]);
    }
    if (made.length === 0) return;
    const sentinel = this.graph.addVertex("sentinel", resource, vertex.index, this.childPriority(v, vertex));
    this.walk.trackNew();
    for (const edge of [...(this.graph.out[v] ?? [])]) {
      this.walk.removeEdge(edge);
      this.walk.addEdge(sentinel, edge.target, edge.refresh);
    }
    for (const child of made) {
      this.walk.addEdge(v, child, false);
      this.walk.addEdge(child, sentinel, true);
    }
    this.walk.addEdge(v, sentinel, true);
    for (const child of made) this.relateGenerated(child);
  }

  /** A generated resource's own relationship metaparameters, as edges (to what is not done yet). */
  private relateGenerated(child: number): void {
    const resource = (this.graph.vertices[child] as Vertex).resource;
    for (const param of RELATIONSHIP_PARAMS) {
      const value = resource.parameters[param];
      if (value === undefined) continue;
      const refresh = param === "notify" || param === "subscribe";
      for (const ref of relationshipRefs(value).refs) {
        const ends = this.endsOf(ref);
        if (!ends || ends.entry === child) continue;
        if (param === "require" || param === "subscribe") this.walk.addEdge(ends.exit, child, refresh);
        else this.walk.addEdge(child, ends.entry, refresh);
      }
    }
  }

  /** The vertices a reference enters and leaves by: a resource's own, a container's anchors. */
  private endsOf(ref: string): { entry: number; exit: number } | undefined {
    const key = refKeyOf(ref) ?? "";
    const generated = this.generatedIndex.get(key);
    if (generated !== undefined) return { entry: generated, exit: generated };
    const index = this.s.built.index.get(key);
    if (index === undefined) return undefined;
    return { entry: this.s.built.entry[index] as number, exit: this.s.built.exit[index] as number };
  }

  private childPriority(v: number, vertex: Vertex): number[] {
    const next = (this.generatedCount.get(v) ?? 0) + 1;
    this.generatedCount.set(v, next);
    return [...vertex.priority, next];
  }

  // ---- events and refresh ----

  /** Queues a vertex's events at the receivers of its refresh edges (Puppet's queue_events). */
  private queueEvents(v: number, events: readonly QueuedEvent[]): void {
    if (events.length === 0) return;
    const out = this.graph.out[v] ?? [];
    for (let i = 0; i < out.length; i++) {
      const edge = out[i] as GraphEdge;
      if (!edge.refresh || !this.refreshable(edge.target)) continue;
      this.logScheduling(this.graph.vertices[v] as Vertex, edge.target);
      const target = this.state(edge.target);
      target.queue ??= [];
      target.queue.push(...events);
    }
  }

  /**
   * A self-refreshing resource's events queued to itself (Puppet's
   * self_refresh): one per distinct event name. Events a refresh itself
   * makes (`restarted`, `noop_restart`) are only logged as Puppet logs
   * them: its queue was already processed, so they are never delivered.
   */
  private queueSelfRefresh(
    v: number,
    vertex: Vertex,
    events: readonly QueuedEvent[],
    deliver: boolean,
  ): void {
    if (vertex.kind !== "resource" || events.length === 0) return;
    const type = this.s.typeOf(vertex.resource);
    if (!type?.refresh || type.selfRefresh?.(vertex.resource) !== true) return;
    const seen = new Set<string>();
    for (const event of events) {
      if (seen.has(event.name)) continue;
      seen.add(event.name);
      this.logScheduling(vertex, v);
      if (!deliver) continue;
      const state = this.state(v);
      state.queue ??= [];
      state.queue.push(event);
    }
  }

  private logScheduling(from: Vertex, to: number): void {
    if (!this.s.log.wouldLog("info")) return;
    const target = this.graph.vertices[to] as Vertex;
    if (target.kind === "completed" || target.kind === "sentinel") return;
    this.s.log.resource("info", `Scheduling refresh of ${target.ref}`, this.sourceOf(from), from.resource);
  }

  private refreshable(v: number): boolean {
    const vertex = this.graph.vertices[v] as Vertex;
    if (vertex.kind !== "resource") return true;
    return this.s.typeOf(vertex.resource)?.refresh !== undefined;
  }

  private dequeueRefresh(v: number): void {
    const state = this.state(v);
    if (!state.queue?.length) return;
    const vertex = this.graph.vertices[v] as Vertex;
    this.s.log.resource(
      "info",
      `Unscheduling refresh on ${vertex.ref}`,
      this.sourceOf(vertex),
      vertex.resource,
    );
    state.queue = [];
  }

  private dequeueAll(v: number): void {
    const state = this.state(v);
    if (!state.queue?.length) return;
    const vertex = this.graph.vertices[v] as Vertex;
    this.s.log.resource(
      "info",
      `Unscheduling all events on ${vertex.ref}`,
      this.sourceOf(vertex),
      vertex.resource,
    );
    state.queue = [];
  }

  /** Runs a vertex's refresh once for all the events it received (Puppet's process_events). */
  private async processEvents(v: number): Promise<void> {
    const state = this.state(v);
    const events = state.queue;
    if (!events?.length) return;
    state.queue = [];
    const vertex = this.graph.vertices[v] as Vertex;
    const count = `${events.length} ${events.length === 1 ? "event" : "events"}`;
    const source = this.sourceOf(vertex);
    if (
      events.every((e) => e.status === "noop") ||
      this.noopFor(vertex.resource, vertex.kind !== "resource")
    ) {
      this.s.log.resource("notice", `Would have triggered 'refresh' from ${count}`, source, vertex.resource);
      const noopRestart = [{ name: "noop_restart", status: "noop" }] as const;
      this.queueEvents(v, noopRestart);
      this.queueSelfRefresh(v, vertex, noopRestart, false);
      return;
    }
    if (vertex.kind === "resource" && !(await this.refresh(v, vertex, count))) return;
    const status = this.statusOf(v);
    if (status) status.restarted = true;
    const restarted = [{ name: "restarted", status: "success" }] as const;
    this.queueEvents(v, restarted);
    this.queueSelfRefresh(v, vertex, restarted, false);
  }

  private async refresh(v: number, vertex: Vertex, count: string): Promise<boolean> {
    const type = this.s.typeOf(vertex.resource) as ResourceType;
    const run = type.refresh as NonNullable<ResourceType["refresh"]>;
    return this.callAction(v, vertex, "refresh", `from ${count}`, (r, c) => run(r, c));
  }

  /**
   * Runs a refresh or a notification's action and records it as Puppet
   * records a refresh: `Triggered 'refresh' from 2 events` and a success
   * event, or `Failed to call refresh: ...`, failed and failed_to_restart.
   */
  private async callAction(
    v: number,
    vertex: Vertex,
    action: string,
    why: string,
    run: (resource: CatalogResource, context: ApplyContext) => Promise<ResourceResult>,
  ): Promise<boolean> {
    const status = this.statusOf(v) as ResourceStatus;
    const source = this.pathOf(vertex);
    let failure: string | undefined;
    // A refresh runs a command, restarts a service: directories may change.
    directoriesMayHaveChanged();
    try {
      const result = await run(vertex.resource, this.context(vertex, vertex.resource));
      failure = result.failed ?? result.events.find((e) => e.status === "failure")?.message;
    } catch (error) {
      failure = errorMessage(error);
    } finally {
      directoriesMayHaveChanged();
    }
    if (failure !== undefined) {
      const message = `Failed to call ${action}: ${failure}`;
      this.s.log.resource("err", message, source, vertex.resource);
      status.failed_to_restart = true;
      this.state(v).failedToRestart = true;
      addEvent(status, resourceEvent("resource_error", "failure", message));
      // The failure event makes the status failed too, as Puppet's fail_with_event does;
      // the front end's failure policy says what it does to the rest of the run.
      this.markFailed(v, vertex);
      // Puppet then logs the error itself (log_exception), at the resource.
      this.s.log.resource("err", failure, source, vertex.resource);
      return false;
    }
    const message = `Triggered '${action}' ${why}`;
    this.s.log.resource("notice", message, source, vertex.resource);
    addEvent(status, resourceEvent(action, "success", message));
    return true;
  }

  /** A notification's action on its target (the notifications hook): the front end's runner, or refresh. */
  private async runNotification(target: number, action: string | undefined, why: string): Promise<void> {
    const vertex = this.graph.vertices[target] as Vertex;
    const type = this.s.typeOf(vertex.resource);
    const runner = this.s.hooks.runNotification;
    const name = action ?? "refresh";
    if (runner) {
      let changed = false;
      const ran = await this.callAction(target, vertex, name, `by ${why}`, async (r, c) => {
        const result = await runner(r, action, c);
        changed = result.events.some((e) => e.status === "success");
        return result;
      });
      // The target's own notifications follow from what the action changed (Chef's chains).
      if (ran && changed) await this.notifications.afterApply(target, vertex.resource, true, false);
    } else if (type?.refresh) {
      const refresh = type.refresh;
      await this.callAction(target, vertex, name, `by ${why}`, (r, c) => refresh(r, c));
    } else {
      this.s.log.resource(
        "warning",
        `Cannot ${name}: ${vertex.ref} has no refresh`,
        this.pathOf(vertex),
        vertex.resource,
      );
      return;
    }
    const status = this.statusOf(target);
    if (status && !status.failed_to_restart) status.restarted = true;
  }

  // ---- statuses, paths, contexts ----

  /** The report status of a resource vertex, created (and placed in the report) on first use. */
  private statusOf(v: number): ResourceStatus | undefined {
    const vertex = this.graph.vertices[v] as Vertex;
    if (vertex.kind !== "resource") return undefined;
    const state = this.state(v);
    if (state.status) return state.status;
    const status = newStatus(vertex, this.paths.of(vertex));
    state.status = status;
    this.s.report.resource_statuses[vertex.ref] = status;
    return status;
  }

  private pathOf(vertex: Vertex): string {
    return this.paths.text(vertex);
  }

  /** Where a vertex's messages come from: its path, or for an anchor its container's reference. */
  private sourceOf(vertex: Vertex): string {
    return vertex.kind === "resource" ? this.pathOf(vertex) : vertex.ref;
  }

  private refOf(v: number): string {
    return (this.graph.vertices[v] as Vertex).ref;
  }

  private noopFor(resource: CatalogResource, anchor = false): boolean {
    const own = anchor ? undefined : resource.parameters.noop;
    if (own === true || own === "true") return true;
    if (own === false || own === "false") return false;
    return this.s.noop;
  }

  /** The context handed to a type; its logger is made only if the type asks for it. */
  private context(vertex: Vertex, resource: CatalogResource): ResourceContext {
    return new ResourceContext(
      this.noopFor(resource),
      this.s.log,
      this.paths,
      vertex,
      resource,
      this.runLogger,
      this.s.run,
      this.s.catalog,
    );
  }
}

function tagged(resource: CatalogResource, tags: readonly string[]): boolean {
  return resource.tags.some((t) => tags.includes(t.toLowerCase()));
}

/** The resource's `loglevel` metaparameter, for its events' messages (notice by default). */
function logLevelOf(resource: CatalogResource): ReportLogLevel {
  const level = resource.parameters.loglevel;
  if (level === undefined) return "notice";
  if (level === "verbose") return "info";
  return LOG_LEVELS.find((k) => k === level) ?? "notice";
}

const LOG_LEVELS: readonly ReportLogLevel[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "err",
  "alert",
  "emerg",
  "crit",
];

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A resource's evaluation time since `started` (none for one that was skipped). */
function timed(status: ResourceStatus, started: number): void {
  status.evaluation_time = status.skipped ? null : (monotonicMs() - started) / 1000;
}
