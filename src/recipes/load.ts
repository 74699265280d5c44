/**
 * The load phase of a chef-client run in local mode, as named steps:
 * settle the node's name, saved state, `-j` attributes and environment;
 * expand the run list; find and order the cookbooks; then load every
 * library of every cookbook, every attribute file, every resource, every
 * provider and every definition, in that order. Recipes are loaded later,
 * on demand, through the recipe book.
 */
import { basename, dirname, join, resolve } from "node:path";
import { getHostFacts } from "../eval/host.js";
import { hostAutomaticAttributes } from "./automatic.js";
import { discoverCookbooks } from "./cookbooks.js";
import { type Expansion, expandRunList, type RunListEntry } from "./expand.js";
import { deepMerge } from "./merge.js";
import type {
  AttributeTree,
  Cookbook,
  CookbookFile,
  LoadedModule,
  LoadedRun,
  LoadKind,
  LoadOptions,
  SourcePosition,
} from "./model.js";
import { LOAD_KINDS, RecipesError } from "./model.js";
import { ModuleLoader } from "./module-loader.js";
import { type NodeData, readJsonAttributes, readSavedNode, writeSavedNode } from "./node-file.js";
import { RunNode } from "./node.js";
import { cookbookOrder } from "./order.js";
import { RunRecipeBook } from "./recipe-book.js";
import { DEFAULT_ENVIRONMENT, type Environment, readEnvironment, readRole, type Role } from "./repository.js";
import { runFile } from "./run-file.js";

/** Where a Chef repository's parts are, from the options. */
interface Places {
  readonly cookbookPaths: readonly string[];
  readonly rolePath: string;
  readonly environmentPath: string;
  readonly nodePath: string;
  readonly cacheDirectory: string | undefined;
}

function placesOf(options: LoadOptions): Places {
  const cookbookPaths = options.cookbookPaths.map((p) => resolve(p));
  const repo = dirname(cookbookPaths[0] ?? resolve("cookbooks"));
  const nodePath = resolve(options.nodePath ?? join(repo, "nodes"));
  const cache = options.cacheDirectory;
  return {
    cookbookPaths,
    rolePath: resolve(options.rolePath ?? join(repo, "roles")),
    environmentPath: resolve(options.environmentPath ?? join(repo, "environments")),
    nodePath,
    cacheDirectory:
      cache === false ? undefined : resolve(cache ?? join(dirname(nodePath), "local-mode-cache", "tend")),
  };
}

/**
 * Loads a run: every problem in user input (metadata, roles, node files,
 * a syntax error, a throw in an attribute file) is a RecipesError carrying
 * diagnostics; nothing is printed.
 */
export async function loadRun(options: LoadOptions): Promise<LoadedRun> {
  const places = placesOf(options);
  const automatic = automaticSource(options);
  const name = options.nodeName ?? nodeNameOf(options);
  const saved = readSavedNode(places.nodePath, name);
  const json = options.jsonAttributes === undefined ? undefined : readJsonAttributes(options.jsonAttributes);
  const environment = settleEnvironment(options, places, json, saved);
  const expansion = expandRunList(runListOf(options, json, saved), environment.name, roleFinder(places));
  const cookbooks = orderedCookbooks(places, expansion, environment);
  const node = makeNode(name, automatic, environment, expansion, json, saved);
  const loader = new ModuleLoader(options.hostModules, places.cacheDirectory);
  const config = options.configFile === undefined ? NO_CONFIG : await loadConfig(options.configFile, loader);
  const loaded = await loadPhases(cookbooks, node, loader, options);
  const primary = (json?.runList ?? saved?.runList ?? []).map((e) => e.text);
  return {
    node,
    cookbooks,
    runList: { recipes: expansion.recipes, roles: expansion.roles, cookbooks: cookbooks.map((c) => c.name) },
    ...loaded,
    recipeBook: new RunRecipeBook(cookbooks, loader, options.onLoad),
    config,
    locate: (error) => loader.locate(error),
    mapLocation: (position) => loader.mapPosition(position),
    saveNode: async () => {
      writeSavedNode(places.nodePath, {
        name,
        chef_environment: node.chefEnvironment,
        json_class: "Chef::Node",
        chef_type: "node",
        automatic: node.automatic,
        normal: node.component("normal"),
        default: node.combinedDefault(),
        override: node.combinedOverride(),
        run_list: primary,
      });
    },
  };
}

function automaticSource(options: LoadOptions): () => AttributeTree {
  const given = options.automatic;
  if (given === undefined) return hostAutomaticAttributes;
  return typeof given === "function" ? given : () => given;
}

/** chef-client's default node name: the host's FQDN (or the given facts' `fqdn`). */
function nodeNameOf(options: LoadOptions): string {
  const given = options.automatic;
  if (given !== undefined) {
    const fqdn = (typeof given === "function" ? given() : given).fqdn;
    if (typeof fqdn === "string" && fqdn !== "") return fqdn;
  }
  return getHostFacts().hostname;
}

/** `-E`, else the `-j` file's, else the saved node's, else `_default`. */
function settleEnvironment(
  options: LoadOptions,
  places: Places,
  json?: NodeData,
  saved?: NodeData,
): Environment {
  const name = options.environment ?? json?.environment ?? saved?.environment ?? "_default";
  const env =
    name === "_default"
      ? (readEnvironment(places.environmentPath, name) ?? DEFAULT_ENVIRONMENT)
      : readEnvironment(places.environmentPath, name);
  if (!env) {
    const file = join(places.environmentPath, `${name}.json`);
    const message = `environment '${name}' not found: no such file`;
    throw new RecipesError([
      { code: "unknown-environment", severity: "error", message, file, line: 1, column: 1 },
    ]);
  }
  return env;
}

/** `-o` replaces the node's run list for this run; else the `-j` file's, else the saved node's. */
function runListOf(options: LoadOptions, json?: NodeData, saved?: NodeData): RunListEntry[] {
  if (options.runList) {
    const at: SourcePosition = { file: "(--override-runlist)", line: 1, column: 1 };
    return options.runList.flatMap((text) => text.split(",")).map((text) => ({ text: text.trim(), at }));
  }
  return [...(json?.runList ?? saved?.runList ?? [])];
}

function roleFinder(places: Places): (name: string) => Role | undefined {
  const cache = new Map<string, Role | undefined>();
  return (name) => {
    if (!cache.has(name)) cache.set(name, readRole(places.rolePath, name));
    return cache.get(name);
  };
}

function orderedCookbooks(places: Places, expansion: Expansion, environment: Environment): Cookbook[] {
  const all = discoverCookbooks(places.cookbookPaths);
  const pinsAt = (cookbook: string): SourcePosition => {
    const d = environment.doc?.diagnostic("missing-dependency", "", `cookbook_versions.${cookbook}`);
    return d
      ? { file: d.file, line: d.line, column: d.column }
      : { file: "(environment)", line: 1, column: 1 };
  };
  const names = cookbookOrder(
    expansion.recipes,
    expansion.origins,
    all,
    environment.cookbookVersions,
    pinsAt,
  );
  return names.map((n) => all.get(n) as Cookbook);
}

function makeNode(
  name: string,
  automatic: () => AttributeTree,
  environment: Environment,
  expansion: Expansion,
  json?: NodeData,
  saved?: NodeData,
): RunNode {
  const node = new RunNode(name, automatic);
  node.chefEnvironment = environment.name;
  node.recipes = expansion.recipes;
  node.roles = expansion.roles;
  // chef-client merges the -j attributes onto the saved normal ones (Chef's deep merge).
  node.setComponent("normal", deepMerge(saved?.normal ?? {}, json?.normal ?? {}) as AttributeTree);
  node.setComponent("env_default", environment.defaultAttributes);
  node.setComponent("env_override", environment.overrideAttributes);
  node.setComponent("role_default", expansion.roleDefault);
  node.setComponent("role_override", expansion.roleOverride);
  return node;
}

type Loaded = Pick<LoadedRun, "libraries" | "resources" | "providers" | "definitions">;

/** Each kind of file for all cookbooks before the next kind, cookbooks in order. */
async function loadPhases(
  cookbooks: readonly Cookbook[],
  node: RunNode,
  loader: ModuleLoader,
  options: LoadOptions,
): Promise<Loaded> {
  const out: Record<LoadKind, LoadedModule[]> = {
    libraries: [],
    attributes: [],
    resources: [],
    providers: [],
    definitions: [],
  };
  const attributes = attributeFiles(cookbooks, node, loader, options);
  for (const kind of LOAD_KINDS) {
    if (kind === "attributes") {
      await attributes.loadAll();
      continue;
    }
    for (const cookbook of cookbooks) {
      for (const file of cookbook.files[kind]) out[kind].push(await loadOne(file, node, loader, options));
    }
  }
  return {
    libraries: out.libraries,
    resources: out.resources,
    providers: out.providers,
    definitions: out.definitions,
  };
}

async function loadOne(
  file: CookbookFile,
  node: RunNode,
  loader: ModuleLoader,
  options: LoadOptions,
): Promise<LoadedModule> {
  options.onLoad?.({ kind: file.kind, cookbook: file.cookbook, file: file.name });
  options.logger?.verbose(`Loading ${file.cookbook}/${file.kind}/${file.name} (${file.path})`);
  const exports = await runFile(file, loader, (mod) => {
    if (file.kind !== "attributes") return;
    const fn = mod.default;
    if (typeof fn !== "function") return "an attribute file must `export default (node) => { ... }`";
    return () => fn(node);
  });
  return { file, exports };
}

/**
 * The attribute phase with Chef's `include_attribute`: every file once,
 * in load order, except that a file may load another first (then the
 * order skips it). A file is marked loaded before it runs, so two files
 * including each other do not loop (as Chef's run context marks them).
 */
function attributeFiles(
  cookbooks: readonly Cookbook[],
  node: RunNode,
  loader: ModuleLoader,
  options: LoadOptions,
) {
  const seen = new Set<string>();
  const byCookbook = new Map(cookbooks.map((c) => [c.name, c]));
  const loadFile = async (file: CookbookFile): Promise<void> => {
    const key = `${file.cookbook}::${file.name}`;
    if (seen.has(key)) return;
    seen.add(key);
    await loadOne(file, node, loader, options);
  };
  node.attributeLoader = (spec) => {
    const [cookbook = "", name = "default"] = spec.split("::");
    const owner = byCookbook.get(cookbook);
    if (!owner)
      throw new Error(
        `includeAttribute('${spec}'): cookbook '${cookbook}' is not part of this run; add it to metadata's dependencies`,
      );
    const file = owner.files.attributes.find((f) => f.name === name);
    if (!file)
      throw new Error(`includeAttribute('${spec}'): cookbook '${cookbook}' has no attribute file '${name}'`);
    return loadFile(file);
  };
  return {
    async loadAll(): Promise<void> {
      try {
        for (const cookbook of cookbooks) for (const file of cookbook.files.attributes) await loadFile(file);
      } finally {
        node.attributeLoader = undefined;
      }
    },
  };
}

const NO_CONFIG: LoadedRun["config"] = { reportHandlers: [], exceptionHandlers: [] };

/**
 * The `--config` file (chef-client's client.rb, in TypeScript): its default
 * export an object of handler lists; anything else is a diagnostic at it.
 */
async function loadConfig(path: string, loader: ModuleLoader): Promise<LoadedRun["config"]> {
  const file: CookbookFile = {
    cookbook: "(config)",
    kind: "libraries",
    name: basename(path),
    path: resolve(path),
  };
  const found: { value?: LoadedRun["config"] } = {};
  await runFile(file, loader, (mod) => {
    const config = mod.default as Record<string, unknown> | undefined;
    if (typeof config !== "object" || config === null)
      return "a config file must `export default defineConfig({ reportHandlers: [...], exceptionHandlers: [...] })`";
    for (const key of Object.keys(config))
      if (key !== "reportHandlers" && key !== "exceptionHandlers")
        return `unknown config setting '${key}' (reportHandlers, exceptionHandlers)`;
    const list = (key: string) => {
      const value = config[key] ?? [];
      return Array.isArray(value) && value.every((h) => typeof h === "function") ? value : undefined;
    };
    const reportHandlers = list("reportHandlers");
    const exceptionHandlers = list("exceptionHandlers");
    if (!reportHandlers || !exceptionHandlers)
      return "reportHandlers and exceptionHandlers must be arrays of functions";
    found.value = { reportHandlers, exceptionHandlers };
    return undefined;
  });
  return found.value ?? NO_CONFIG;
}
