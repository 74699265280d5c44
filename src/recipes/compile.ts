/**
 * Compile: the run list's recipes run in order, each once, appending to
 * one resource collection; `includeRecipe` runs a recipe at that point
 * unless it already ran. Nothing on the system changes. While recipes run,
 * their file-system reads are watched (compile-watch.ts). A recipe that
 * throws, or a declaration that is wrong, is a diagnostic with its place;
 * notification targets and subscription sources are checked at the end.
 */
import type { ModuleSpec } from "../providers/modules/session.js";
import { ResourceCollection } from "./collection.js";
import { watchCompileReads } from "./compile-watch.js";
import { createRecipeContext, recipeTypeOf } from "./context.js";
import type { CustomResource, Definition, Recipe } from "./dsl.js";
import type { SourceLocation } from "./location.js";
import type { Node } from "./model.js";
import { RunNode } from "./node.js";

interface PlacedProblem {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

/** One recipe to run: its name (`cookbook::recipe`) and its function. */
export interface RecipeSource {
  readonly name: string;
  readonly run: Recipe;
  /** The cookbook's directory (templates/ is found there). */
  readonly cookbookDir?: string;
}

export interface CompileOptions {
  /** The run's node (default: an empty one named localhost, no host facts). */
  readonly node?: Node;
  /**
   * The recipe named (`cookbook`, `cookbook::recipe`), or undefined when it
   * already ran; throws for an unknown one (its message becomes a diagnostic).
   */
  readonly include: (name: string, from?: SourceLocation) => Promise<RecipeSource | undefined>;
  /** Custom resources loaded from the cookbooks' resources/, by type name. */
  readonly customResources?: ReadonlyMap<string, CustomResource>;
  /** Definitions loaded from the cookbooks' definitions/, by name. */
  readonly definitions?: ReadonlyMap<string, Definition>;
  /** Promise modules serving resource types, by type name (`--promise-module NAME=PATH`). */
  readonly promiseModules?: ReadonlyMap<string, ModuleSpec>;
  /** Which files are recipe code (default: any file outside tend). */
  readonly isUserFile?: (file: string) => boolean;
  readonly mapLocation?: (location: SourceLocation) => SourceLocation;
  /** Where an error thrown by recipe code was thrown, in the user's source. */
  readonly locateError?: (error: unknown) => SourceLocation | undefined;
  /** Watch compile-time reads of managed paths (default true). */
  readonly watchReads?: boolean;
}

/** Compiles the run list (fully qualified recipe names, roles already expanded). */
export async function compileRunList(
  recipes: readonly string[],
  options: CompileOptions,
): Promise<ResourceCollection> {
  const collection = new ResourceCollection();
  for (const [name, resource] of options.customResources ?? []) collection.customTypes.set(name, resource);
  for (const [name, spec] of options.promiseModules ?? []) collection.moduleTypes.set(name, spec);
  for (const [name, definition] of options.definitions ?? []) collection.definitions.set(name, definition);
  options = { ...options, node: options.node ?? new RunNode("localhost", () => ({})) };
  const stop = options.watchReads === false ? () => undefined : watchCompileReads(collection, options);
  try {
    for (const name of recipes) await includeRecipe(collection, name, options, undefined);
  } finally {
    stop();
  }
  collection.checkReferences((type) => recipeTypeOf(collection, type)?.actions);
  return collection;
}

async function includeRecipe(
  collection: ResourceCollection,
  name: string,
  options: CompileOptions,
  from: SourceLocation | undefined,
): Promise<void> {
  let source: RecipeSource | undefined;
  try {
    source = await options.include(name, from);
  } catch (error) {
    // The loader's errors carry their own places (a syntax error in the recipe, an unknown cookbook).
    const placed = (error as { diagnostics?: readonly PlacedProblem[] }).diagnostics;
    if (Array.isArray(placed) && placed.length > 0)
      for (const d of placed) collection.problem(d.message, { file: d.file, line: d.line, column: d.column });
    else collection.problem(error instanceof Error ? error.message : String(error), from);
    return;
  }
  if (!source) return;
  const [cookbook = source.name] = source.name.split("::");
  let pending = 0;
  const context = createRecipeContext(collection, {
    recipe: source.name,
    cookbook,
    cookbookDir: source.cookbookDir,
    node: options.node ?? new RunNode("localhost", () => ({})),
    isUserFile: options.isUserFile,
    mapLocation: options.mapLocation,
    includeRecipe: async (included, at) => {
      pending++;
      try {
        await includeRecipe(collection, included, options, at);
      } finally {
        pending--;
      }
    },
  });
  try {
    await source.run(context);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    collection.problem(
      `recipe ${source.name} failed while compiling: ${message}`,
      options.locateError?.(error),
    );
  }
  if (pending > 0)
    collection.problem(
      `recipe ${source.name}: includeRecipe(...) was not awaited (write \`await r.includeRecipe(...)\`)`,
    );
}

/** Compiles recipe functions given directly (tests, embedding): each runs once, in order. */
export function compileRecipes(
  sources: readonly RecipeSource[],
  options: Omit<CompileOptions, "include"> = {},
): Promise<ResourceCollection> {
  const byName = new Map(sources.map((s) => [s.name, s]));
  const done = new Set<string>();
  return compileRunList(
    sources.map((s) => s.name),
    {
      ...options,
      include: async (name) => {
        const full = name.includes("::") ? name : `${name}::default`;
        const source = byName.get(full);
        if (!source) throw new Error(`no recipe '${full}'`);
        if (done.has(full)) return undefined;
        done.add(full);
        return source;
      },
    },
  );
}
