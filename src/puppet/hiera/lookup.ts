/**
 * The lookup itself, as Puppet's LookupAdapter runs it for one compile: a
 * key is split into its root and dotted sub-keys, its `lookup_options`
 * (exact key, then patterns; global over environment over module) give the
 * merge when none is asked, the global, environment and module layers are
 * searched and merged, the result is dug into, a module's
 * `default_hierarchy` is the last resort, and `convert_to` converts
 * (`new(Type, value, args...)`).
 */
import { join } from "node:path";
import type { PuppetEnvironment } from "../env/environment.js";
import { type HieraProvider, NOT_FOUND, type VariableScope } from "../eval/compile-api.js";
import { newInstance, type PType } from "../eval/types.js";
import { PHash, type PValue } from "../eval/values.js";
import { rubyRegExp } from "../types/ruby-regexp.js";
import { type DataContext, DataLayer, type LookupView } from "./data.js";
import { HieraError } from "./errors.js";
import { dig, type Segment, splitKey } from "./interpolate.js";
import { FileProbe } from "./locations.js";
import { type Found, MergeStrategy, mergeStrategy } from "./merge.js";
import { parseTypeString } from "./type-string.js";

/** One call of lookup(): its scope, override and default values, and the keys being looked up (shared by nested lookups). */
export interface Invocation {
  readonly scope: VariableScope;
  readonly override: PHash;
  readonly defaults: PHash;
  readonly stack: string[];
  /** Only the global layer (the hiera_* functions without an environment hiera.yaml of version 5). */
  readonly globalOnly?: boolean;
  /** Made on first use by `view`. */
  view?: LookupView;
}

interface LookupKey {
  readonly key: string;
  readonly root: string;
  readonly segments: readonly Segment[];
  readonly moduleName?: string;
}

type CompiledOptions = { readonly keys: PHash; readonly patterns: readonly [RegExp, PValue][] } | undefined;

const HASH = new MergeStrategy("hash");
const LAYERS = ["global", "environment", "module"] as const;
const GLOBAL_ONLY = ["global"] as const;

export interface HieraSettings {
  readonly environment: PuppetEnvironment;
  /** The global hiera.yaml (Puppet's `hiera_config`). */
  readonly globalConfig: string;
  readonly codedir?: string;
  readonly warn: (message: string) => void;
}

/** Hiera for one compile: the HieraProvider of automatic parameter lookup, and the engine of `lookup()`. */
export class HieraLookup implements HieraProvider {
  readonly #data: DataContext;
  readonly #global: DataLayer;
  readonly #env: DataLayer | undefined;
  readonly #modules = new Map<string, DataLayer | undefined>();
  readonly #options = new Map<string, CompiledOptions>();
  #envOptions: PValue | null = null;

  constructor(private readonly settings: HieraSettings) {
    this.#data = {
      probe: new FileProbe(),
      files: new Map(),
      warnedOnce: new Set(),
      warn: settings.warn,
      codedir: settings.codedir,
    };
    this.#global = new DataLayer("global", settings.globalConfig, this.#data);
    const dir = settings.environment.dir;
    const envConfig = dir ? join(dir, "hiera.yaml") : undefined;
    // Without a hiera.yaml the environment has no data layer at all (Puppet 7).
    this.#env =
      envConfig && this.#data.probe.exists(envConfig)
        ? new DataLayer("environment", envConfig, this.#data)
        : undefined;
  }

  /** Automatic parameter lookup: the value of `key` in `scope`, or NOT_FOUND. */
  lookup(key: string, scope: VariableScope, options?: { merge?: PValue; moduleName?: string }): Found {
    const inv: Invocation = { scope, override: new PHash(), defaults: new PHash(), stack: [] };
    return this.lookupKey(key, inv, options?.merge, options?.moduleName);
  }

  /** The value of `key` (dotted sub-keys allowed) for one invocation, or NOT_FOUND. */
  lookupKey(key: string, inv: Invocation, merge: PValue | MergeStrategy, moduleName?: string): Found {
    if (key === "lookup_options" || key.startsWith("lookup_options.")) return NOT_FOUND;
    const lk = parseKey(key, moduleName);
    const options = this.optionsFor(lk, inv);
    const m = merge ?? (options instanceof PHash ? options.get("merge") : undefined);
    let value = this.search(lk, inv, m);
    if (value === NOT_FOUND && !inv.globalOnly) value = this.searchModuleDefaults(lk, inv);
    if (value === NOT_FOUND || !(options instanceof PHash) || options.get("convert_to") === undefined)
      return value;
    return convertResult(key, options.get("convert_to"), value);
  }

  /** The view interpolation gets: variables of the scope, nested lookups, the recursion guard. */
  view(inv: Invocation): LookupView {
    if (!inv.view) inv.view = this.makeView(inv);
    return inv.view;
  }

  private makeView(inv: Invocation): LookupView {
    return {
      variable: (name) => {
        const v = inv.scope.lookupVariable(name);
        return v === undefined && inv.defaults.has(name) ? inv.defaults.get(name) : v;
      },
      lookup: (key) => {
        const found = this.lookupNames([key], inv, undefined);
        return found === NOT_FOUND ? "" : found[1];
      },
      check: (name, fn) => {
        if (inv.stack.includes(name))
          throw new HieraError(`Recursive lookup detected in [${inv.stack.join(", ")}]`);
        inv.stack.push(name);
        try {
          return fn();
        } finally {
          inv.stack.pop();
        }
      },
    };
  }

  /** Puppet's Lookup.lookup without the default: the first name found (override values first, default values last). */
  lookupNames(
    names: readonly string[],
    inv: Invocation,
    merge: PValue,
    check?: (subject: string, value: PValue) => PValue,
  ): [string, PValue] | typeof NOT_FOUND {
    const assert = check ?? ((_s: string, v: PValue) => v);
    for (const name of names) {
      if (inv.override.has(name))
        return [name, assert(`Value found for key '${name}' in override hash`, inv.override.get(name))];
      const v = this.lookupKey(name, inv, merge);
      if (v !== NOT_FOUND) return [name, assert("Found value", v)];
    }
    for (const name of names)
      if (inv.defaults.has(name))
        return [name, assert(`Value found for key '${name}' in default values hash`, inv.defaults.get(name))];
    return NOT_FOUND;
  }

  private search(lk: LookupKey, inv: Invocation, merge: PValue | MergeStrategy): Found {
    const strategy = mergeStrategy(merge);
    const view = this.view(inv);
    const found = strategy.lookup(inv.globalOnly ? GLOBAL_ONLY : LAYERS, (layer) => {
      const provider = this.layer(layer, lk.moduleName);
      if (!provider) return NOT_FOUND;
      if (layer !== "global") return provider.lookup(lk.key, lk.root, view, strategy);
      try {
        return provider.lookup(lk.key, lk.root, view, strategy);
      } catch (e) {
        // Puppet rewords a lookup error without an issue code raised in the global layer.
        if (!(e instanceof HieraError) || e.issue) throw e;
        throw new HieraError(`Lookup of key '${lk.key}' failed: ${e.message}`, e.file, e.line);
      }
    });
    return found === NOT_FOUND ? NOT_FOUND : dig(lk.key, lk.segments, found);
  }

  private layer(layer: (typeof LAYERS)[number], moduleName: string | undefined): DataLayer | undefined {
    if (layer === "global") return this.#global;
    if (layer === "environment") return this.#env;
    return moduleName === undefined ? undefined : this.moduleLayer(moduleName);
  }

  private moduleLayer(name: string): DataLayer | undefined {
    if (!this.#modules.has(name)) {
      const mod = this.settings.environment.modules.get(name);
      const path = mod ? join(mod.dir, "hiera.yaml") : undefined;
      const layer =
        path && this.#data.probe.exists(path) ? new DataLayer("module", path, this.#data, name) : undefined;
      this.#modules.set(name, layer?.config() ? layer : undefined);
    }
    return this.#modules.get(name);
  }

  private searchModuleDefaults(lk: LookupKey, inv: Invocation): Found {
    if (lk.moduleName === undefined) return NOT_FOUND;
    const provider = this.moduleLayer(lk.moduleName);
    if (!provider?.config()?.defaultHierarchy) return NOT_FOUND;
    const view = this.view(inv);
    const raw = provider.lookup("lookup_options", "lookup_options", view, HASH, true);
    const options = extractOptions(
      lk,
      compileOptions(validateOptions(raw === NOT_FOUND ? undefined : raw, lk.moduleName)),
    );
    const merge = options instanceof PHash ? options.get("merge") : undefined;
    const found = provider.lookup(lk.key, lk.root, view, mergeStrategy(merge), true);
    return found === NOT_FOUND ? NOT_FOUND : dig(lk.key, lk.segments, found);
  }

  /** Whether the environment has a hiera.yaml of version 5 (else the hiera_* functions see only the global layer). */
  hasEnvironmentData(): boolean {
    return (this.#env?.config()?.version ?? 0) >= 5;
  }

  private optionsFor(lk: LookupKey, inv: Invocation): PValue {
    if (inv.globalOnly) {
      if (!this.#options.has("\u0000global")) {
        const v = this.#global.lookup("lookup_options", "lookup_options", this.view(inv), HASH);
        this.#options.set(
          "\u0000global",
          compileOptions(v === NOT_FOUND ? undefined : validateOptions(v, undefined)),
        );
      }
      return extractOptions(lk, this.#options.get("\u0000global"));
    }
    const cacheKey = lk.moduleName ?? "";
    if (!this.#options.has(cacheKey)) this.#options.set(cacheKey, this.retrieveOptions(lk.moduleName, inv));
    return extractOptions(lk, this.#options.get(cacheKey));
  }

  private retrieveOptions(moduleName: string | undefined, inv: Invocation): CompiledOptions {
    const meta: Invocation = {
      scope: inv.scope,
      override: new PHash(),
      defaults: new PHash(),
      stack: inv.stack,
    };
    const view = this.view(meta);
    const envOptions = this.environmentOptions(view);
    if (moduleName === undefined) return compileOptions(envOptions);
    if (!this.#options.has("")) this.#options.set("", compileOptions(envOptions));
    const mod = this.moduleLayer(moduleName);
    const found = mod ? mod.lookup("lookup_options", "lookup_options", view, HASH) : NOT_FOUND;
    const modOptions = found === NOT_FOUND ? undefined : validateOptions(found, moduleName);
    if (envOptions === undefined) return compileOptions(modOptions);
    if (modOptions === undefined) return compileOptions(envOptions);
    return compileOptions(HASH.merge(envOptions, modOptions));
  }

  private environmentOptions(view: LookupView): PValue {
    if (this.#envOptions === null) {
      const lookupIn = (layer: DataLayer | undefined) => {
        const v = layer ? layer.lookup("lookup_options", "lookup_options", view, HASH) : NOT_FOUND;
        return v === NOT_FOUND ? undefined : validateOptions(v, undefined);
      };
      const global = lookupIn(this.#global);
      const env = lookupIn(this.#env);
      this.#envOptions = global === undefined ? env : env === undefined ? global : HASH.merge(global, env);
    }
    return this.#envOptions;
  }
}

function parseKey(key: string, moduleName?: string): LookupKey {
  const segments = splitKey(key, (problem) => new HieraError(`${problem} in key: '${key}'`));
  const root = String(segments[0]);
  const q = root.indexOf("::");
  return {
    key,
    root,
    segments: segments.slice(1),
    moduleName: moduleName ?? (q > 0 ? root.slice(0, q) : undefined),
  };
}

function validateOptions(options: PValue, moduleName: string | undefined): PValue {
  if (options === undefined) return undefined;
  if (!(options instanceof PHash)) throw new HieraError("value of lookup_options must be a hash");
  if (moduleName === undefined) return options;
  const prefix = `${moduleName}::`;
  for (const k of options.keys()) {
    const key = String(k);
    if (key.startsWith("^")) {
      if (key.slice(1, prefix.length + 1) !== prefix)
        throw new HieraError(
          `all lookup_options patterns must match a key starting with module name '${moduleName}'`,
        );
    } else if (!key.startsWith(prefix))
      throw new HieraError(`all lookup_options keys must start with module name '${moduleName}'`);
  }
  return options;
}

function compileOptions(options: PValue): CompiledOptions {
  if (!(options instanceof PHash)) return undefined;
  const keys = new PHash();
  const patterns: [RegExp, PValue][] = [];
  for (const [k, v] of options) {
    const key = String(k);
    if (key.startsWith("^")) patterns.push([rubyRegExp(key), v]);
    else keys.set(key, v);
  }
  return { keys, patterns };
}

function extractOptions(lk: LookupKey, options: CompiledOptions): PValue {
  if (!options) return undefined;
  const exact = options.keys.get(lk.root);
  if (exact !== undefined) return exact;
  for (const [re, v] of options.patterns) if (re.test(lk.root)) return v;
  return undefined;
}

/** `convert_to`: `new(Type, value, args...)`. */
function convertResult(key: string, convertTo: PValue, value: PValue): PValue {
  const spec = Array.isArray(convertTo) ? convertTo : [convertTo];
  const [typeSpec, ...args] = spec;
  let t: PType;
  try {
    t = typeof typeSpec === "string" ? parseTypeString(typeSpec) : (typeSpec as PType);
  } catch (e) {
    throw new HieraError(
      `Invalid data type in lookup_options for key '${key}' could not parse '${String(typeSpec)}', error: '${(e as Error).message}`,
    );
  }
  try {
    return newInstance(t, [value, ...args] as PValue[]);
  } catch (e) {
    throw new HieraError(
      `The convert_to lookup_option for key '${key}' raised error: ${(e as Error).message}`,
    );
  }
}
