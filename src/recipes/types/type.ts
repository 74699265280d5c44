/**
 * The contract of a recipe resource type: a thin layer of Chef's
 * semantics (its actions, its report lines) over a provider of
 * src/providers. The converge adapter (src/recipes/converge-types.ts)
 * turns it into a catalog ResourceType for the shared applier.
 */
import type { CommandResult, CommandSpec } from "../../providers/commands/index.js";
import type { CrontabStore } from "../../providers/cron/index.js";
import type { ModuleRuntime } from "../../providers/modules/runtime.js";
import type { AccountDatabase } from "../../providers/files/index.js";
import type { ToolRunner } from "../../providers/tool-runner.js";
import type { ToolRunner as AccountToolRunner } from "../../providers/users/index.js";
import type { Declaration } from "../collection.js";
import type { RecipeContext } from "../dsl.js";
import type { Node } from "../model.js";

/** The machine the types act on; tests replace parts of it (never the real machine). */
export interface RecipeSystem {
  /** Root of /etc/passwd, /etc/group and the crontab spool (default `/`). */
  readonly root?: string;
  /** Runs package and service tools (apt-get, dpkg-query, systemctl...). */
  readonly tools?: ToolRunner;
  /** Runs the shadow tools (useradd, groupadd...). */
  readonly accountTools?: AccountToolRunner;
  /** Where crontabs are read and written. */
  readonly crontabs?: CrontabStore;
  /** Where init scripts are (default /etc/init.d). */
  readonly initScriptDirectory?: string;
  /** Whether systemd runs the machine (default: /proc/1/comm says so). */
  readonly systemdRuns?: boolean;
  /** The process table (`ps -ef` lines), for services without a status command. */
  readonly processTable?: () => readonly string[];
  /** Runs execute/script resources and command guards (default: the commands provider). */
  readonly runCommand?: (spec: CommandSpec) => CommandResult;
}

/** What a type's action sees of the run. */
export interface RecipeActionContext {
  readonly whyRun: boolean;
  readonly system: RecipeSystem;
  /** User and group names to ids, read once per run. */
  readonly accounts: AccountDatabase;
  /** The run's node (templates see its merged attributes as `node`). */
  readonly node: Node;
  /** A message of the run (the log resource, a custom action's output). */
  log(level: "debug" | "info" | "warn" | "error", message: string): void;
  /** Runs a command through the system's runner. */
  runCommand(spec: CommandSpec): CommandResult;
  /** The promise modules' processes of the run, started on first use. */
  modules(): ModuleRuntime;
  /**
   * Runs `body` with a recipe context declaring into a collection of its
   * own (a custom resource's action), then converges that collection at
   * once, one level deeper in the report.
   */
  nested(target: ActionTarget, body: (r: RecipeContext) => Promise<void>): Promise<NestedOutcome>;
}

/** The resource an action works on: its declaration and its values, lazy ones computed. */
export interface ActionTarget {
  readonly declaration: Declaration;
  /** `type[name]`. */
  readonly ref: string;
  /** Properties with lazy values computed and the name property filled in. */
  readonly props: Readonly<Record<string, unknown>>;
}

/** What one action did. */
export interface ActionOutcome {
  /** The system changed (in why-run: would change). */
  readonly updated: boolean;
  /** One line per change, as chef-client prints them (`create new file /x`), without "Would". */
  readonly lines: readonly string[];
  /** Why it failed, when it did. */
  readonly failed?: string;
  /**
   * Why-run only: a requirement the system does not meet yet and what the
   * run assumes instead (chef-client's failed assertion, then its
   * assumption: `Parent directory /x does not exist.`, `Assuming directory
   * /x would have been created`), printed `* line` under the resource.
   */
  readonly assumptions?: readonly string[];
  /** The provider used (`systemd`, `apt`...). */
  readonly provider?: string;
  /** A custom resource's: its inner resources' notifications to resources outside them. */
  readonly notifications?: readonly OuterNotification[];
}

export interface RecipeResourceType {
  readonly name: string;
  readonly actions: readonly string[];
  readonly defaultAction: string;
  /** The properties it takes, for checking untyped declarations. */
  readonly properties: readonly string[];
  /** Any property is taken (promise modules check their own). */
  readonly anyProperties?: boolean;
  /** The property that takes the resource's name when it is not given. */
  readonly nameProperty?: string;
  /** Checks a declaration's values at compile time; each string is a problem. */
  validate?(props: Readonly<Record<string, unknown>>): readonly string[];
  run(action: string, target: ActionTarget, context: RecipeActionContext): Promise<ActionOutcome>;
}

export const UNCHANGED: ActionOutcome = { updated: false, lines: [] };

export function failed(message: string, lines: readonly string[] = []): ActionOutcome {
  return { updated: lines.length > 0, lines, failed: message };
}

/** A property as text (numbers too), or undefined. */
export function textProp(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/**
 * A notification an inner resource (declared by a custom resource's
 * action) sent to a resource outside its collection: the enclosing run
 * sends it, as if from the custom resource.
 */
export interface OuterNotification {
  /** `service[web]`. */
  readonly target: string;
  readonly action: string;
  readonly timing: "immediate" | "delayed" | "before";
}

/** What converging the resources an action declared did. */
export interface NestedOutcome {
  readonly updated: boolean;
  readonly failed?: string;
  /** Notifications of updated inner resources to resources outside the action's collection. */
  readonly notifications?: readonly OuterNotification[];
}
