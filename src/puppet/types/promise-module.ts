/**
 * A promise module as a Puppet resource type: a catalog resource whose
 * type tend does not have built in, but which names a configured promise
 * module (`--promise-module NAME=PATH`, or an executable NAME in a
 * promise-modules directory), is validated and evaluated by that module
 * through the same protocol client the CFEngine agent uses (promiser =
 * title, attributes = parameters without Puppet's metaparameters). The
 * module's result becomes the resource's: kept is unchanged, repaired one
 * change, not_kept a failure (in noop: a pending change).
 */
import { accessSync, constants } from "node:fs";
import { join } from "node:path";
import type { CatalogResource } from "../../catalog/model.js";
import type {
  ApplyContext,
  ResourceEvent,
  ResourceResult,
  ResourceType,
} from "../../catalog/resource-type.js";
import { evaluateWithModule } from "../../providers/modules/evaluate.js";
import type { JsonValue } from "../../providers/modules/protocol.js";
import { ModuleRuntime } from "../../providers/modules/runtime.js";
import type { ModuleSpec } from "../../providers/modules/session.js";
import type { Logger } from "../../system/logger.js";

/** Puppet's metaparameters: they order and tag the resource, they are not the module's business. */
const METAPARAMETERS = new Set([
  "alias",
  "audit",
  "before",
  "consume",
  "export",
  "loglevel",
  "noop",
  "notify",
  "require",
  "schedule",
  "stage",
  "subscribe",
  "tag",
]);

/** The time limit for one exchange with a module (as the CFEngine agent's default). */
const MODULE_TIMEOUT_MS = 30_000;

/** The promise modules a run may use, and their processes (one per module, for the whole run). */
export class PromiseModules {
  private runtime: ModuleRuntime | undefined;

  constructor(
    /** Modules by resource type name (lower-case, `::` kept). */
    private readonly named: ReadonlyMap<string, ModuleSpec>,
    /** Directories holding modules named after their type (`::` written `__`). */
    private readonly dirs: readonly string[] = [],
  ) {}

  /** The module for a type, if one is configured or found. */
  find(type: string): ModuleSpec | undefined {
    const name = type.toLowerCase();
    const given = this.named.get(name);
    if (given) return given;
    for (const dir of this.dirs) {
      const path = join(dir, name.replace(/::/g, "__"));
      try {
        accessSync(path, constants.X_OK);
        return { path };
      } catch {
        // Not in this directory.
      }
    }
    return undefined;
  }

  /** The processes of the run, started on first use. */
  processes(): ModuleRuntime {
    this.runtime ??= new ModuleRuntime();
    return this.runtime;
  }

  /** Terminates every module the run started. */
  shutdown(log: Logger): void {
    this.runtime?.shutdown(log);
    this.runtime = undefined;
  }
}

/** `NAME=PATH` of `--promise-module`, or an error message. */
export function parsePromiseModuleOption(text: string): [string, ModuleSpec] | string {
  const at = text.indexOf("=");
  if (at <= 0 || at === text.length - 1) return `--promise-module takes NAME=PATH, not '${text}'`;
  return [text.slice(0, at).toLowerCase(), { path: text.slice(at + 1) }];
}

function attributes(resource: CatalogResource): Map<string, JsonValue> {
  const out = new Map<string, JsonValue>();
  for (const [name, value] of Object.entries(resource.parameters)) {
    if (!METAPARAMETERS.has(name)) out.set(name, value as JsonValue);
  }
  return out;
}

function resultEvent(status: ResourceEvent["status"], message: string): ResourceEvent {
  return {
    property: "result",
    previousValue: "not_kept",
    desiredValue: "kept",
    name: "result_changed",
    status,
    message,
  };
}

/** The resource type of one module (`type` lower-case, as the catalog's type). */
export function promiseModuleType(type: string, spec: ModuleSpec, modules: PromiseModules): ResourceType {
  const name = `'${spec.path}'`;
  return {
    name: type,
    async apply(resource: CatalogResource, context: ApplyContext): Promise<ResourceResult> {
      const call = {
        runtime: modules.processes(),
        spec,
        timeoutMs: MODULE_TIMEOUT_MS,
        dryRun: context.noop,
        logger: context.logger,
      };
      const promise = {
        type,
        promiser: resource.title,
        attributes: attributes(resource),
        filename: resource.file,
        line: resource.line,
      };
      const verdict = evaluateWithModule(call, promise);
      const provider = "promise_module";
      switch (verdict.status) {
        case "kept":
          return { events: [], provider };
        case "repaired":
          return { events: [resultEvent("success", `repaired by promise module ${name}`)], provider };
        case "not_kept":
          if (context.noop)
            return {
              events: [resultEvent("noop", "current_value 'not_kept', should be 'kept' (noop)")],
              provider,
            };
          return {
            events: [resultEvent("failure", `not kept by promise module ${name}`)],
            failed: `not kept by promise module ${name}`,
            provider,
          };
        case "invalid":
          context.logger.error(`Promise module ${name} found the resource invalid`);
          return { events: [], failed: `invalid for promise module ${name}`, provider };
        default:
          context.logger.error(verdict.error);
          return { events: [], failed: verdict.error, provider };
      }
    },
  };
}
