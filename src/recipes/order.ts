/**
 * The order cookbooks load in, as Chef's cookbook compiler derives it: for
 * each recipe of the expanded run list, its cookbook's dependencies (sorted
 * by name, recursively) and then the cookbook itself, each cookbook once.
 * Unlike Chef, which marks a cookbook seen before its dependencies and so
 * accepts a cycle silently, a dependency cycle is an error here; so is a
 * dependency that is not on the cookbook path or whose version does not
 * satisfy the constraint (metadata.json or the environment's
 * `cookbook_versions`).
 */
import { readJsonDocument } from "./json-file.js";
import type { Cookbook, RecipesDiagnostic, SourcePosition } from "./model.js";
import { RecipesError } from "./model.js";
import { satisfies } from "./versions.js";
import { compareBytes } from "./cookbooks.js";

/** Cookbook names in load order; problems are a RecipesError. */
export function cookbookOrder(
  recipes: readonly string[],
  origins: ReadonlyMap<string, SourcePosition>,
  cookbooks: ReadonlyMap<string, Cookbook>,
  pins: Readonly<Record<string, string>> = {},
  pinsAt?: (cookbook: string) => SourcePosition,
): string[] {
  const ordered: string[] = [];
  const visiting: string[] = [];
  const add = (name: string): void => {
    if (ordered.includes(name)) return;
    const cookbook = cookbooks.get(name) as Cookbook;
    visiting.push(name);
    for (const dep of Object.keys(cookbook.dependencies).sort(compareBytes)) {
      const at = (): SourcePosition => dependencyPosition(cookbook, dep);
      if (visiting.includes(dep))
        fail(at(), "dependency-cycle", `cookbooks depend on each other: ${[...visiting, dep].join(" -> ")}`);
      const found = cookbooks.get(dep);
      if (!found)
        fail(
          at(),
          "missing-dependency",
          `cookbook '${name}' depends on '${dep}', which is not on the cookbook path`,
        );
      const constraint = cookbook.dependencies[dep] as string;
      if (!satisfies(found.version, constraint))
        fail(
          at(),
          "missing-dependency",
          `cookbook '${name}' needs '${dep}' ${constraint}; ${found.directory} is version ${found.version}`,
        );
      add(dep);
    }
    visiting.pop();
    checkPin(cookbook, pins, pinsAt);
    ordered.push(name);
  };
  for (const recipe of recipes) {
    const name = recipe.slice(0, recipe.indexOf("::"));
    if (!cookbooks.has(name)) {
      const at = origins.get(recipe) ?? { file: "(run list)", line: 1, column: 1 };
      fail(at, "unknown-cookbook", `cookbook '${name}' (for recipe '${recipe}') is not on the cookbook path`);
    }
    add(name);
  }
  return ordered;
}

function checkPin(
  cookbook: Cookbook,
  pins: Readonly<Record<string, string>>,
  pinsAt: ((cookbook: string) => SourcePosition) | undefined,
): void {
  const pin = pins[cookbook.name];
  if (pin === undefined || satisfies(cookbook.version, pin)) return;
  const at = pinsAt?.(cookbook.name) ?? { file: "(environment)", line: 1, column: 1 };
  fail(
    at,
    "missing-dependency",
    `the environment needs '${cookbook.name}' ${pin}; ${cookbook.directory} is version ${cookbook.version}`,
  );
}

/** Where a cookbook's metadata.json names a dependency. */
function dependencyPosition(cookbook: Cookbook, dep: string): SourcePosition {
  if (!cookbook.metadataFile) return { file: cookbook.directory, line: 1, column: 1 };
  const { file, line, column } = readJsonDocument(cookbook.metadataFile).diagnostic(
    "missing-dependency",
    "",
    `dependencies.${dep}`,
  );
  return { file, line, column };
}

function fail(at: SourcePosition, code: RecipesDiagnostic["code"], message: string): never {
  throw new RecipesError([{ code, severity: "error", message, ...at }]);
}
