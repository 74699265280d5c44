/**
 * The recipe context: the object a recipe receives (`RecipeContext` of
 * dsl.ts). Each declaration is checked (type, action, properties), located
 * (file and line of the recipe code that made it) and appended to the
 * collection; nothing else happens.
 */
import type { ResourceCollection, Declaration } from "./collection.js";
import {
  type CustomResource,
  type Definition,
  type Guard,
  type Handler,
  isLazy,
  lazy,
  type Notify,
  notifies,
  type RecipeContext,
  type ResourceHandle,
  type Subscribe,
  subscribes,
} from "./dsl.js";
import type { Node } from "./model.js";
import { callerLocation, type SourceLocation } from "./location.js";
import { checkCustomProps, customType } from "./types/custom.js";
import { BUILTIN_TYPES } from "./types/index.js";
import { moduleType } from "./types/module.js";
import type { RecipeResourceType } from "./types/type.js";

export interface RecipeScope {
  /** `cookbook::recipe`. */
  readonly recipe: string;
  readonly cookbook: string;
  /** The cookbook's directory, for template sources. */
  readonly cookbookDir?: string;
  /** The run's node (levels writable, reads merged). */
  readonly node: Node;
  /** Runs a recipe unless it already ran (the compiler's); `from` is where the include was written. */
  readonly includeRecipe?: (name: string, from?: SourceLocation) => Promise<void>;
  /** Which files are recipe code, for locations (default: any file outside tend). */
  readonly isUserFile?: (file: string) => boolean;
  /** Maps a position in the code Node runs to the user's source (the loader's source maps). */
  readonly mapLocation?: (location: SourceLocation) => SourceLocation;
}

const COMMON = new Set(["action", "notifies", "subscribes", "onlyIf", "notIf", "ignoreFailure"]);

function list<T>(value: T | readonly T[] | undefined): readonly T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? (value as readonly T[]) : [value as T];
}

/** The recipe type of a type name: built in, else a custom resource of the collection. */
export function recipeTypeOf(collection: ResourceCollection, type: string): RecipeResourceType | undefined {
  const builtin = BUILTIN_TYPES.get(type);
  if (builtin) return builtin;
  const custom = collection.customTypes.get(type);
  if (custom) return customType(type, custom);
  const module = collection.moduleTypes.get(type);
  return module ? moduleType(type, module) : undefined;
}

/** Where the recipe code calling tend is, in the user's source. */
export function locate(scope: Pick<RecipeScope, "isUserFile" | "mapLocation">): SourceLocation | undefined {
  const location = callerLocation(scope.isUserFile);
  return location && scope.mapLocation ? scope.mapLocation(location) : location;
}

/** Makes the context one recipe runs with. */
export function createRecipeContext(collection: ResourceCollection, scope: RecipeScope): RecipeContext {
  const declare = (
    type: string,
    name: string,
    given: Record<string, unknown> | undefined,
    custom?: CustomResource,
  ): ResourceHandle<never> => {
    const location = locate(scope);
    addDeclaration(collection, scope, type, String(name), given ?? {}, location, custom);
    return { ref: `${type}[${name}]` };
  };
  const expand = (definition: Definition, name: string, given: object | undefined): void => {
    const params = { ...definition.defaults, ...given, name };
    const result = definition.body(context, params) as unknown;
    if (typeof (result as { then?: unknown } | undefined)?.then === "function")
      collection.problem(
        `definition ${definition.name ?? name}: its body must be synchronous (declare resources; do the work in them)`,
        locate(scope),
      );
  };
  const builtin = (type: string) => (name: string, props?: object) =>
    declare(type, name, props as Record<string, unknown>);
  const context: RecipeContext = {
    node: scope.node,
    recipeName: scope.recipe,
    cookbookName: scope.cookbook,
    file: builtin("file"),
    template: builtin("template"),
    directory: builtin("directory"),
    link: builtin("link"),
    execute: builtin("execute"),
    script: builtin("script"),
    bash: builtin("bash"),
    sh: builtin("sh"),
    package: builtin("package"),
    service: builtin("service"),
    user: builtin("user"),
    group: builtin("group"),
    cron: builtin("cron"),
    log: builtin("log"),
    block: builtin("block"),
    declare: (resource, name, props) => {
      const same = (r: CustomResource): boolean => r.spec === resource.spec || r.base?.spec === resource.spec;
      const type = resource.name ?? [...collection.customTypes].find(([, r]) => same(r))?.[0];
      if (type === undefined) {
        collection.problem(
          "a custom resource without a name was declared: give it `name`, or load it from a cookbook's resources/",
          locate(scope),
        );
        return { ref: `unknown[${name}]` };
      }
      const registered = collection.customTypes.get(type);
      if (!registered) collection.customTypes.set(type, resource);
      // The loaded type, completed by its provider, when it is this resource.
      const use = registered && same(registered) ? registered : resource;
      return declare(type, name, props as Record<string, unknown>, use) as never;
    },
    resource: (type, name, props) => {
      const definition = collection.definitions.get(type);
      if (!definition) return declare(type, name, props);
      expand(definition, name, props);
      return { ref: `${type}[${name}]` };
    },
    expand: (definition, name, params) => expand(definition as Definition, name, params),
    includeRecipe: async (name) => {
      if (!scope.includeRecipe) {
        collection.problem(`includeRecipe('${name}'): no cookbooks are loaded in this run`, locate(scope));
        return;
      }
      await scope.includeRecipe(name, locate(scope));
    },
    onReport: (handler: Handler) => void collection.reportHandlers.push(handler),
    onException: (handler: Handler) => void collection.exceptionHandlers.push(handler),
    lazy,
    notifies,
    subscribes,
  };
  return context;
}

function addDeclaration(
  collection: ResourceCollection,
  scope: RecipeScope,
  type: string,
  name: string,
  given: Record<string, unknown>,
  location: SourceLocation | undefined,
  custom?: CustomResource,
): void {
  const recipeType = recipeTypeOf(collection, type);
  const where = `${type}[${name}]`;
  if (!recipeType) {
    collection.problem(`${where}: unknown resource type '${type}'`, location);
    return;
  }
  const props: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(given))
    if (!COMMON.has(key) && value !== undefined) props[key] = value;
  const actions = list(given.action as string | readonly string[] | undefined).map(String);
  const declaration: Declaration = {
    type,
    name,
    props,
    actions: actions.length > 0 ? actions : [recipeType.defaultAction],
    notifies: list(given.notifies as Notify | readonly Notify[] | undefined),
    subscribes: list(given.subscribes as Subscribe | readonly Subscribe[] | undefined),
    onlyIf: list(given.onlyIf as Guard | readonly Guard[] | undefined),
    notIf: list(given.notIf as Guard | readonly Guard[] | undefined),
    ignoreFailure: given.ignoreFailure === true,
    recipe: scope.recipe,
    cookbook: scope.cookbook,
    cookbookDir: scope.cookbookDir,
    location,
    custom: custom ?? collection.customTypes.get(type),
  };
  for (const problem of checkDeclaration(recipeType, declaration))
    collection.problem(`${where}: ${problem}`, location);
  collection.add(declaration);
}

function checkDeclaration(type: RecipeResourceType, d: Declaration): string[] {
  const problems: string[] = [];
  for (const action of d.actions)
    if (!type.actions.includes(action))
      problems.push(`${d.type} has no action '${action}' (it has ${type.actions.join(", ")})`);
  if (d.custom) problems.push(...checkCustomProps(d.custom, d.props, isLazy));
  else {
    for (const key of Object.keys(d.props))
      if (!type.anyProperties && !type.properties.includes(key))
        problems.push(`unknown property '${key}' (${type.name} takes ${type.properties.join(", ")})`);
    // Validators look at values given now; a lazy value counts as given.
    problems.push(...(type.validate?.(d.props) ?? []));
  }
  for (const n of d.notifies)
    if (typeof n !== "object" || n === null || n.kind !== "notifies")
      problems.push("`notifies` takes notifies(action, target, timing) values");
  for (const s of d.subscribes)
    if (typeof s !== "object" || s === null || s.kind !== "subscribes")
      problems.push("`subscribes` takes subscribes(action, source, timing) values");
  return problems;
}
