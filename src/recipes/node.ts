/**
 * The node's attributes, held as Chef holds them: ten components (cookbook
 * default, environment default, role default, force_default, normal,
 * cookbook override, role override, environment override, force_override,
 * automatic), merged on read, lowest first:
 *
 *   defaults  = deepMerge(default, env_default, role_default, force_default)
 *   overrides = deepMerge(override, role_override, env_override, force_override)
 *   merged    = hashOnlyMerge(defaults, normal, overrides, automatic)
 *
 * Attribute files and recipes write the same cookbook components
 * (`node.default` is both "attribute file" and "recipe" in Chef's table;
 * the recipe wins because it runs later). The merged view is computed per
 * top-level key and kept until the next write.
 */
import { deepMerge, hashOnlyMerge, isTree } from "./merge.js";
import type { AttributeTree, AttributeValue, Node, VividTree, WritableLevel } from "./model.js";
import { emptyStore, frozenCopy, importValue, type Store, unlessView, unlinkPath, vivid } from "./vivid.js";

export type Component =
  | "default"
  | "env_default"
  | "role_default"
  | "force_default"
  | "normal"
  | "override"
  | "role_override"
  | "env_override"
  | "force_override";

const DEFAULTS: readonly Component[] = ["default", "env_default", "role_default", "force_default"];
const OVERRIDES: readonly Component[] = ["override", "role_override", "env_override", "force_override"];
const ALL: readonly Component[] = [...DEFAULTS, "normal", ...OVERRIDES];

/** The node of one run. */
export class RunNode implements Node {
  readonly default: VividTree;
  readonly force_default: VividTree;
  readonly normal: VividTree;
  readonly override: VividTree;
  readonly force_override: VividTree;
  readonly default_unless: VividTree;
  readonly normal_unless: VividTree;
  readonly override_unless: VividTree;
  recipes: readonly string[] = [];
  roles: readonly string[] = [];
  chefEnvironment = "_default";
  private readonly stores = {} as Record<Component, Store>;
  private automaticTree: AttributeTree | undefined;
  private readonly merged = new Map<string, AttributeValue | undefined>();
  private readonly touched = (): void => this.merged.clear();
  /** Loads another cookbook's attribute file (set by the load phase; none after it). */
  attributeLoader: ((spec: string) => Promise<void>) | undefined;

  constructor(
    readonly name: string,
    private readonly automaticSource: () => AttributeTree,
  ) {
    for (const c of ALL) this.stores[c] = emptyStore();
    this.default = this.level("default");
    this.force_default = this.level("force_default");
    this.normal = this.level("normal");
    this.override = this.level("override");
    this.force_override = this.level("force_override");
    this.default_unless = unlessView(this.stores.default, this.touched);
    this.normal_unless = unlessView(this.stores.normal, this.touched);
    this.override_unless = unlessView(this.stores.override, this.touched);
  }

  /** Chef's old name for `normal_unless`. */
  get set_unless(): VividTree {
    return this.normal_unless;
  }

  includeAttribute(spec: string): Promise<void> {
    if (!this.attributeLoader)
      return Promise.reject(
        new Error(`includeAttribute('${spec}'): attribute files are loaded only during load`),
      );
    return this.attributeLoader(spec);
  }

  rm(...path: string[]): AttributeValue | undefined {
    return this.removing(() => this.get(...path), ALL, path);
  }

  rm_default(...path: string[]): AttributeValue | undefined {
    return this.removing(() => readTree(this.combinedDefault(), path), DEFAULTS, path);
  }

  rm_normal(...path: string[]): AttributeValue | undefined {
    return this.removing(() => readTree(this.stores.normal as AttributeTree, path), ["normal"], path);
  }

  rm_override(...path: string[]): AttributeValue | undefined {
    return this.removing(() => readTree(this.combinedOverride(), path), OVERRIDES, path);
  }

  /** Chef's `rm_*`: the value the levels held together, then the path unlinked from each. */
  private removing(
    before: () => AttributeValue | undefined,
    components: readonly Component[],
    path: readonly string[],
  ): AttributeValue | undefined {
    const value = before();
    const out = value === undefined ? undefined : frozenCopy(value);
    let changed = false;
    for (const c of components) changed = unlinkPath(this.stores[c], path) || changed;
    if (changed) this.touched();
    return out;
  }

  private level(c: WritableLevel): VividTree {
    return vivid(this.stores[c], this.touched, c);
  }

  /** Replaces a component's content (roles, environment, the saved node's normal attributes). */
  setComponent(component: Component, tree: AttributeTree): void {
    // In place: the level's vivid view keeps pointing at the same store.
    const store = this.stores[component];
    for (const key of Object.keys(store)) delete store[key];
    Object.assign(store, importValue(tree, component));
    this.touched();
  }

  /** A component's raw tree (for saving and tests). */
  component(component: Component): AttributeTree {
    return this.stores[component] as AttributeTree;
  }

  /** The host's facts with the run's own (`recipes`, `roles`, `expanded_run_list`), computed on first read. */
  get automatic(): AttributeTree {
    this.automaticTree ??= frozenCopy({
      ...this.automaticSource(),
      recipes: this.recipes,
      expanded_run_list: this.recipes,
      roles: this.roles,
    }) as AttributeTree;
    return this.automaticTree;
  }

  get(...path: string[]): AttributeValue | undefined {
    const [first, ...rest] = path;
    if (first === undefined) return this.attributes;
    let value = this.mergedKey(first);
    for (const key of rest) {
      if (Array.isArray(value) && /^\d+$/.test(key)) value = value[Number(key)];
      else if (isTree(value) && Object.hasOwn(value, key)) value = value[key];
      else return undefined;
    }
    return value;
  }

  has(...path: string[]): boolean {
    return this.get(...path) !== undefined;
  }

  get attributes(): AttributeTree {
    const keys = new Set<string>(Object.keys(this.automatic));
    for (const c of ALL) for (const key of Object.keys(this.stores[c])) keys.add(key);
    const out: { [key: string]: AttributeValue } = {};
    for (const key of keys) {
      const value = this.mergedKey(key);
      if (value !== undefined) out[key] = value;
    }
    return Object.freeze(out);
  }

  /** The combined default levels (what Chef saves as `default`). */
  combinedDefault(): AttributeTree {
    return combine(DEFAULTS.map((c) => this.stores[c])) as AttributeTree;
  }

  /** The combined override levels (what Chef saves as `override`). */
  combinedOverride(): AttributeTree {
    return combine(OVERRIDES.map((c) => this.stores[c])) as AttributeTree;
  }

  private mergedKey(key: string): AttributeValue | undefined {
    if (this.merged.has(key)) return this.merged.get(key);
    const at = (tree: AttributeTree): AttributeValue | undefined =>
      Object.hasOwn(tree, key) ? tree[key] : undefined;
    const defaults = fold(
      DEFAULTS.map((c) => at(this.stores[c])),
      deepMerge,
    );
    const overrides = fold(
      OVERRIDES.map((c) => at(this.stores[c])),
      deepMerge,
    );
    const all = [defaults, at(this.stores.normal), overrides, at(this.automatic)];
    const value = fold(all, hashOnlyMerge);
    const frozen = value === undefined ? undefined : frozenCopy(value);
    this.merged.set(key, frozen);
    return frozen;
  }
}

function readTree(tree: AttributeTree, path: readonly string[]): AttributeValue | undefined {
  let at: AttributeValue | undefined = tree;
  for (const key of path) {
    if (!isTree(at) || !Object.hasOwn(at, key)) return undefined;
    at = at[key];
  }
  return at;
}

/** Merges present values lowest first (absent ones skipped, as Chef skips missing paths). */
function fold(
  values: readonly (AttributeValue | undefined)[],
  merge: (lower: AttributeValue | undefined, higher: AttributeValue) => AttributeValue,
): AttributeValue | undefined {
  let out: AttributeValue | undefined;
  for (const value of values) if (value !== undefined) out = out === undefined ? value : merge(out, value);
  return out;
}

function combine(trees: readonly AttributeTree[]): AttributeValue {
  return fold(trees, deepMerge) ?? {};
}
