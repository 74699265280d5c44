/**
 * Recipes on demand, each once per run, as Chef's `include_recipe`: the
 * first include of `cb::name` loads and returns the recipe's module (the
 * caller runs its default export), later ones return undefined. A recipe is
 * marked included before it is loaded, so a recipe that includes itself
 * (directly or not) does not loop. Only cookbooks of the run (the run
 * list's and their dependencies) can be included.
 */
import type { Cookbook, LoadedModule, LoadHook, RecipeBook, SourcePosition } from "./model.js";
import { qualifiedRecipe, RecipesError } from "./model.js";
import type { ModuleLoader } from "./module-loader.js";
import { runFile } from "./run-file.js";
import { parseRunListItem } from "./run-list.js";

export class RunRecipeBook implements RecipeBook {
  private readonly done: string[] = [];
  private readonly seen = new Set<string>();
  private readonly cookbooks: ReadonlyMap<string, Cookbook>;

  constructor(
    cookbooks: readonly Cookbook[],
    private readonly loader: ModuleLoader,
    private readonly onLoad?: LoadHook,
  ) {
    this.cookbooks = new Map(cookbooks.map((c) => [c.name, c]));
  }

  get included(): readonly string[] {
    return this.done;
  }

  async include(name: string, from?: SourcePosition): Promise<LoadedModule | undefined> {
    const at = from ?? { file: "(run list)", line: 1, column: 1 };
    const item = parseRunListItem(name);
    if (item?.type !== "recipe")
      return fail(at, `'${name}' is not a recipe name (cb, cb::name or recipe[cb::name])`);
    const qualified = qualifiedRecipe(item.cookbook, item.recipe);
    if (this.seen.has(qualified)) return undefined;
    const cookbook = this.cookbooks.get(item.cookbook);
    if (!cookbook)
      return fail(
        at,
        `cookbook '${item.cookbook}' is not in this run: add it to the run list or to the including cookbook's dependencies in metadata.json`,
        "unknown-cookbook",
      );
    const file = cookbook.files.recipes.find((f) => f.name === item.recipe);
    if (!file)
      return fail(
        at,
        `cookbook '${item.cookbook}' has no recipe '${item.recipe}' (no recipes/${item.recipe}.ts)`,
      );
    this.seen.add(qualified);
    this.done.push(qualified);
    this.onLoad?.({ kind: "recipes", cookbook: file.cookbook, file: file.name });
    const exports = await runFile(file, this.loader, (mod) =>
      typeof mod.default === "function" ? undefined : "a recipe must `export default (r) => { ... }`",
    );
    return { file, exports };
  }
}

function fail(
  at: SourcePosition,
  message: string,
  code: "unknown-recipe" | "unknown-cookbook" = "unknown-recipe",
): never {
  throw new RecipesError([{ code, severity: "error", message, ...at }]);
}
