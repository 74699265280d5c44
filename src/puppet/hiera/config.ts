/**
 * hiera.yaml: read, checked and turned into hierarchy entries, as Puppet 7
 * reads it for each layer. Version 5 everywhere (`defaults`, `hierarchy`,
 * `default_hierarchy` in modules only); version 4 in environments and
 * modules (deprecated: one `backend` per entry); version 3 in the global
 * layer only (elsewhere it is ignored with Puppet's warning). A missing file
 * is Puppet's default: `data/common.yaml` if it exists.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { PHash, type PValue } from "../eval/values.js";
import { HieraError } from "./errors.js";
import { loadPsych, PsychError } from "./psych.js";

export type Layer = "global" | "environment" | "module";
export type FunctionKind = "data_hash" | "lookup_key" | "data_dig" | "hiera3_backend";
export type LocationKey = "path" | "paths" | "glob" | "globs" | "uri" | "uris" | "mapped_paths";

export interface HierarchyEntry {
  readonly name: string;
  readonly kind: FunctionKind;
  readonly functionName: string;
  /** The data directory as written (may hold `%{}`), relative to the config's directory. */
  readonly datadir: string;
  readonly locationKey?: LocationKey;
  readonly locations: readonly string[];
  /** Appended to a path that lacks it (versions 3 and 4). */
  readonly extension?: string;
  readonly options: PHash;
}

export interface HieraConfig {
  readonly version: 3 | 4 | 5;
  /** The file, or undefined for Puppet's default configuration. */
  readonly path?: string;
  readonly root: string;
  readonly hierarchy: readonly HierarchyEntry[];
  readonly defaultHierarchy?: readonly HierarchyEntry[];
}

const FUNCTION_KEYS: readonly FunctionKind[] = ["data_hash", "lookup_key", "data_dig", "hiera3_backend"];
const LOCATION_KEYS: readonly LocationKey[] = [
  "path",
  "paths",
  "glob",
  "globs",
  "uri",
  "uris",
  "mapped_paths",
];
const ENTRY_KEYS = new Set<string>([
  "name",
  "options",
  "datadir",
  "v4_data_hash",
  ...FUNCTION_KEYS,
  ...LOCATION_KEYS,
]);
const DEFAULT_KEYS = new Set(["data_hash", "lookup_key", "data_dig", "datadir", "options"]);
const TOP_KEYS = new Set(["version", "defaults", "hierarchy", "plan_hierarchy", "default_hierarchy"]);

/** Reads `path` for `layer`; undefined when the layer ignores it (version 3 outside the global layer). */
/** Warnings: `once` ones (Puppet's warn_once) are given a key and shown once per compile. */
export interface ConfigWarnings {
  warn(message: string): void;
  once(key: string, message: string): void;
}

export function readHieraConfig(
  path: string,
  layer: Layer,
  warnings: ConfigWarnings,
  codedir?: string,
): HieraConfig | undefined {
  const warn = (m: string) => warnings.warn(m);
  const root = dirname(path);
  if (!existsSync(path)) return defaultConfig(root);
  let data = loadConfigFile(path);
  if (!(data instanceof PHash)) {
    warn(
      `${path}: File exists but does not contain a valid YAML hash. Falling back to Hiera version 3 default config`,
    );
    data = PHash.fromRecord({ backends: ["yaml"], hierarchy: ["nodes/%{::trusted.certname}", "common"] });
  }
  const raw = data.get("version");
  const version = raw === undefined ? 3 : Number(typeof raw === "string" ? Number.parseInt(raw, 10) : raw);
  if (version === 5) return v5Config(path, root, data, layer);
  if (version === 4) {
    warnings.once(
      "hiera.yaml",
      `${path}: Use of 'hiera.yaml' version 4 is deprecated. It should be converted to version 5\n   (file: ${path})`,
    );
    if (layer === "global") fail(path, "hiera.yaml version 4 cannot be used in the global layer");
    return v4Config(path, root, data);
  }
  if (version === 3) {
    warnings.once(
      "hiera.yaml",
      `${path}: Use of 'hiera.yaml' version 3 is deprecated. It should be converted to version 5\n   (file: ${path})`,
    );
    if (layer !== "global") {
      const where = layer === "module" ? "module root" : "the environment root";
      warnings.once(`v3:${path}`, `hiera.yaml version 3 found at ${where} was ignored\n   (file: ${path})`);
      return undefined;
    }
    return v3Config(path, root, data, codedir);
  }
  return fail(path, `This runtime does not support hiera.yaml version ${String(raw)}`);
}

function loadConfigFile(path: string): PValue {
  try {
    return stringKeys(loadPsych(readFileSync(path, "utf8")));
  } catch (e) {
    if (e instanceof PsychError) throw new HieraError(`(${path}): ${e.message}`);
    throw e;
  }
}

/** Ruby symbols as keys (`:backends:`) read as strings, as Puppet's symkeys_to_string does. */
export function stringKeys(v: PValue): PValue {
  if (Array.isArray(v)) return v.map(stringKeys);
  if (!(v instanceof PHash)) return v;
  const out = new PHash();
  for (const [k, x] of v) out.set(isSymbol(k) ? String(k) : k, stringKeys(x));
  return out;
}

function isSymbol(v: PValue): boolean {
  return (
    typeof v === "object" && v !== null && (v as { typeName?: string }).typeName === "Runtime[ruby, 'Symbol']"
  );
}

/** A configuration problem as Puppet words it: the message, then the file and line. */
export function fail(path: string | undefined, message: string, line?: number): never {
  const where = path ? ` (file: ${path}${line ? `, line: ${line}` : ""})` : "";
  throw new HieraError(`${message}${where}`, path, line, true);
}

/** A type mismatch of the configuration (Puppet's TypeAsserter: no file suffix). */
function mismatch(path: string, detail: string): never {
  throw new HieraError(
    `The Lookup Configuration at '${path}' has wrong type, ${detail}`,
    path,
    undefined,
    true,
  );
}

/** The first line at or after `start` matching `re`, comments stripped (Puppet's find_line_matching). */
function findLine(path: string, re: RegExp, start = 1): number | undefined {
  const lines = readFileSync(path, "utf8").split("\n");
  for (let i = start - 1; i < lines.length; i++) {
    if (re.test(stripComment(lines[i] ?? ""))) return i + 1;
  }
  return undefined;
}

function stripComment(line: string): string {
  let quote = "";
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"' || c === "'") quote = quote === c ? "" : quote === "" ? c : quote;
    else if (c === "#" && quote === "") return line.slice(0, i);
  }
  return line;
}

function escapeRe(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function defaultConfig(root: string): HieraConfig {
  const entry: HierarchyEntry = {
    name: "Common",
    kind: "data_hash",
    functionName: "yaml_data",
    datadir: "data",
    locationKey: "path",
    locations: ["common.yaml"],
    options: new PHash(),
  };
  return { version: 5, root, hierarchy: [entry] };
}

function v5Config(path: string, root: string, data: PHash, layer: Layer): HieraConfig {
  for (const k of data.keys())
    if (!TOP_KEYS.has(String(k))) mismatch(path, `unrecognized key '${String(k)}'`);
  const defaults = data.get("defaults");
  if (defaults !== undefined && !(defaults instanceof PHash))
    mismatch(path, "entry 'defaults' expects a Struct value");
  const d = defaults ?? PHash.fromRecord({ datadir: "data", data_hash: "yaml_data" });
  validateDefaults(path, d);
  const entries = (key: string) => {
    const list = data.get(key) ?? (key === "hierarchy" ? defaultHierarchyList() : undefined);
    if (list === undefined) return undefined;
    if (!Array.isArray(list)) mismatch(path, `entry '${key}' expects an Array value`);
    return list.map((he, i) => v5Entry(path, key, i, he, d, layer));
  };
  const hierarchy = entries("hierarchy") ?? [];
  checkUniqueNames(path, hierarchy);
  const defaultHierarchy = entries("default_hierarchy");
  if (defaultHierarchy && layer !== "module")
    fail(
      path,
      "'default_hierarchy' is only allowed in the module layer",
      findLine(path, /(?:^|\s+)default_hierarchy:/),
    );
  return { version: 5, path, root, hierarchy, defaultHierarchy };
}

function defaultHierarchyList(): PValue[] {
  return [PHash.fromRecord({ name: "Common", path: "common.yaml" })];
}

function validateDefaults(path: string, d: PHash): void {
  for (const k of d.keys())
    if (!DEFAULT_KEYS.has(String(k))) mismatch(path, `entry 'defaults' unrecognized key '${String(k)}'`);
  if (FUNCTION_KEYS.filter((k) => d.has(k)).length > 1)
    fail(path, "Only one of data_hash, lookup_key, data_dig, or hiera3_backend can be defined in defaults");
  const options = d.get("options");
  if (options instanceof PHash)
    for (const k of ["path", "uri"])
      if (options.has(k)) fail(path, `Option key '${k}' used in defaults is reserved by Puppet`);
}

function v5Entry(
  path: string,
  listKey: string,
  index: number,
  he: PValue,
  d: PHash,
  layer: Layer,
): HierarchyEntry {
  const where = `entry '${listKey}' index ${index}`;
  if (!(he instanceof PHash)) return mismatch(path, `${where} expects a Struct value`);
  for (const k of he.keys())
    if (!ENTRY_KEYS.has(String(k))) mismatch(path, `${where} unrecognized key '${String(k)}'`);
  const name = he.get("name");
  if (typeof name !== "string" || name === "")
    return mismatch(path, `${where} expects a value for key 'name'`);
  const kinds = FUNCTION_KEYS.filter((k) => he.has(k));
  if (kinds.length > 1 || (kinds.length === 1 && he.has("v4_data_hash")))
    fail(
      path,
      `Only one of data_hash, lookup_key, data_dig, or hiera3_backend can be defined in hierarchy '${name}'`,
    );
  const kind = kinds[0] ?? FUNCTION_KEYS.find((k) => d.has(k));
  if (!kind)
    return fail(
      path,
      `One of data_hash, lookup_key, data_dig, or hiera3_backend must be defined in hierarchy '${name}'`,
    );
  const functionName = String((kinds[0] ? he.get(kind) : d.get(kind)) ?? "");
  if (kind === "hiera3_backend") checkV3Backend(path, functionName, layer);
  const locationKeys = LOCATION_KEYS.filter((k) => he.has(k));
  if (locationKeys.length > 1)
    fail(
      path,
      `Only one of path, paths, glob, globs, uri, uris, or mapped_paths can be defined in hierarchy '${name}'`,
    );
  const locationKey = locationKeys[0];
  const options = he.get("options") ?? d.get("options") ?? new PHash();
  if (he.get("options") instanceof PHash)
    for (const k of ["path", "uri"])
      if ((options as PHash).has(k))
        fail(path, `Option key '${k}' used in hierarchy '${name}' is reserved by Puppet`);
  return {
    name,
    kind,
    functionName,
    datadir: String(he.get("datadir") ?? d.get("datadir") ?? "data"),
    locationKey,
    locations: locationKey ? locationList(path, where, locationKey, he.get(locationKey)) : [],
    options: options instanceof PHash ? options : new PHash(),
  };
}

function checkV3Backend(path: string, backend: string, layer: Layer): void {
  if (layer !== "global")
    fail(path, "'hiera3_backend' is only allowed in the global layer", findLine(path, /\s+hiera3_backend:/));
  if (backend === "json" || backend === "yaml")
    fail(
      path,
      `Use "data_hash: ${backend}_data" instead of "hiera3_backend: ${backend}"`,
      findLine(path, new RegExp(`\\s+hiera3_backend:\\s*['"]?${backend}(?:[^\\w]|$)`)),
    );
}

function locationList(path: string, where: string, key: LocationKey, v: PValue): string[] {
  const list = Array.isArray(v) ? v : [v];
  if (!list.every((x) => typeof x === "string" && x !== ""))
    mismatch(path, `${where} entry '${key}' expects a String[1] value`);
  if (key === "mapped_paths" && list.length !== 3)
    mismatch(path, `${where} entry 'mapped_paths' expects size to be 3, got ${list.length}`);
  return list as string[];
}

function checkUniqueNames(path: string, entries: readonly HierarchyEntry[]): void {
  const seen = new Set<string>();
  for (const e of entries) {
    if (seen.has(e.name)) {
      const re = new RegExp(`\\s+name:\\s+['"]?${escapeRe(e.name)}(?:[^\\w]|$)`);
      const first = findLine(path, re);
      const second = first ? findLine(path, re, first + 1) : undefined;
      const at = second && first ? ` First defined at (line: ${first})` : "";
      fail(path, `Hierarchy name '${e.name}' defined more than once.${at}`, second ?? first);
    }
    seen.add(e.name);
  }
}

function v4Config(path: string, root: string, data: PHash): HieraConfig {
  const datadir = String(data.get("datadir") ?? "data");
  const list = data.get("hierarchy") ?? [PHash.fromRecord({ name: "common", backend: "yaml" })];
  const hierarchy = (Array.isArray(list) ? list : []).map((he) => {
    const h = he instanceof PHash ? he : new PHash();
    const name = String(h.get("name") ?? "");
    const backend = String(h.get("backend") ?? "");
    if (backend !== "yaml" && backend !== "json")
      fail(path, `No data provider is registered for backend '${backend}'`);
    const paths = h.get("paths") ?? [h.get("path") ?? name];
    return {
      name,
      kind: "data_hash" as const,
      functionName: `${backend}_data`,
      datadir: String(h.get("datadir") ?? datadir),
      locationKey: "paths" as const,
      locations: (Array.isArray(paths) ? paths : [paths]).map(String),
      extension: `.${backend}`,
      options: new PHash(),
    };
  });
  checkUniqueNames(path, hierarchy);
  return { version: 4, path, root, hierarchy };
}

function v3Config(path: string, root: string, data: PHash, codedir?: string): HieraConfig {
  const backends = [data.get("backends") ?? ["yaml"]].flat().map(String);
  const paths = [data.get("hierarchy") ?? ["nodes/%{::trusted.certname}", "common"]].flat().map(String);
  const hierarchy = backends.map((backend): HierarchyEntry => {
    if (backend !== "yaml" && backend !== "json")
      fail(
        path,
        `Hiera 3 backend '${backend}' cannot run in tend: only the yaml and json backends are supported`,
      );
    const conf = data.get(backend);
    const datadir = conf instanceof PHash ? conf.get("datadir") : undefined;
    const ext = conf instanceof PHash ? conf.get("extension") : undefined;
    return {
      name: backend,
      kind: "data_hash",
      functionName: `${backend}_data`,
      datadir: String(datadir ?? `${codedir ?? root}/environments/%{::environment}/hieradata`),
      locationKey: "paths",
      locations: paths,
      extension: `.${String(ext ?? backend)}`,
      options: new PHash(),
    };
  });
  return { version: 3, path, root, hierarchy };
}
