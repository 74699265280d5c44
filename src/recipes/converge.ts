/**
 * Converge and cleanup, Chef's way, on the shared catalog applier
 * (src/catalog/apply.ts) through its hooks (src/catalog/hooks.ts): the
 * collection becomes a catalog walked in declaration order (no
 * relationship edges and no automatic ones, so the applier's priority
 * order is the collection's); each resource runs its actions through its
 * recipe type; guards (`onlyIf`, `notIf`, `creates`) are the `guard` hook,
 * lazy values the `resolve` hook, notifications and subscriptions the
 * `notifications` hook with Chef's timings, a notified action the
 * `runNotification` hook, and a failure stops the run unless the resource
 * ignores failure (`failurePolicy`). Delayed notifications run at the end,
 * once per target and action, even after a failure (as chef-client runs
 * them before re-raising).
 *
 * Cleanup: the run status (every resource, the updated ones, the elapsed
 * time, the exception) goes to the report handlers on success, to the
 * exception handlers on failure; then the node is saved (the loader's
 * function), unless in why-run or after a failure.
 *
 * Progress is reported as ConvergeEvents as it happens; the CLI renders
 * them as chef-client prints its run.
 */
import { type ApplierHooks, applyCatalog, type Notification, typeRegistry } from "../catalog/index.js";
import type {
  CatalogResource,
  ResourceEvent,
  ResourceResult,
  ResourceType,
  RunReport,
} from "../catalog/index.js";
import { type CommandSpec, runCommand } from "../providers/commands/index.js";
import { AccountDatabase, inspectPath } from "../providers/files/index.js";
import { ModuleRuntime } from "../providers/modules/runtime.js";
import { monotonicMs } from "../system/clock.js";
import { Logger } from "../system/logger.js";
import { catalogTiming, type Declaration, ResourceCollection } from "./collection.js";
import { createRecipeContext, recipeTypeOf } from "./context.js";
import { type Guard, type Handler, type HandlerRunStatus, isLazy, type RecipeContext } from "./dsl.js";
import type { Node } from "./model.js";
import { RunNode } from "./node.js";
import { customProps } from "./types/custom.js";
import type {
  ActionOutcome,
  ActionTarget,
  NestedOutcome,
  OuterNotification,
  RecipeActionContext,
  RecipeResourceType,
  RecipeSystem,
} from "./types/type.js";

/** What happened to one resource's action, as it happens. */
export interface ResourceActionEvent {
  readonly kind: "action";
  /** 0 for the run's resources, 1 for those a custom resource's action declared... */
  readonly depth: number;
  readonly ref: string;
  readonly recipe: string;
  readonly action: string;
  readonly status: "updated" | "up-to-date" | "skipped" | "failed";
  /** What changed (or would), one line each, without chef-client's "- ". */
  readonly lines: readonly string[];
  /** Why-run: failed requirements and what is assumed instead, one line each (`* ` in chef-client's output). */
  readonly assumptions?: readonly string[];
  readonly whyRun: boolean;
  /** Why it was skipped: `only_if`, `not_if`, `creates`. */
  readonly skippedBy?: string;
  readonly error?: string;
  /** The failure was ignored (ignoreFailure). */
  readonly ignored?: boolean;
  /** Set when a notification ran the action: `delayed notification from file[/x]`... */
  readonly notified?: boolean;
}

export type ConvergeEvent =
  | ResourceActionEvent
  /** A custom resource's action starts (what it declares is reported before its own result). */
  | {
      readonly kind: "action-start";
      readonly depth: number;
      readonly ref: string;
      readonly recipe: string;
      readonly action: string;
    }
  | { readonly kind: "would-notify"; readonly depth: number; readonly message: string }
  | { readonly kind: "log"; readonly level: "debug" | "info" | "warn" | "error"; readonly message: string }
  | { readonly kind: "converge-start"; readonly depth: number; readonly resources: number }
  | { readonly kind: "handlers"; readonly phase: "start" | "end"; readonly count: number };

export interface ResourceSummary {
  readonly ref: string;
  readonly recipe: string;
  readonly file?: string;
  readonly line?: number;
  readonly actions: readonly string[];
  updated: boolean;
  skipped: boolean;
  failed: boolean;
  ignoredFailure: boolean;
  readonly lines: string[];
}

/** The run status handlers receive and the CLI prints from. */
export interface RunStatus extends HandlerRunStatus {
  readonly allResources: readonly ResourceSummary[];
  readonly updatedResources: readonly ResourceSummary[];
  readonly startTime: Date;
  readonly endTime: Date;
  /** The applier's report of the top-level walk. */
  readonly report: RunReport;
  /** Handlers that threw, as `handler: message`. */
  readonly handlerErrors: readonly string[];
}

export interface ConvergeOptions {
  readonly whyRun?: boolean;
  readonly system?: RecipeSystem;
  /** The run's node (default: an empty one, no host facts). */
  readonly node?: Node;
  readonly nodeName?: string;
  readonly onEvent?: (event: ConvergeEvent) => void;
  readonly reportHandlers?: readonly Handler[];
  readonly exceptionHandlers?: readonly Handler[];
  /** Saves the node as JSON at the end of a successful run (the loader's). */
  readonly saveNode?: () => void | Promise<void>;
}

/** Per-run state, passed down (never module-level). */
interface RunState {
  readonly whyRun: boolean;
  readonly system: RecipeSystem;
  readonly accounts: AccountDatabase;
  readonly node: Node;
  readonly emit: (event: ConvergeEvent) => void;
  readonly summaries: ResourceSummary[];
  exception?: { message: string; resource?: string };
  /** Promise modules' processes, started on first use, ended with the run. */
  modules?: ModuleRuntime;
}

/** Converges a compiled collection, then runs the handlers and saves the node. */
export async function converge(
  collection: ResourceCollection,
  options: ConvergeOptions = {},
): Promise<RunStatus> {
  const startTime = new Date();
  const started = monotonicMs();
  const system = options.system ?? {};
  const state: RunState = {
    whyRun: options.whyRun === true,
    system,
    accounts: new AccountDatabase(system.root ?? "/"),
    node: options.node ?? new RunNode(options.nodeName ?? "localhost", () => ({})),
    emit: options.onEvent ?? (() => undefined),
    summaries: [],
  };
  let walk: Awaited<ReturnType<typeof convergeCollection>>;
  try {
    walk = await convergeCollection(collection, state, 0, options.nodeName);
  } finally {
    state.modules?.shutdown(new Logger(({ message }) => state.emit({ kind: "log", level: "warn", message })));
  }
  const success = state.exception === undefined;
  const status = {
    success,
    whyRun: state.whyRun,
    allResources: state.summaries,
    updatedResources: state.summaries.filter((s) => s.updated),
    exception: state.exception,
    startTime,
    report: walk.report,
    handlerErrors: [] as string[],
  };
  const handlers = success
    ? [...(options.reportHandlers ?? []), ...collection.reportHandlers]
    : [...(options.exceptionHandlers ?? []), ...collection.exceptionHandlers];
  const elapsed = (): number => monotonicMs() - started;
  state.emit({ kind: "handlers", phase: "start", count: handlers.length });
  for (const handler of handlers) {
    try {
      await handler({ ...status, elapsedMs: elapsed() });
    } catch (error) {
      status.handlerErrors.push(`${handler.name || "handler"}: ${messageOf(error)}`);
    }
  }
  state.emit({ kind: "handlers", phase: "end", count: handlers.length });
  if (success && !state.whyRun && options.saveNode) await options.saveNode();
  return { ...status, elapsedMs: elapsed(), endTime: new Date() };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** One collection's walk on the applier (the run's, or a custom resource's action's). */
async function convergeCollection(
  collection: ResourceCollection,
  state: RunState,
  depth: number,
  nodeName = "localhost",
): Promise<{
  report: RunReport;
  updated: boolean;
  failed?: string;
  notifications: readonly OuterNotification[];
}> {
  const catalog = collection.toCatalog(nodeName);
  const walk = new CollectionWalk(collection, state, depth, catalog.resources);
  state.emit({ kind: "converge-start", depth, resources: catalog.resources.length });
  const report = await applyCatalog(catalog, walk.registry(), {
    noop: state.whyRun,
    hooks: walk.hooks(),
    logLevel: "notice",
    onLog: (log) => {
      if (log.message.startsWith("Would have notified"))
        state.emit({ kind: "would-notify", depth, message: log.message });
    },
  });
  const notifications = walk.outer;
  if (report.failure) {
    state.exception ??= { message: report.failure.message };
    return { report, updated: walk.updated, failed: report.failure.message, notifications };
  }
  return { report, updated: walk.updated, failed: walk.failed, notifications };
}

/** A declaration and its values, once its lazy values are computed. */
interface Resolved {
  readonly declaration: Declaration;
  readonly summary: ResourceSummary;
  props?: Readonly<Record<string, unknown>>;
}

class CollectionWalk {
  private readonly byResource = new Map<CatalogResource, Resolved>();
  private readonly subscriptions = new Map<Declaration, Notification[]>();
  /** Notifications a custom resource passes on from its inner resources, sent after its action. */
  private readonly passedOn = new Map<Declaration, Notification[]>();
  /** This collection's updated resources' notifications to resources outside it (for the enclosing run). */
  readonly outer: OuterNotification[] = [];
  updated = false;
  failed?: string;

  constructor(
    private readonly collection: ResourceCollection,
    private readonly state: RunState,
    private readonly depth: number,
    resources: readonly CatalogResource[],
  ) {
    collection.declarations.forEach((declaration, i) => {
      const summary: ResourceSummary = {
        ref: refOf(declaration),
        recipe: declaration.recipe,
        file: declaration.location?.file,
        line: declaration.location?.line,
        actions: declaration.actions,
        updated: false,
        skipped: false,
        failed: false,
        ignoredFailure: false,
        lines: [],
      };
      if (depth === 0) state.summaries.push(summary);
      this.byResource.set(resources[i] as CatalogResource, { declaration, summary });
    });
    for (const declaration of collection.declarations)
      for (const s of declaration.subscribes) {
        const source = collection.find(s.source);
        if (!source) continue;
        const list = this.subscriptions.get(source) ?? [];
        list.push({ target: catalogRef(declaration), action: s.action, timing: catalogTiming(s.timing) });
        this.subscriptions.set(source, list);
      }
  }

  registry(): ReturnType<typeof typeRegistry> {
    const types = new Map<string, ResourceType>();
    for (const d of this.collection.declarations) {
      const name = d.type.toLowerCase();
      if (types.has(name)) continue;
      const recipeType = recipeTypeOf(this.collection, d.type);
      if (recipeType) types.set(name, this.adapter(name, recipeType));
    }
    return typeRegistry([...types.values()]);
  }

  hooks(): ApplierHooks {
    return {
      guard: (resource) => this.guard(this.entry(resource)),
      resolve: (resource) => this.resolve(resource),
      notifications: (resource) => this.notificationsOf(this.entry(resource).declaration),
      runNotification: (target, action) => this.runNotification(this.entry(target), action),
      failurePolicy: (resource) => (this.entry(resource).declaration.ignoreFailure ? "ignore" : "stop-run"),
      // Chef's why-run runs notified actions in why-run: they say what they would do.
      runNotificationsInNoop: true,
    };
  }

  private entry(resource: CatalogResource): Resolved {
    const found = this.byResource.get(resource);
    if (!found) throw new Error(`${resource.type}[${resource.title}] is not in the resource collection`);
    return found;
  }

  // ---- guards ----

  private async guard(entry: Resolved): Promise<{ run: true } | { run: false; reason: string }> {
    const skippedBy = await this.skippedBy(entry.declaration);
    if (skippedBy === undefined) return { run: true };
    entry.summary.skipped = true;
    this.emitAction(entry, entry.declaration.actions[0] ?? "nothing", {
      status: "skipped",
      skippedBy,
      lines: [],
    });
    return { run: false, reason: `skipped due to ${skippedBy}` };
  }

  /** The guard that skips the resource (`only_if`, `not_if`, `creates`), or undefined. */
  private async skippedBy(d: Declaration): Promise<string | undefined> {
    for (const guard of d.onlyIf) if (!(await this.check(guard))) return "only_if";
    for (const guard of d.notIf) if (await this.check(guard)) return "not_if";
    const creates = d.props.creates;
    if (typeof creates === "string" && inspectPath(creates).kind !== "absent") return "creates";
    return undefined;
  }

  private async check(guard: Guard): Promise<boolean> {
    if (typeof guard === "function") return (await guard()) === true;
    const result = this.runCommand({ command: { shell: guard } });
    return result.exitCode === 0;
  }

  private runCommand(spec: CommandSpec): ReturnType<typeof runCommand> {
    return (this.state.system.runCommand ?? runCommand)(spec);
  }

  // ---- lazy values ----

  private async resolve(resource: CatalogResource): Promise<CatalogResource> {
    const entry = this.entry(resource);
    const props = await this.propsOf(entry);
    if (!Object.values(entry.declaration.props).some(isLazy)) return resource;
    const parameters = { ...resource.parameters };
    for (const [key, value] of Object.entries(entry.declaration.props))
      if (isLazy(value)) parameters[key] = jsonOf(props[key]);
    const resolved = { ...resource, parameters };
    this.byResource.set(resolved, entry);
    return resolved;
  }

  /** The values of a resource, lazy ones computed (once), the name property and defaults filled in. */
  private async propsOf(entry: Resolved): Promise<Readonly<Record<string, unknown>>> {
    if (entry.props) return entry.props;
    const d = entry.declaration;
    const props: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(d.props))
      props[key] = isLazy(value) ? await value.compute() : value;
    const type = recipeTypeOf(this.collection, d.type);
    if (type?.nameProperty && props[type.nameProperty] === undefined) props[type.nameProperty] = d.name;
    entry.props = d.custom ? customProps(d.custom, d.name, props) : props;
    return entry.props;
  }

  // ---- notifications ----

  private notificationsOf(d: Declaration): readonly Notification[] {
    // A target outside this collection is the enclosing run's to notify (see record).
    const own = d.notifies
      .filter((n) => this.depth === 0 || this.collection.find(n.target))
      .map((n) => ({
        target: chefToCatalogRef(n.target),
        action: n.action,
        timing: catalogTiming(n.timing),
      }));
    const subscribed = this.subscriptions.get(d) ?? [];
    const passed = this.passedOn.get(d) ?? [];
    return subscribed.length === 0 && passed.length === 0 ? own : [...own, ...subscribed, ...passed];
  }

  /**
   * Chef sends a notification to the run context of the resource it
   * targets: one from an updated inner resource to a resource outside this
   * collection goes up to the enclosing run; one that came up from a custom
   * resource's inner run and targets this collection is sent from that
   * custom resource (a delayed one joins this run's queue, de-duplicated).
   */
  private passOn(d: Declaration, outcome: ActionOutcome): void {
    if (this.depth > 0)
      for (const n of d.notifies)
        if (!this.collection.find(n.target))
          this.outer.push({ target: n.target, action: n.action, timing: catalogTiming(n.timing) });
    for (const n of outcome.notifications ?? []) {
      if (this.depth > 0 && !this.collection.find(n.target)) {
        this.outer.push(n);
        continue;
      }
      const list = this.passedOn.get(d) ?? [];
      // `before` cannot precede an action already done: it runs right after, as an immediate one.
      const timing = n.timing === "before" ? "immediate" : n.timing;
      list.push({ target: chefToCatalogRef(n.target), action: n.action, timing });
      this.passedOn.set(d, list);
    }
  }

  private async runNotification(entry: Resolved, action: string | undefined): Promise<ResourceResult> {
    // As Chef's run_action, a notified action is guarded too.
    const skippedBy = await this.skippedBy(entry.declaration);
    if (skippedBy !== undefined) {
      const name = action ?? entry.declaration.actions[0] ?? "nothing";
      this.emitAction(entry, name, { status: "skipped", skippedBy, lines: [], notified: true });
      return { events: [] };
    }
    return this.runActions(entry, [action ?? entry.declaration.actions[0] ?? "nothing"], false, true);
  }

  // ---- actions ----

  private adapter(name: string, type: RecipeResourceType): ResourceType {
    return {
      name,
      apply: async (resource, context) => {
        const entry = this.entry(resource);
        // A dry run the applier makes to learn whether `before` notifications are due.
        const probe = context.noop && !this.state.whyRun;
        return this.runActions(entry, entry.declaration.actions, probe, false, type);
      },
    };
  }

  private async runActions(
    entry: Resolved,
    actions: readonly string[],
    probe: boolean,
    notified: boolean,
    known?: RecipeResourceType,
  ): Promise<ResourceResult> {
    const d = entry.declaration;
    const type = known ?? recipeTypeOf(this.collection, d.type);
    if (!type) return { events: [], failed: `unknown resource type '${d.type}'` };
    const props = await this.propsOf(entry);
    const target: ActionTarget = { declaration: d, ref: refOf(d), props };
    const context = this.actionContext(probe || this.state.whyRun);
    // What an earlier run of this resource passed on was sent then.
    if (!probe) this.passedOn.delete(d);
    const events: ResourceEvent[] = [];
    let provider: string | undefined;
    for (const action of actions) {
      let outcome: ActionOutcome;
      if (d.custom && !probe)
        this.state.emit({ kind: "action-start", depth: this.depth, ref: refOf(d), recipe: d.recipe, action });
      try {
        outcome = await type.run(action, target, context);
      } catch (error) {
        outcome = { updated: false, lines: [], failed: messageOf(error) };
      }
      provider ??= outcome.provider;
      if (!probe) this.record(entry, action, outcome, notified);
      if (outcome.updated)
        events.push({
          property: action,
          message: outcome.lines.join("; ") || action,
          status: probe || this.state.whyRun ? "noop" : "success",
        });
      if (outcome.failed !== undefined) {
        events.push({ property: action, message: outcome.failed, status: "failure" });
        return { events, failed: outcome.failed, provider };
      }
    }
    return { events, provider };
  }

  private record(entry: Resolved, action: string, outcome: ActionOutcome, notified: boolean): void {
    const summary = entry.summary;
    const d = entry.declaration;
    if (outcome.updated) {
      summary.updated = true;
      this.updated = true;
      summary.lines.push(...outcome.lines);
      this.passOn(d, outcome);
    }
    if (outcome.failed !== undefined) {
      summary.failed = true;
      summary.ignoredFailure = d.ignoreFailure;
      if (!d.ignoreFailure) {
        this.failed ??= `${refOf(d)}: ${outcome.failed}`;
        if (this.depth === 0) this.state.exception ??= { message: outcome.failed, resource: refOf(d) };
      }
    }
    this.emitAction(entry, action, {
      status: outcome.failed !== undefined ? "failed" : outcome.updated ? "updated" : "up-to-date",
      lines: outcome.lines,
      ...(outcome.assumptions?.length ? { assumptions: outcome.assumptions } : {}),
      error: outcome.failed,
      ignored: outcome.failed !== undefined && d.ignoreFailure ? true : undefined,
      notified: notified || undefined,
    });
  }

  private emitAction(
    entry: Resolved,
    action: string,
    detail: Pick<
      ResourceActionEvent,
      "status" | "lines" | "assumptions" | "skippedBy" | "error" | "ignored" | "notified"
    >,
  ): void {
    this.state.emit({
      kind: "action",
      depth: this.depth,
      ref: entry.summary.ref,
      recipe: entry.declaration.recipe,
      action,
      whyRun: this.state.whyRun,
      ...detail,
    });
  }

  private actionContext(whyRun: boolean): RecipeActionContext {
    const state = this.state;
    return {
      whyRun,
      system: state.system,
      accounts: state.accounts,
      node: state.node,
      log: (level, message) => state.emit({ kind: "log", level, message }),
      runCommand: (spec) => this.runCommand(spec),
      modules: () => {
        state.modules ??= new ModuleRuntime();
        return state.modules;
      },
      nested: (target, body) => this.nested(target, body, whyRun),
    };
  }

  /** A custom resource's action: its own collection, compiled by `body`, converged one level down. */
  private async nested(
    target: ActionTarget,
    body: (r: RecipeContext) => Promise<void>,
    whyRun: boolean,
  ): Promise<NestedOutcome> {
    const d = target.declaration;
    const sub = new ResourceCollection(this.collection);
    for (const [name, resource] of this.collection.customTypes) sub.customTypes.set(name, resource);
    for (const [name, spec] of this.collection.moduleTypes) sub.moduleTypes.set(name, spec);
    for (const [name, definition] of this.collection.definitions) sub.definitions.set(name, definition);
    const context = createRecipeContext(sub, {
      recipe: d.recipe,
      cookbook: d.cookbook,
      cookbookDir: d.cookbookDir,
      node: this.state.node,
    });
    await body(context);
    sub.checkReferences((type) => recipeTypeOf(sub, type)?.actions);
    if (sub.diagnostics.length > 0)
      return { updated: false, failed: sub.diagnostics.map((p) => p.message).join("; ") };
    if (sub.declarations.length === 0) return { updated: false };
    const state = whyRun === this.state.whyRun ? this.state : { ...this.state, whyRun };
    const result = await convergeCollection(sub, state, this.depth + 1);
    return { updated: result.updated, failed: result.failed, notifications: result.notifications };
  }
}

/** `file[/x]`, as chef-client names a resource. */
export function refOf(d: Pick<Declaration, "type" | "name">): string {
  return `${d.type}[${d.name}]`;
}

/** The catalog's reference of a declaration. */
function catalogRef(d: Declaration): string {
  return chefToCatalogRef(refOf(d));
}

/** `service[nginx]` → `Service[nginx]` (the catalog capitalises types). */
function chefToCatalogRef(ref: string): string {
  const open = ref.indexOf("[");
  if (open <= 0) return ref;
  const type = ref.slice(0, open);
  return `${type.charAt(0).toUpperCase()}${type.slice(1)}${ref.slice(open)}`;
}

function jsonOf(value: unknown): import("../catalog/index.js").ParamValue {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as import("../catalog/index.js").ParamValue;
  } catch {
    return String(value);
  }
}
