/**
 * Run-list expansion as chef-client does it: roles replaced by their run
 * lists (the environment's `env_run_lists` entry when the role has one),
 * recursively and in order; each recipe kept once (`cb` and `cb::default`
 * are the same recipe); a role met a second time is skipped, and its
 * attributes applied once. Role attributes accumulate with Chef's deep
 * merge, an included role's before the role that includes it (so the
 * outer role wins). Unlike Chef, a role that includes itself is an error,
 * not a silent skip, and a missing role stops the run at its place.
 */
import { deepMerge } from "./merge.js";
import type { AttributeTree, RecipesDiagnostic, SourcePosition } from "./model.js";
import { qualifiedRecipe, RecipesError } from "./model.js";
import type { Role } from "./repository.js";
import { parseRunListItem } from "./run-list.js";

/** A run-list entry as written, with where it was written. */
export interface RunListEntry {
  readonly text: string;
  readonly at: SourcePosition;
}

export interface Expansion {
  /** `cb::name`, in run order, each once. */
  readonly recipes: readonly string[];
  /** Where each recipe was first listed. */
  readonly origins: ReadonlyMap<string, SourcePosition>;
  readonly roles: readonly string[];
  readonly roleDefault: AttributeTree;
  readonly roleOverride: AttributeTree;
}

/** Expands `entries`; an invalid item, a missing role or a role cycle is a RecipesError. */
export function expandRunList(
  entries: readonly RunListEntry[],
  environment: string,
  findRole: (name: string) => Role | undefined,
): Expansion {
  const recipes: string[] = [];
  const origins = new Map<string, SourcePosition>();
  const roles: string[] = [];
  let roleDefault: AttributeTree = {};
  let roleOverride: AttributeTree = {};
  const ancestry: string[] = [];

  const expand = (list: readonly RunListEntry[]): void => {
    for (const entry of list) {
      const item = parseRunListItem(entry.text);
      if (!item)
        fail(
          entry.at,
          "invalid-run-list-item",
          `'${entry.text}' is not a run-list item (recipe[cb::name], role[name], cb or cb::name)`,
        );
      if (item.type === "recipe") {
        const name = qualifiedRecipe(item.cookbook, item.recipe);
        if (!origins.has(name)) {
          recipes.push(name);
          origins.set(name, entry.at);
        }
        continue;
      }
      if (ancestry.includes(item.name))
        fail(
          entry.at,
          "role-cycle",
          `role '${item.name}' includes itself: ${[...ancestry, item.name].join(" -> ")}`,
        );
      if (roles.includes(item.name)) continue;
      const role = findRole(item.name);
      if (!role) fail(entry.at, "unknown-role", `role '${item.name}' not found (no roles/${item.name}.json)`);
      roles.push(item.name);
      ancestry.push(item.name);
      expand(roleEntries(role, environment));
      ancestry.pop();
      roleDefault = deepMerge(roleDefault, role.defaultAttributes) as AttributeTree;
      roleOverride = deepMerge(roleOverride, role.overrideAttributes) as AttributeTree;
    }
  };
  expand(entries);
  return { recipes, origins, roles, roleDefault, roleOverride };
}

/** A role's run list for the environment, each entry placed in the role's file. */
function roleEntries(role: Role, environment: string): RunListEntry[] {
  const perEnv = Object.hasOwn(role.envRunLists, environment);
  const list = perEnv ? (role.envRunLists[environment] as readonly string[]) : role.runList;
  const prefix = perEnv ? `env_run_lists.${environment}` : "run_list";
  return list.map((text, i) => {
    const { file, line, column } = role.doc.diagnostic("unknown-role", "", `${prefix}.${i}`);
    return { text, at: { file, line, column } };
  });
}

function fail(at: SourcePosition, code: RecipesDiagnostic["code"], message: string): never {
  throw new RecipesError([{ code, severity: "error", message, ...at }]);
}
