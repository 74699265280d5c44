/**
 * Chef's model in tend's terms: the contract between the load half of the
 * recipes front end (cookbooks, run list, node attributes) and the compile /
 * converge half (the resource DSL in dsl.ts). Types only, plus two tiny
 * helpers; nothing here does I/O.
 *
 * Load follows chef-client: cookbooks found on the cookbook path, ordered
 * by the run list (a cookbook's dependencies, sorted by name, before it;
 * each once), then every library of every cookbook, then every attribute
 * file, then resources, providers and definitions. Recipes are loaded on
 * demand, while the run list is compiled.
 */
import type { Logger } from "../system/logger.js";

/** A place in a user's file, 1-based, for diagnostics. */
export interface SourcePosition {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/** Stable codes for problems in cookbooks, roles, environments and node files. */
export type RecipesDiagnosticCode =
  | "invalid-json"
  | "invalid-metadata"
  | "duplicate-cookbook"
  | "unknown-cookbook"
  | "missing-dependency"
  | "dependency-cycle"
  | "invalid-run-list-item"
  | "unknown-recipe"
  | "unknown-role"
  | "invalid-role"
  | "role-cycle"
  | "unknown-environment"
  | "invalid-environment"
  | "invalid-node"
  | "syntax-error"
  | "load-error"
  | "invalid-export";

/** A problem in user input: data with a place, never a stack trace. */
export interface RecipesDiagnostic extends SourcePosition {
  readonly code: RecipesDiagnosticCode;
  readonly severity: "error" | "warning";
  /** What is wrong and what was expected. */
  readonly message: string;
}

/** `file:line:col: error: message`, the one-line form the CLI prints. */
export function formatRecipesDiagnostic(d: RecipesDiagnostic): string {
  return `${d.file}:${d.line}:${d.column}: ${d.severity}: ${d.message}`;
}

/**
 * A user error found while loading or compiling (bad metadata, a missing
 * dependency, a throw in an attribute file): carries its diagnostics so the
 * CLI prints them, not a stack trace.
 */
export class RecipesError extends Error {
  constructor(readonly diagnostics: readonly RecipesDiagnostic[]) {
    super(diagnostics.map(formatRecipesDiagnostic).join("\n"));
    this.name = "RecipesError";
  }
}

/** A cookbook's metadata.json as Chef writes it, validated. */
export interface CookbookManifest {
  readonly name: string;
  readonly version: string;
  /** Chef's `dependencies` in metadata.json: cookbook name -> version constraint (">= 0.0.0"). */
  readonly dependencies: Readonly<Record<string, string>>;
  /** The cookbook's directory (absolute). */
  readonly directory: string;
  /** The metadata file, when there was one (a cookbook without it is named after its directory). */
  readonly metadataFile?: string;
}

/** The support-file kinds in Chef's load order; recipes come after, on demand. */
export const LOAD_KINDS = ["libraries", "attributes", "resources", "providers", "definitions"] as const;
export type LoadKind = (typeof LOAD_KINDS)[number];
export type FileKind = LoadKind | "recipes";

/** One user file of a cookbook. */
export interface CookbookFile {
  readonly cookbook: string;
  readonly kind: FileKind;
  /** The file's name without extension, relative to its kind's folder (`default`, `sub/thing`). */
  readonly name: string;
  /** Absolute path. */
  readonly path: string;
}

/** A cookbook found on the cookbook path, with its files sorted (attributes/default first). */
export interface Cookbook extends CookbookManifest {
  readonly files: Readonly<Record<FileKind, readonly CookbookFile[]>>;
}

/** One entry of a run list as written: `recipe[cb::name]`, `cb`, `role[web]`. */
export type RunListItem =
  | { readonly type: "recipe"; readonly cookbook: string; readonly recipe: string }
  | { readonly type: "role"; readonly name: string };

/** A run list expanded: roles replaced by their entries recursively, each recipe once. */
export interface ExpandedRunList {
  /** Fully qualified recipe names in run order: `cb::default`, `cb::web`. */
  readonly recipes: readonly string[];
  /** Every role met, in the order first met. */
  readonly roles: readonly string[];
  /** Cookbooks in load order (dependencies first), derived from `recipes`. */
  readonly cookbooks: readonly string[];
}

/** Chef's precedence levels, lowest first. */
export const PRECEDENCE_LEVELS = [
  "default",
  "force_default",
  "normal",
  "override",
  "force_override",
  "automatic",
] as const;
export type PrecedenceLevel = (typeof PRECEDENCE_LEVELS)[number];

/** An attribute's value: what JSON holds. */
export type AttributeValue =
  | string
  | number
  | boolean
  | null
  | readonly AttributeValue[]
  | { readonly [key: string]: AttributeValue };

/** A tree of attributes (one precedence level or the merged view). */
export type AttributeTree = { readonly [key: string]: AttributeValue };

/**
 * An auto-vivifying writable tree: `node.default.nginx.port = 80` creates
 * `nginx` on first touch, as Chef's `node.default['nginx']['port'] = 80`.
 * Typed loosely on purpose: the tree is written at any depth with any JSON
 * value; reads with types go through `Node.get`.
 */
// biome-ignore lint/suspicious/noExplicitAny: a tree written at any depth, as Chef's node.default['a']['b']
export type VividTree = { [key: string]: any };

/** The writable precedence levels of the node (automatic is the host's facts, read-only). */
export type WritableLevel = Exclude<PrecedenceLevel, "automatic">;

/**
 * The node as attribute files and recipes see it. Writes go to a level;
 * reads see the merged view (Chef's precedence, computed on read).
 */
export interface Node {
  /** The node's name (`-N`, else the host's FQDN). */
  readonly name: string;
  readonly chefEnvironment: string;
  readonly default: VividTree;
  readonly force_default: VividTree;
  readonly normal: VividTree;
  readonly override: VividTree;
  readonly force_override: VividTree;
  /**
   * Write-if-absent views, as Chef's `default_unless`/`normal_unless`/
   * `override_unless` (`set_unless` is `normal_unless`):
   * `node.default_unless.app.port = 80` writes only when the cookbook
   * default level holds no value (or null) at `app.port`.
   */
  readonly default_unless: VividTree;
  readonly normal_unless: VividTree;
  readonly override_unless: VividTree;
  readonly set_unless: VividTree;
  /**
   * Chef's `rm`: removes the path from every level but automatic and
   * returns the merged value it had (undefined when none). `rm_default`
   * removes it from the four default components (cookbook, role,
   * environment, force_default) and returns their combined value;
   * `rm_normal` from normal; `rm_override` from the four override ones.
   */
  rm(...path: string[]): AttributeValue | undefined;
  rm_default(...path: string[]): AttributeValue | undefined;
  rm_normal(...path: string[]): AttributeValue | undefined;
  rm_override(...path: string[]): AttributeValue | undefined;
  /**
   * Chef's `include_attribute`, for attribute files: loads another
   * attribute file now (`"cb"` is `cb::default`, `"cb::name"`), unless it
   * was loaded already; a file loaded this way is skipped when the load
   * order reaches it. The cookbook must be part of the run (a
   * dependency). Rejects outside the load phase, and for an unknown file.
   */
  includeAttribute(spec: string): Promise<void>;
  /** The host's facts (ohai names), computed lazily on first read. */
  readonly automatic: AttributeTree;
  /** The merged value at a path, or undefined. */
  get(...path: string[]): AttributeValue | undefined;
  /** The merged view of every level, as a plain tree (frozen). */
  readonly attributes: AttributeTree;
  /** Whether a merged value exists at the path. */
  has(...path: string[]): boolean;
  /** The expanded run list's recipes (`cb::name`), as Chef's `node.recipes`. */
  readonly recipes: readonly string[];
  /** Roles of the expanded run list, as Chef's `node.roles`. */
  readonly roles: readonly string[];
}

/**
 * What an attribute file sees: the node while attributes are loaded. A
 * recipe should see the same object (RecipeContext's `node`), so that
 * `node.default.x = 1` in a recipe writes the cookbook default level, as
 * Chef's "node/recipe" source in its precedence table.
 */
export type AttributeFile = Node;

/** An attribute file exports `default (node) => void` (a promise is awaited). */
export type AttributeFileExport = (node: AttributeFile) => void | Promise<void>;

/**
 * What the load phase hands to compile: cookbooks in load order, the
 * expanded run list, the node with every attribute file applied, each
 * library's and resource file's module, and the way to load recipes.
 */
export interface LoadedRun {
  readonly node: Node;
  readonly cookbooks: readonly Cookbook[];
  readonly runList: ExpandedRunList;
  /** The default export of each resources/*.ts, in load order (converge's defineResource values). */
  readonly resources: readonly LoadedModule[];
  /** Each library's module namespace, in load order. */
  readonly libraries: readonly LoadedModule[];
  /** Each providers/* module, in load order (loaded after every resource). */
  readonly providers: readonly LoadedModule[];
  /** Each definitions/* module, in load order. */
  readonly definitions: readonly LoadedModule[];
  /**
   * Where in a user file (a recipe, a library...) an error was thrown: the
   * first stack frame in one, mapped through the source map; undefined when
   * none is. For compile errors: `file:line:col` of the user's line.
   */
  locate(error: unknown): SourcePosition | undefined;
  /**
   * A position in the code Node runs (a stack frame of a user file: its
   * path, with the transpiled line and column) mapped to the user's line
   * and column; positions in other files come back unchanged.
   */
  mapLocation(position: {
    readonly file: string;
    readonly line: number;
    readonly column?: number;
  }): SourcePosition;
  /** Loads recipes on demand, each once (the run list's and `includeRecipe`'s). */
  readonly recipeBook: RecipeBook;
  /** The `--config` file's handlers (empty lists without one). */
  readonly config: {
    readonly reportHandlers: readonly ((status: never) => unknown)[];
    readonly exceptionHandlers: readonly ((status: never) => unknown)[];
  };
  /**
   * Writes the node (name, chef_environment, run_list, normal attributes
   * and the others as chef-client saves them) to nodes/<name>.json, atomically,
   * for the next run. Call at the end of a run (success or failure, as chef-client).
   */
  saveNode(): Promise<void>;
}

/** Recipes loaded on demand; each is included once per run. */
export interface RecipeBook {
  /**
   * Includes `cb`, `cb::name` or `recipe[cb::name]`: loads it and returns its
   * module the first time, `undefined` when it was already included (then do
   * nothing, as Chef's `include_recipe`). Throws a RecipesError for an
   * unknown cookbook or recipe, a cookbook outside the run's dependencies,
   * or a file that does not compile; `from` is where the include was written.
   */
  include(name: string, from?: SourcePosition): Promise<LoadedModule | undefined>;
  /** Recipes included so far, in order (`cb::name`). */
  readonly included: readonly string[];
}

/** What `loadRun` needs: chef-client's local-mode settings. */
export interface LoadOptions {
  /** `--cookbook-path`, one or several directories; a cookbook found in two is an error. */
  readonly cookbookPaths: readonly string[];
  /** The run list (`-o`/`--override-runlist`); without it, the node's (from `-j` or the saved node). */
  readonly runList?: readonly string[];
  /** `-j`: a node JSON file (normal attributes, `run_list`, `chef_environment`). */
  readonly jsonAttributes?: string;
  /** `-N`: the node's name; default the host's FQDN. */
  readonly nodeName?: string;
  /** `-E`: the environment; default the node's, else `_default`. */
  readonly environment?: string;
  /** Where roles/<name>.json are; default `roles` beside the first cookbook path. */
  readonly rolePath?: string;
  /** Where environments/<name>.json are; default `environments` beside the first cookbook path. */
  readonly environmentPath?: string;
  /** Where nodes/<name>.json are read and saved; default `nodes` beside the first cookbook path. */
  readonly nodePath?: string;
  /** The host's facts, for tests; default computed lazily from the host. */
  readonly automatic?: AttributeTree | (() => AttributeTree);
  /**
   * Where transpiled user files are kept across runs, so that unchanged
   * cookbooks start no esbuild; `false`: none. Default: `local-mode-cache/tend`
   * beside the node path's directory (where chef-client's local mode keeps
   * its cache), i.e. inside the Chef repository.
   */
  readonly cacheDirectory?: string | false;
  /**
   * `-c`/`--config`: a TypeScript or JavaScript file whose default export
   * is the run's config (`RunConfig` of the DSL: handlers), loaded first.
   */
  readonly configFile?: string;
  /** Called for each load step, in order. */
  readonly onLoad?: LoadHook;
  /** Where load steps and warnings are logged (verbose/debug). */
  readonly logger?: Logger;
  /**
   * Modules tend lends to user files by import specifier (`"tend/recipes"`:
   * the DSL), the very instances the run uses. Any other `tend/...` import
   * is an error naming these.
   */
  readonly hostModules?: Readonly<Record<string, unknown>>;
}

/** A user module once loaded. */
export interface LoadedModule {
  readonly file: CookbookFile;
  /** The module namespace (`default` and named exports). */
  readonly exports: Readonly<Record<string, unknown>>;
}

/** The sequence of load steps, for tests and `--verbose`: `a/libraries/x`, `b/attributes/default`. */
export type LoadHook = (step: {
  readonly kind: FileKind;
  readonly cookbook: string;
  readonly file: string;
}) => void;

/** `cb::name` for a recipe (`default` when the name is omitted). */
export function qualifiedRecipe(cookbook: string, recipe = "default"): string {
  return `${cookbook}::${recipe}`;
}
