/**
 * One chef-client run in local mode, as named steps: load (cookbooks,
 * run list, node: load.ts), compile (the run list's recipes into the
 * resource collection: compile.ts), then, unless only compiling, converge
 * and cleanup (converge.ts). Problems in user input come back as
 * diagnostics of the step that found them; nothing is printed.
 */
import type { Catalog } from "../catalog/model.js";
import type { ModuleSpec } from "../providers/modules/session.js";
import type { RecipeDiagnostic, ResourceCollection } from "./collection.js";
import { compileRunList } from "./compile.js";
import { type ConvergeEvent, converge, type RunStatus } from "./converge.js";
import * as dsl from "./dsl.js";
import type { Handler, Recipe } from "./dsl.js";
import { loadRun } from "./load.js";
import type { LoadedRun, LoadOptions, RecipesDiagnostic } from "./model.js";
import { RecipesError } from "./model.js";
import type { RecipeSystem } from "./types/type.js";
import { collectUserTypes, type UserTypes } from "./user-types.js";

export interface RecipesRunOptions extends Omit<LoadOptions, "hostModules"> {
  readonly whyRun?: boolean;
  /** Stop after compile: the collection as a catalog. */
  readonly compileOnly?: boolean;
  readonly system?: RecipeSystem;
  readonly onEvent?: (event: ConvergeEvent) => void;
  /** Called once compiled, before converge (the CLI prints warnings and the resource count). */
  readonly onCompiled?: (collection: ResourceCollection, run: LoadedRun) => void;
  /** Promise modules serving resource types (`--promise-module NAME=PATH`). */
  readonly promiseModules?: ReadonlyMap<string, ModuleSpec>;
}

export type RecipesRunResult =
  | { readonly step: "load"; readonly diagnostics: readonly RecipesDiagnostic[] }
  | {
      readonly step: "compile";
      readonly diagnostics: readonly RecipeDiagnostic[];
      readonly warnings: readonly RecipeDiagnostic[];
    }
  | { readonly step: "compiled"; readonly catalog: Catalog; readonly warnings: readonly RecipeDiagnostic[] }
  | {
      readonly step: "converged";
      readonly status: RunStatus;
      readonly warnings: readonly RecipeDiagnostic[];
    };

/** The modules tend lends to cookbook files. */
export const HOST_MODULES: Readonly<Record<string, unknown>> = { "tend/recipes": dsl };

export async function runRecipes(options: RecipesRunOptions): Promise<RecipesRunResult> {
  let run: LoadedRun;
  try {
    run = await loadRun({ ...options, hostModules: HOST_MODULES });
  } catch (error) {
    if (error instanceof RecipesError) return { step: "load", diagnostics: error.diagnostics };
    throw error;
  }
  const types = collectUserTypes(run.resources, run.providers, run.definitions);
  if (types.diagnostics.length > 0) return { step: "load", diagnostics: types.diagnostics };
  const collection = await compile(run, types, options.promiseModules);
  if (collection.diagnostics.length > 0)
    return { step: "compile", diagnostics: collection.diagnostics, warnings: collection.warnings };
  const catalog = collection.toCatalog(run.node.name, run.node.chefEnvironment);
  if (options.compileOnly) return { step: "compiled", catalog, warnings: collection.warnings };
  options.onCompiled?.(collection, run);
  const status = await converge(collection, {
    whyRun: options.whyRun,
    system: options.system,
    node: run.node,
    nodeName: run.node.name,
    onEvent: options.onEvent,
    reportHandlers: run.config.reportHandlers as readonly Handler[],
    exceptionHandlers: run.config.exceptionHandlers as readonly Handler[],
    saveNode: () => run.saveNode(),
  });
  return { step: "converged", status, warnings: collection.warnings };
}

async function compile(
  run: LoadedRun,
  types: UserTypes,
  promiseModules?: ReadonlyMap<string, ModuleSpec>,
): Promise<ResourceCollection> {
  const directories = new Map(run.cookbooks.map((c) => [c.name, c.directory]));
  const roots = [...directories.values()].map((d) => `${d}/`);
  return compileRunList(run.runList.recipes, {
    node: run.node,
    customResources: types.customResources,
    definitions: types.definitions,
    promiseModules,
    isUserFile: (file) => roots.some((root) => file.startsWith(root)),
    mapLocation: (location) => run.mapLocation(location),
    locateError: (error) => run.locate(error),
    include: async (name, from) => {
      const at = from ? { file: from.file, line: from.line, column: from.column ?? 1 } : undefined;
      const module = await run.recipeBook.include(name, at);
      if (!module) return undefined;
      return {
        name: `${module.file.cookbook}::${module.file.name}`,
        run: module.exports.default as Recipe,
        cookbookDir: directories.get(module.file.cookbook),
      };
    },
  });
}
