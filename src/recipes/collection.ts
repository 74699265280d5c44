/**
 * The resource collection: what compiling the recipes declared, in order.
 * Declaring appends and checks (type, actions, properties) and nothing
 * else; `toCatalog()` gives the collection as a catalog in the shared
 * schema (src/catalog/model.ts), which `--compile-only` prints and the
 * applier walks. Values that exist only at converge time appear in the
 * catalog as `{"lazy": "<source>"}`, guards and blocks as
 * `{"function": "<source>"}`.
 *
 * Problems in recipes are diagnostics with the declaration's location,
 * collected, never thrown.
 */
import { resolve } from "node:path";
import type { Catalog, CatalogResource, ParamValue } from "../catalog/model.js";
import { capitalizeType, refKey } from "../catalog/refs.js";
import type { ModuleSpec } from "../providers/modules/session.js";
import type { CustomResource, Definition, Guard, Handler, Notify, Subscribe, Timing } from "./dsl.js";
import { isLazy } from "./dsl.js";
import type { SourceLocation } from "./location.js";

/** One declared resource, as the recipe gave it (lazy values and functions kept). */
export interface Declaration {
  readonly type: string;
  readonly name: string;
  /** The type's own properties (common ones taken out). */
  readonly props: Readonly<Record<string, unknown>>;
  readonly actions: readonly string[];
  readonly notifies: readonly Notify[];
  readonly subscribes: readonly Subscribe[];
  readonly onlyIf: readonly Guard[];
  readonly notIf: readonly Guard[];
  readonly ignoreFailure: boolean;
  /** `cookbook::recipe` that declared it. */
  readonly recipe: string;
  readonly cookbook: string;
  /** The cookbook's directory (for templates), when known. */
  readonly cookbookDir?: string;
  readonly location?: SourceLocation;
  /** The definition, for a custom resource. */
  readonly custom?: CustomResource;
}

export interface RecipeDiagnostic {
  readonly location?: SourceLocation;
  readonly message: string;
}

/** `file:line: message`, or the message alone. */
export function formatRecipeDiagnostic(d: RecipeDiagnostic): string {
  const where = d.location
    ? `${d.location.file}:${d.location.line}${d.location.column ? `:${d.location.column}` : ""}: `
    : "";
  return `${where}${d.message}`;
}

/** Chef's timings in the applier's words. */
export function catalogTiming(timing: Timing): "immediate" | "delayed" | "before" {
  return timing === "immediately" ? "immediate" : timing;
}

export class ResourceCollection {
  /**
   * The collection of the run a custom resource's action runs in (Chef's
   * parent run context): its resources may be notified from this one.
   */
  constructor(readonly parent?: ResourceCollection) {}

  readonly declarations: Declaration[] = [];
  readonly diagnostics: RecipeDiagnostic[] = [];
  readonly warnings: RecipeDiagnostic[] = [];
  readonly reportHandlers: Handler[] = [];
  readonly exceptionHandlers: Handler[] = [];
  /** Custom resource types by name. */
  readonly customTypes = new Map<string, CustomResource>();
  /** Promise modules serving resource types, by type name. */
  readonly moduleTypes = new Map<string, ModuleSpec>();
  /** Definitions (Chef's `define`) by name, expanded while compiling. */
  readonly definitions = new Map<string, Definition>();
  /** Paths managed by file, template, directory and link resources (for the compile-time watch). */
  readonly managedPaths = new Map<string, Declaration>();
  private readonly byRef = new Map<string, Declaration>();

  add(declaration: Declaration): void {
    this.declarations.push(declaration);
    this.byRef.set(refKey(declaration.type, declaration.name), declaration);
    const path = managedPath(declaration);
    if (path !== undefined) this.managedPaths.set(path, declaration);
  }

  /** The last declaration of `type[name]` (as Chef's lookup finds the latest). */
  find(ref: string): Declaration | undefined {
    const open = ref.indexOf("[");
    if (open <= 0 || !ref.endsWith("]")) return undefined;
    return this.byRef.get(refKey(ref.slice(0, open), ref.slice(open + 1, -1)));
  }

  /** A resource of this collection, else of the enclosing ones (Chef's recursive lookup). */
  findUp(ref: string): Declaration | undefined {
    return this.find(ref) ?? this.parent?.findUp(ref);
  }

  problem(message: string, location?: SourceLocation): void {
    this.diagnostics.push({ location, message });
  }

  warn(message: string, location?: SourceLocation): void {
    this.warnings.push({ location, message });
  }

  /**
   * Checks what can only be checked once every recipe ran: each
   * notification's target and each subscription's source exist, and the
   * target has the action asked.
   */
  checkReferences(actionsOf: (type: string) => readonly string[] | undefined): void {
    for (const d of this.declarations) {
      for (const n of d.notifies) {
        const target = this.findUp(n.target);
        if (!target)
          this.problem(
            `${d.type}[${d.name}] notifies ${n.target} to ${n.action}, but ${n.target} is not in the resource collection`,
            d.location,
          );
        else if (!(actionsOf(target.type) ?? []).includes(n.action))
          this.problem(
            `${d.type}[${d.name}] notifies ${n.target} to ${n.action}: ${target.type} has no action '${n.action}'`,
            d.location,
          );
      }
      for (const s of d.subscribes)
        if (!this.find(s.source))
          this.problem(
            `${d.type}[${d.name}] subscribes to ${s.source}, which is not in the resource collection`,
            d.location,
          );
    }
  }

  /** The collection as a catalog (the shared schema), in declaration order. */
  toCatalog(name = "localhost", environment = "_default"): Catalog {
    return {
      name,
      environment,
      version: "",
      resources: this.declarations.map(catalogResource),
      edges: [],
      classes: [...new Set(this.declarations.map((d) => d.recipe))],
    };
  }
}

const PATH_TYPES: Readonly<Record<string, string>> = {
  file: "path",
  template: "path",
  directory: "path",
  link: "targetFile",
};

/** The path a resource manages, if it manages one (a lazy path is not known while compiling). */
export function managedPath(d: Declaration): string | undefined {
  const key = PATH_TYPES[d.type];
  if (key === undefined) return undefined;
  const value = d.props[key] ?? d.name;
  return typeof value === "string" ? resolve(value) : undefined;
}

function catalogResource(d: Declaration): CatalogResource {
  const parameters: Record<string, ParamValue> = {};
  for (const [key, value] of Object.entries(d.props)) parameters[key] = paramValue(value);
  parameters.action = d.actions;
  if (d.notifies.length > 0)
    parameters.notifies = d.notifies.map((n) => ({
      action: n.action,
      target: n.target,
      timing: catalogTiming(n.timing),
    }));
  if (d.subscribes.length > 0)
    parameters.subscribes = d.subscribes.map((s) => ({
      action: s.action,
      source: s.source,
      timing: catalogTiming(s.timing),
    }));
  if (d.onlyIf.length > 0) parameters.onlyIf = d.onlyIf.map(paramValue);
  if (d.notIf.length > 0) parameters.notIf = d.notIf.map(paramValue);
  if (d.ignoreFailure) parameters.ignoreFailure = true;
  return {
    type: capitalizeType(d.type),
    title: d.name,
    parameters,
    tags: [d.type, d.cookbook, d.recipe].filter((t) => t !== ""),
    ...(d.location ? { file: d.location.file, line: d.location.line } : {}),
  };
}

/** A value as JSON can show it: lazy values and functions by their source. */
export function paramValue(value: unknown): ParamValue {
  if (value === undefined) return null;
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (typeof value === "function") return { function: oneLine(String(value)) };
  if (isLazy(value)) return { lazy: oneLine(String(value.compute)) };
  if (value instanceof Uint8Array) return { base64: Buffer.from(value).toString("base64") };
  if (Array.isArray(value)) return value.map(paramValue);
  if (typeof value === "object") {
    const out: Record<string, ParamValue> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = paramValue(v);
    return out;
  }
  return String(value);
}

function oneLine(source: string): string {
  const text = source.replace(/\s+/g, " ").trim();
  return text.length > 400 ? `${text.slice(0, 400)}…` : text;
}
