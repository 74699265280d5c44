/**
 * Hiera's data: the files a hierarchy entry reads (`yaml_data`,
 * `json_data`), parsed once per compile, checked as Puppet checks them (a
 * hash at the top, RichData values, module data keyed in the module's
 * namespace), and the entries and layers that look a key up in them.
 */
import { HoconError, parseHocon } from "../../text/hocon.js";
import type { KeyObject, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { NOT_FOUND } from "../eval/compile-api.js";
import { hoconToPuppet } from "../eval/hocon.js";
import { PHash, PObject, type PValue } from "../eval/values.js";
import {
  fail,
  type HieraConfig,
  type HierarchyEntry,
  type Layer,
  readHieraConfig,
  stringKeys,
} from "./config.js";
import { HieraError, puppetTypeName } from "./errors.js";
import { decryptValue } from "./eyaml.js";
import { type InterpolationContext, interpolate } from "./interpolate.js";
import { type FileProbe, type ResolvedLocation, resolveLocations } from "./locations.js";
import type { Found, MergeStrategy } from "./merge.js";
import { loadPsych, PsychError } from "./psych.js";

/** What the layers share for one compile: caches, the file probe, warnings. */
export interface DataContext {
  readonly probe: FileProbe;
  readonly files: Map<string, PValue | HieraError>;
  /** Keys of the warnings Puppet gives once (warn_once) already given. */
  readonly warnedOnce: Set<string>;
  warn(message: string): void;
  readonly codedir?: string;
}

/** One lookup's view: interpolation (variables, nested lookups, the recursion guard). */
export type LookupView = InterpolationContext;

const NO_LOCATION: (ResolvedLocation | null)[] = [null];

const MISSING_PATH =
  "one of 'path', 'paths' 'glob', 'globs' or 'mapped_paths' must be declared in hiera.yaml when using this data_hash function";

/** A configured layer: the global hiera.yaml, the environment's, or a module's. */
export class DataLayer {
  #config: HieraConfig | undefined | null = null;
  readonly #hashes = new Map<ResolvedLocation | HierarchyEntry, PHash>();
  /** eyaml_lookup_key's decrypted values by location and key, and the keys it read. */
  readonly #eyamlValues = new Map<ResolvedLocation, Map<string, PValue>>();
  readonly #eyamlKeys = new Map<string, KeyObject | X509Certificate | Error>();

  constructor(
    readonly layer: Layer,
    readonly configPath: string,
    private readonly data: DataContext,
    readonly moduleName?: string,
  ) {}

  /** The configuration, read on first use; undefined when the layer ignores its file. */
  config(): HieraConfig | undefined {
    if (this.#config === null) {
      const data = this.data;
      const warnings = {
        warn: (m: string) => data.warn(m),
        once: (key: string, m: string) => {
          if (data.warnedOnce.has(key)) return;
          data.warnedOnce.add(key);
          data.warn(m);
        },
      };
      this.#config = readHieraConfig(this.configPath, this.layer, warnings, data.codedir);
    }
    return this.#config;
  }

  /** Looks `root` up through the hierarchy (or the module's default_hierarchy). */
  lookup(key: string, root: string, view: LookupView, merge: MergeStrategy, useDefault = false): Found {
    const config = this.config();
    if (!config) return NOT_FOUND;
    const entries = useDefault ? (config.defaultHierarchy ?? []) : config.hierarchy;
    return view.check(key, () => {
      const resolved: { entry: HierarchyEntry; locations: (ResolvedLocation | null)[] }[] = [];
      for (const e of entries) {
        const r = this.resolveEntry(e, config, view);
        if (r) resolved.push(r);
      }
      if (resolved.length === 0) return NOT_FOUND;
      return merge.lookup(resolved, ({ entry, locations }) =>
        merge.lookup(locations, (loc) => this.valueAt(entry, config, loc, root, view)),
      );
    });
  }

  private resolveEntry(entry: HierarchyEntry, config: HieraConfig, view: LookupView) {
    let locations: ResolvedLocation[] | undefined;
    try {
      locations = resolveLocations(entry, config, view, this.data.probe);
    } catch (e) {
      if (!(e instanceof HieraError) || !e.issue || e.file || !config.path) throw e;
      throw new HieraError(`${e.message} (file: ${config.path})`, config.path, undefined, true);
    }
    // The default configuration skips an entry whose files do not exist.
    if (config.path === undefined && locations !== undefined && locations.length === 0) return undefined;
    return { entry, locations: locations ?? NO_LOCATION };
  }

  private valueAt(
    entry: HierarchyEntry,
    config: HieraConfig,
    loc: ResolvedLocation | null,
    root: string,
    view: LookupView,
  ): Found {
    if (loc && !loc.exists) return NOT_FOUND;
    if (entry.kind === "lookup_key" && entry.functionName === "eyaml_lookup_key")
      return this.eyamlValue(entry, loc, root, view);
    const hash = this.dataHash(entry, config, loc);
    if (!hash.has(root)) return NOT_FOUND;
    const value = hash.get(root);
    checkRichData(value, () => {
      const msg = `Value for key '${root}', in hash returned from data_hash function '${entry.functionName}'`;
      return loc ? `${msg}, when using location '${loc.location}',` : msg;
    });
    return interpolate(value, view, true);
  }

  /**
   * Puppet's eyaml_lookup_key: the file read as yaml_data reads it, the
   * key's value decrypted and interpolated, once per location and key.
   */
  private eyamlValue(
    entry: HierarchyEntry,
    loc: ResolvedLocation | null,
    root: string,
    view: LookupView,
  ): Found {
    if (!loc || loc.isUri)
      throw new HieraError(`'eyaml_lookup_key': ${MISSING_PATH.replace("data_hash", "lookup_key")}`);
    let values = this.#eyamlValues.get(loc);
    if (!values) {
      values = new Map();
      this.#eyamlValues.set(loc, values);
    }
    if (values.has(root)) return values.get(root);
    const raw = this.yamlData(loc.location) as PHash;
    if (!raw.has(root)) return NOT_FOUND;
    const options = interpolate(entry.options, view, false);
    const settings = { options: options instanceof PHash ? options : new PHash(), keys: this.#eyamlKeys };
    const value = decryptValue(raw.get(root), root, loc.location, settings, (text) =>
      interpolate(text, view, true),
    );
    checkRichData(
      value,
      () =>
        `Value for key '${root}', returned from lookup_key function '${entry.functionName}', when using location '${loc.location}',`,
    );
    values.set(root, value);
    return value;
  }

  private dataHash(entry: HierarchyEntry, config: HieraConfig, loc: ResolvedLocation | null): PHash {
    const cacheKey = loc ?? entry;
    const cached = this.#hashes.get(cacheKey);
    if (cached) return cached;
    const data = this.callFunction(entry, config, loc);
    const origin = `Value returned from data_hash function '${entry.functionName}'${loc ? `, when using location '${loc.location}',` : ""}`;
    if (!(data instanceof PHash))
      throw new HieraError(`${origin} has wrong type, expects a Hash value, got ${puppetTypeName(data)}`);
    if (this.moduleName !== undefined) this.checkModuleKeys(data, origin);
    this.#hashes.set(cacheKey, data);
    return data;
  }

  private checkModuleKeys(data: PHash, origin: string): void {
    const prefix = `${this.moduleName}::`;
    for (const k of data.keys()) {
      if (k === "lookup_options" || (typeof k === "string" && k.startsWith(prefix))) continue;
      this.data.warn(
        `Module '${this.moduleName}': ${origin} must use keys qualified with the name of the module`,
      );
    }
  }

  private callFunction(entry: HierarchyEntry, config: HieraConfig, loc: ResolvedLocation | null): PValue {
    const fn = entry.functionName;
    if (entry.kind !== "data_hash" || (fn !== "yaml_data" && fn !== "json_data" && fn !== "hocon_data"))
      return unsupportedFunction(entry, config);
    if (!loc || loc.isUri) throw new HieraError(`'${fn}' ${MISSING_PATH}`);
    if (fn === "hocon_data") return this.hoconData(loc.location);
    return fn === "yaml_data" ? this.yamlData(loc.location) : this.jsonData(loc.location);
  }

  private cachedFile(path: string, parse: (text: string) => PValue): PValue {
    let v = this.data.files.get(path);
    if (v === undefined && !this.data.files.has(path)) {
      try {
        v = parse(readFileSync(path, "utf8"));
      } catch (e) {
        if (!(e instanceof HieraError)) throw e;
        v = e;
      }
      this.data.files.set(path, v);
    }
    if (v instanceof HieraError) throw v;
    return v;
  }

  private yamlData(path: string): PValue {
    return this.cachedFile(path, (text) => {
      let data: PValue;
      try {
        data = loadPsych(text);
      } catch (e) {
        if (e instanceof PsychError) throw new HieraError(`Unable to parse (${path}): ${e.message}`);
        throw e;
      }
      if (data instanceof PHash) return stringKeys(data);
      this.data.warn(`${path}: file does not contain a valid yaml hash`);
      return new PHash();
    });
  }

  /** Puppet's hocon_data: the file's HOCON document (the Ruby library's `Hocon.parse`). */
  private hoconData(path: string): PValue {
    return this.cachedFile(path, (text) => {
      try {
        return hoconToPuppet(parseHocon(text));
      } catch (e) {
        if (e instanceof HoconError) throw new HieraError(`Unable to parse (${path}): ${e.message}`);
        throw e;
      }
    });
  }

  private jsonData(path: string): PValue {
    return this.cachedFile(path, (text) => {
      try {
        return parseJson(text);
      } catch (e) {
        throw new HieraError(`Unable to parse (${path}): ${(e as Error).message}`);
      }
    });
  }
}

function unsupportedFunction(entry: HierarchyEntry, config: HieraConfig): never {
  return fail(config.path, `Unable to find '${entry.kind}' function named '${entry.functionName}'`);
}

const JSON_TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/g;
const NUMBER_MARK = "\u0000n";

/**
 * JSON's values as Puppet's: a number written without fraction or exponent
 * is an Integer (any size), others are Floats (`2.0` stays a Float). Numbers
 * are carried through JSON.parse as marked strings to keep how they were written.
 */
export function parseJson(text: string): PValue {
  const marked = text.replace(JSON_TOKEN, (t) => (t.startsWith('"') ? t : `"\\u0000n${t}"`));
  return fromJson(JSON.parse(marked));
}

function fromJson(v: unknown): PValue {
  if (v === null) return undefined;
  if (typeof v === "string") {
    if (!v.startsWith(NUMBER_MARK)) return v;
    const n = v.slice(NUMBER_MARK.length);
    return /[.eE]/.test(n) ? Number(n) : BigInt(n);
  }
  if (typeof v === "boolean") return v;
  if (Array.isArray(v)) return v.map(fromJson);
  const h = new PHash();
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) h.set(k, fromJson(x));
  return h;
}

/** Puppet's RichData check of a found value (a Ruby Symbol from YAML fails it). */
function checkRichData(v: PValue, origin: () => string): void {
  const bad = findNonRich(v);
  if (bad) throw new HieraError(`${origin()} has wrong type, expects Puppet::LookupValue, got ${bad}`);
}

function findNonRich(v: PValue): string | undefined {
  if (Array.isArray(v)) {
    for (const x of v) {
      const b = findNonRich(x);
      if (b) return b;
    }
    return undefined;
  }
  if (v instanceof PHash) {
    for (const [k, x] of v) {
      const b = findNonRich(k) ?? findNonRich(x);
      if (b) return b;
    }
    return undefined;
  }
  if (v instanceof PObject && v.typeName.startsWith("Runtime")) return v.typeName;
  return undefined;
}
