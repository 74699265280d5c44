/**
 * The typed DSL recipes and custom resources are written in (Chef's model
 * in TypeScript, issue 17), published as the package subpath
 * `tend/recipes`. A recipe file is
 *
 *   import type { RecipeContext } from "tend/recipes";
 *   export default (r: RecipeContext) => {
 *     r.file("/etc/motd", { content: "hello\n", mode: "0644" });
 *     r.service("nginx", { action: ["enable", "start"] });
 *     r.template("/etc/nginx/nginx.conf", {
 *       source: "nginx.conf.mustache",
 *       variables: { port: 80 },
 *       notifies: r.notifies("reload", "service[nginx]", "delayed"),
 *     });
 *   };
 *
 * Declaring a resource only appends it to the run's resource collection;
 * nothing changes until converge. Values wanted only at converge time are
 * `lazy(() => value)`; guards (`onlyIf`, `notIf`) are functions or shell
 * command lines, run right before the resource. Properties, actions and
 * notification targets are types: a misspelt property, an action a
 * resource lacks, or a notification asking `service[x]` to `creat` fails
 * type checking. Every helper is also on the context (`r.lazy`,
 * `r.notifies`...), so a recipe needs only a type import.
 *
 * A custom resource file is `export default defineResource({...})`: typed
 * properties (from `String`, `Number`, `Boolean`, `Array`, `Object`, with
 * defaults), actions whose bodies declare resources (converged at once, in
 * a collection of their own), `loadCurrentValue` and `convergeIfChanged`.
 */

/** The node as attribute files see it (`export default (node: Node) => { node.default.x = 1 }`). */
export type { Node } from "./model.js";

import type { Node } from "./model.js";

// ---- values computed at converge time ----

const LAZY = Symbol.for("tend.recipes.lazy");

/** A value computed right before the resource that holds it converges. */
export interface Lazy<T> {
  readonly [LAZY]: true;
  readonly compute: () => T;
}

/** `lazy(() => readFileSync(...))`: the function runs at converge time, not while compiling. */
export function lazy<T>(compute: () => T): Lazy<T> {
  return { [LAZY]: true, compute };
}

/** Whether a value is a `lazy()` one. */
export function isLazy(value: unknown): value is Lazy<unknown> {
  return typeof value === "object" && value !== null && (value as { [LAZY]?: unknown })[LAZY] === true;
}

/** A property's value, now or lazily. */
export type Value<T> = T | Lazy<T>;

// ---- resource types, their properties and actions ----

export type Mode = string | number;
export type Owner = string | number;

/** Properties of each built-in resource type (all optional: each has a default or the name). */
export interface ResourceProperties {
  file: {
    /** Default: the resource's name. */
    path: string;
    content: string | Uint8Array;
    mode: Mode;
    owner: Owner;
    group: Owner;
  };
  template: {
    path: string;
    /** A file of the cookbook's `templates/` (or an absolute path), mustache syntax (see template.ts). */
    source: string;
    /** The cookbook whose templates/ holds `source` (default: the declaring recipe's). */
    cookbook: string;
    variables: TemplateVariables;
    mode: Mode;
    owner: Owner;
    group: Owner;
  };
  directory: {
    path: string;
    mode: Mode;
    owner: Owner;
    group: Owner;
    /** Create missing parents; delete the directory with what it holds. */
    recursive: boolean;
  };
  link: {
    /** The link's own path; default: the resource's name. */
    targetFile: string;
    /** What the link points to. */
    to: string;
    linkType: "symbolic" | "hard";
  };
  execute: ExecuteProperties & {
    /** Default: the resource's name, run by /bin/sh -c; an array runs without a shell. */
    command: string | readonly string[];
  };
  script: ExecuteProperties & {
    code: string;
    interpreter: "bash" | "sh";
    flags: string;
  };
  bash: ExecuteProperties & { code: string; flags: string };
  sh: ExecuteProperties & { code: string; flags: string };
  package: {
    /** Default: the resource's name. */
    packageName: string;
    version: string;
    /** A .deb file to install from. */
    source: string;
    options: readonly string[];
  };
  service: {
    serviceName: string;
    /** Default: systemd when it runs the machine, else debian (init scripts). */
    provider: "systemd" | "debian" | "init" | "base";
    startCommand: string;
    stopCommand: string;
    restartCommand: string;
    statusCommand: string;
    reloadCommand: string;
    pattern: string;
  };
  user: {
    username: string;
    uid: number;
    gid: string | number;
    comment: string;
    home: string;
    shell: string;
    /** The password hash, as /etc/shadow holds it. */
    password: string;
    manageHome: boolean;
    system: boolean;
  };
  group: {
    groupName: string;
    gid: number;
    members: readonly string[];
    /** true: add `members` and remove `excludedMembers`; false (default, as Chef): exactly `members`. */
    append: boolean;
    /** Removed from the group (with `append: true`). */
    excludedMembers: readonly string[];
    system: boolean;
  };
  cron: {
    minute: string;
    hour: string;
    day: string;
    month: string;
    weekday: string;
    /** `@daily`-style schedule instead of the five fields: `daily`, `weekly`, `reboot`... */
    time: "reboot" | "yearly" | "annually" | "monthly" | "weekly" | "daily" | "midnight" | "hourly";
    command: string;
    user: string;
    environment: Readonly<Record<string, string>>;
  };
  log: {
    /** Default: the resource's name. */
    message: string;
    level: "debug" | "info" | "warn" | "error" | "fatal";
  };
  block: {
    /** TypeScript run at converge time (Chef's ruby_block). */
    block: () => void | Promise<void>;
  };
}

export interface ExecuteProperties {
  cwd: string;
  environment: Readonly<Record<string, string>>;
  user: Owner;
  group: Owner;
  /** Exit statuses that mean success (default 0). */
  returns: number | readonly number[];
  /** Seconds before the command is killed. */
  timeout: number;
  /** The command is not run when this path exists. */
  creates: string;
}

/** The actions of each resource type; augment it (declaration merging) for custom resources named in strings. */
export interface ResourceActions {
  file: "create" | "create_if_missing" | "delete" | "touch" | "nothing";
  template: "create" | "create_if_missing" | "delete" | "touch" | "nothing";
  directory: "create" | "delete" | "nothing";
  link: "create" | "delete" | "nothing";
  execute: "run" | "nothing";
  script: "run" | "nothing";
  bash: "run" | "nothing";
  sh: "run" | "nothing";
  package: "install" | "upgrade" | "remove" | "purge" | "nothing";
  service: "start" | "stop" | "restart" | "reload" | "enable" | "disable" | "nothing";
  user: "create" | "remove" | "modify" | "manage" | "lock" | "unlock" | "nothing";
  group: "create" | "remove" | "modify" | "manage" | "nothing";
  cron: "create" | "delete" | "nothing";
  log: "write" | "nothing";
  block: "run" | "create" | "nothing";
}

export type BuiltinType = keyof ResourceProperties;

/** Template variables: what a mustache template can read. */
export type TemplateVariables = { readonly [name: string]: TemplateValue };
export type TemplateValue =
  | string
  | number
  | boolean
  | null
  | undefined
  | readonly TemplateValue[]
  | { readonly [name: string]: TemplateValue };

// ---- notifications, subscriptions, guards ----

/** When a notified action runs: at the end of converge (once), right after, or right before. */
export type Timing = "delayed" | "immediately" | "immediate" | "before";

/** A resource declared in this run: what notifications can target. */
export interface ResourceHandle<A extends string = string> {
  /** `type[name]`, as Chef writes a resource. */
  readonly ref: string;
  /** The actions it has (a type only: absent at run time). */
  readonly actions?: readonly A[];
}

/** `type[name]` of a built-in type or one added to ResourceActions. */
export type TargetRef = `${keyof ResourceActions}[${string}]`;

/** The actions of the resource a target names. */
export type ActionOf<S> =
  S extends ResourceHandle<infer A>
    ? A
    : S extends `${infer T}[${string}]`
      ? T extends keyof ResourceActions
        ? ResourceActions[T]
        : never
      : never;

export interface Notify {
  readonly kind: "notifies";
  readonly action: string;
  /** `type[name]`. */
  readonly target: string;
  readonly timing: Timing;
}

/** A subscription: run `action` of the declaring resource when `source` changes. */
export interface Subscribe<A extends string = string> {
  readonly kind: "subscribes";
  readonly action: A;
  readonly source: string;
  readonly timing: Timing;
}

/** `notifies("restart", "service[nginx]", "delayed")`: the target must have the action. */
export function notifies<S extends TargetRef | ResourceHandle>(
  action: NoInfer<ActionOf<S>>,
  target: S,
  timing: Timing = "delayed",
): Notify {
  return { kind: "notifies", action, target: typeof target === "string" ? target : target.ref, timing };
}

/** `subscribes("restart", "template[/etc/x.conf]")`: the action is the declaring resource's. */
export function subscribes<A extends string>(
  action: A,
  source: string | ResourceHandle,
  timing: Timing = "delayed",
): Subscribe<A> {
  return { kind: "subscribes", action, source: typeof source === "string" ? source : source.ref, timing };
}

/** A guard: a function (true: go on) or a shell command line (exit status 0: go on). */
export type Guard = string | (() => boolean | Promise<boolean>);

/** What every resource takes beside its own properties. */
export interface CommonProperties<A extends string> {
  /** The action(s) to run, in order (default: the type's default action). */
  action?: A | readonly A[];
  notifies?: Notify | readonly Notify[];
  subscribes?: Subscribe<A> | readonly Subscribe<A>[];
  /** Run only if every guard says yes. */
  onlyIf?: Guard | readonly Guard[];
  /** Skip if any guard says yes. */
  notIf?: Guard | readonly Guard[];
  /** A failure is reported but does not stop the run. */
  ignoreFailure?: boolean;
}

/** Each property given now or as `lazy()`. */
export type Lazily<P> = { [K in keyof P]?: Value<P[K]> };

/** The properties a declaration of a built-in type takes. */
export type Props<T extends BuiltinType> = Lazily<ResourceProperties[T]> &
  CommonProperties<ResourceActions[T]>;

// ---- custom resources ----

/** Property types of custom resources, by constructor (Chef's `property :port, Integer`). */
export type PropertyConstructor =
  | StringConstructor
  | NumberConstructor
  | BooleanConstructor
  | ArrayConstructor
  | ObjectConstructor;

export type TypeOf<C> = C extends StringConstructor
  ? string
  : C extends NumberConstructor
    ? number
    : C extends BooleanConstructor
      ? boolean
      : C extends ArrayConstructor
        ? readonly TemplateValue[]
        : C extends ObjectConstructor
          ? { readonly [key: string]: TemplateValue }
          : never;

export interface PropertySpec<C extends PropertyConstructor = PropertyConstructor> {
  readonly type: C;
  /** The value when none is given; a function is called once per resource. */
  readonly default?: TypeOf<C> | (() => TypeOf<C>);
  /** A declaration without it fails (at compile time, with its location). */
  readonly required?: boolean;
  /** Takes the resource's name when not given (Chef's name_property). */
  readonly nameProperty?: boolean;
}

export type PropertySpecs = { readonly [name: string]: PropertySpec };

/** The properties' values, typed from their specs. */
export type PropsOf<P extends PropertySpecs> = { readonly [K in keyof P]: TypeOf<P[K]["type"]> };

/** What an action body has: the DSL (to declare resources), the resource's values, the current ones. */
export interface ActionContext<P> extends RecipeContext {
  /** The resource's name. */
  readonly name: string;
  /** The wanted values (Chef's new_resource), defaults filled in. */
  readonly props: P;
  /** The values loadCurrentValue found (Chef's current_resource); undefined when absent. */
  readonly current: Partial<P> | undefined;
  /** Whether this is a why-run: nothing may change. */
  readonly whyRun: boolean;
  /**
   * Runs `change` only if a property given (or every property, when the
   * resource is absent) differs from the current value; the resource is
   * then updated, each difference one line of the report. In why-run the
   * differences are reported and `change` is not run.
   */
  convergeIfChanged(change: () => void | Promise<void>): Promise<void>;
  /** Runs `change` and marks the resource updated with `description` (in why-run: only reports it). */
  convergeBy(description: string, change: () => void | Promise<void>): Promise<void>;
}

export interface CustomResourceSpec<Name extends string, P extends PropertySpecs, A extends string> {
  /** The type's name in recipes and references (`site`: `site[main]`); default: `<cookbook>_<file>`. */
  readonly name?: Name;
  readonly properties: P;
  /**
   * Each action's body; `null` for an action a provider supplies
   * (providers/<same file name>.ts, `defineProvider`: Chef's LWRP split).
   */
  readonly actions: { readonly [K in A]: ((ctx: ActionContext<PropsOf<P>>) => void | Promise<void>) | null };
  /** Default: the first action. */
  readonly defaultAction?: NoInfer<A>;
  /** The values found on the system, undefined when the resource does not exist (Chef's load_current_value). */
  readonly loadCurrentValue?: (
    name: string,
    desired: PropsOf<P>,
  ) => Partial<PropsOf<P>> | undefined | Promise<Partial<PropsOf<P>> | undefined>;
}

export interface CustomResource<
  Name extends string = string,
  P = Record<string, unknown>,
  A extends string = string,
> {
  readonly kind: "custom-resource";
  readonly name: Name | undefined;
  readonly spec: CustomResourceSpec<Name, PropertySpecs, A>;
  /** The resource a provider completed, when this is that completion (set at load). */
  readonly base?: CustomResource;
  /** Types only. */
  readonly props?: P;
  readonly actionNames?: A;
}

/** Props a declaration of a custom resource takes. */
export type CustomProps<R> =
  R extends CustomResource<string, infer P, infer A> ? Lazily<P> & CommonProperties<A> : never;

/** `export default defineResource({ properties: {...}, actions: {...} })`. */
export function defineResource<const Name extends string, P extends PropertySpecs, A extends string>(
  spec: CustomResourceSpec<Name, P, A>,
): CustomResource<Name, PropsOf<P>, A> {
  return {
    kind: "custom-resource",
    name: spec.name,
    spec: spec as unknown as CustomResourceSpec<Name, PropertySpecs, A>,
  };
}

/** The action bodies a providers/ file gives a resource of resources/ (Chef's LWRP provider). */
export interface CustomProvider<A extends string = string> {
  readonly kind: "provider";
  readonly resource: CustomResource;
  readonly actions: { readonly [K in A]?: (ctx: ActionContext<never>) => void | Promise<void> };
}

/**
 * `export default defineProvider(site, { create: async (a) => { ... } })`
 * in providers/site.ts: the actions of the resource of resources/site.ts
 * (imported), typed from its properties. A resource action written `null`
 * is taken from here; one written in both places runs the provider's.
 */
export function defineProvider<P, A extends string>(
  resource: CustomResource<string, P, A>,
  actions: { readonly [K in A]?: (ctx: ActionContext<P>) => void | Promise<void> },
): CustomProvider<A> {
  return {
    kind: "provider",
    resource: resource as unknown as CustomResource,
    actions: actions as CustomProvider<A>["actions"],
  };
}

/** Parameters of a definition, with the name it was called with. */
export type DefinitionParams<P> = P & { readonly name: string };

/** A definition (Chef's `define`): a macro of resources, expanded while the recipe compiles. */
export interface Definition<Name extends string = string, P = Record<string, unknown>> {
  readonly kind: "definition";
  /** The name recipes call it by (`r.resource("apache_site", ...)`); default: its file's name. */
  readonly name: Name | undefined;
  readonly defaults: Partial<P>;
  readonly body: (r: RecipeContext, params: DefinitionParams<P>) => void;
}

/**
 * `export default defineDefinition({ name: "apache_site", defaults: { enable: true }, body: (r, params) => { ... } })`
 * in definitions/: the body runs when a recipe calls it (`r.expand(def,
 * "site", { enable: false })`, or untyped `r.resource("apache_site", ...)`)
 * and declares its resources in the recipe's collection, as Chef expands
 * a definition: it is no resource itself (nothing can notify it) and its
 * body must be synchronous.
 */
export function defineDefinition<const Name extends string, P extends Record<string, unknown>>(spec: {
  readonly name?: Name;
  readonly defaults?: Partial<P>;
  readonly body: (r: RecipeContext, params: DefinitionParams<P>) => void;
}): Definition<Name, P> {
  return { kind: "definition", name: spec.name, defaults: spec.defaults ?? {}, body: spec.body };
}

// ---- the recipe's view ----

/** An attribute's value, as node JSON holds it. */
export type AttributeValue =
  | string
  | number
  | boolean
  | null
  | readonly AttributeValue[]
  | { readonly [key: string]: AttributeValue };

/** What report and exception handlers receive (see converge.ts). */
export interface HandlerRunStatus {
  readonly success: boolean;
  readonly whyRun: boolean;
  readonly elapsedMs: number;
  readonly allResources: readonly { readonly ref: string; readonly updated: boolean }[];
  readonly updatedResources: readonly { readonly ref: string; readonly updated: boolean }[];
  readonly exception?: { readonly message: string; readonly resource?: string };
}

export type Handler = (status: HandlerRunStatus) => void | Promise<void>;

/**
 * tend's client.rb: a `--config` file (TypeScript or JavaScript) whose
 * default export gives the run's handlers, as chef-client's
 * `report_handlers << ...` and `exception_handlers << ...`. They run
 * before the handlers recipes register (`r.onReport`, `r.onException`).
 */
export interface RunConfig {
  /** Called at the end of a successful run. */
  readonly reportHandlers?: readonly Handler[];
  /** Called at the end of a failed run. */
  readonly exceptionHandlers?: readonly Handler[];
}

/** `export default defineConfig({ reportHandlers: [...] })`: the config, typed. */
export function defineConfig(config: RunConfig): RunConfig {
  return config;
}

/** Declares resources of one type: returns a handle to notify it. */
type Declare<T extends BuiltinType> = (name: string, props?: Props<T>) => ResourceHandle<ResourceActions[T]>;

/** What a recipe receives. */
export interface RecipeContext {
  /**
   * The run's node, the same object attribute files write: reads are merged
   * (`r.node.get("nginx", "port")`, `r.node.attributes.platform`), writes go
   * to a level (`r.node.default.nginx.port = 80`, `r.node.override...`;
   * `r.node.normal...` is kept in the saved node for the next run).
   */
  readonly node: Node;
  /** The recipe running now (`cookbook::recipe`). */
  readonly recipeName: string;
  readonly cookbookName: string;
  file: Declare<"file">;
  template: Declare<"template">;
  directory: Declare<"directory">;
  link: Declare<"link">;
  execute: Declare<"execute">;
  script: Declare<"script">;
  bash: Declare<"bash">;
  sh: Declare<"sh">;
  package: Declare<"package">;
  service: Declare<"service">;
  user: Declare<"user">;
  group: Declare<"group">;
  cron: Declare<"cron">;
  log: Declare<"log">;
  block: Declare<"block">;
  /** Declares a custom resource (the object its file exports). */
  declare<R extends CustomResource>(
    resource: R,
    name: string,
    props?: CustomProps<R>,
  ): ResourceHandle<R extends CustomResource<string, unknown, infer A> ? A : string>;
  /**
   * Declares a resource by type name, untyped (custom resources loaded by
   * name); a definition's name expands the definition (as Chef, definitions
   * first).
   */
  resource(type: string, name: string, props?: Record<string, unknown>): ResourceHandle;
  /** Expands a definition (the object its file exports) here, now. */
  expand<P>(definition: Definition<string, P>, name: string, params?: Partial<P>): void;
  /**
   * Runs another recipe now, unless it already ran (`cookbook::recipe`, or
   * `cookbook` for its default): `await r.includeRecipe("base")` (loading
   * a recipe file is asynchronous; an include not awaited is an error).
   */
  includeRecipe(name: string): Promise<void>;
  /** Called at the end of a successful run (Chef's report handler). */
  onReport(handler: Handler): void;
  /** Called at the end of a failed run (Chef's exception handler). */
  onException(handler: Handler): void;
  lazy: typeof lazy;
  notifies: typeof notifies;
  subscribes: typeof subscribes;
}

/** The shape of a recipe file's default export. */
export type Recipe = (r: RecipeContext) => void | Promise<void>;
