/**
 * Run lists as chef-client reads them: `recipe[cb]`, `recipe[cb::name]`,
 * `cb`, `cb::name`, `role[name]` (a `@version` suffix on a recipe is
 * accepted and ignored: one version of each cookbook is on disk).
 */
import type { RunListItem } from "./model.js";
import { qualifiedRecipe } from "./model.js";

const NAME = "[A-Za-z0-9_.-]+";
const RECIPE = new RegExp(`^(${NAME})(?:::(${NAME}))?(?:@[0-9.]+)?$`);
const WRAPPED = /^(recipe|role)\[(.*)\]$/;

/** Parses one item; undefined when it is not a run-list item. */
export function parseRunListItem(text: string): RunListItem | undefined {
  const trimmed = text.trim();
  const wrapped = WRAPPED.exec(trimmed);
  if (wrapped?.[1] === "role") {
    const name = (wrapped[2] as string).trim();
    return new RegExp(`^${NAME}$`).test(name) ? { type: "role", name } : undefined;
  }
  const recipe = RECIPE.exec(wrapped ? (wrapped[2] as string).trim() : trimmed);
  if (!recipe) return undefined;
  return { type: "recipe", cookbook: recipe[1] as string, recipe: recipe[2] ?? "default" };
}

/** `recipe[cb::name]` / `role[name]`, the form Chef saves. */
export function formatRunListItem(item: RunListItem): string {
  return item.type === "role"
    ? `role[${item.name}]`
    : `recipe[${qualifiedRecipe(item.cookbook, item.recipe)}]`;
}
