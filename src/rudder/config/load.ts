/**
 * Loads a Rudder configuration directory:
 *
 *   techniques/<id>/<version>/   metadata.xml and its files, or technique.yml
 *                                (a directive's `<version>+<commit>` reads
 *                                them from that git commit)
 *   directives/<id>.json  rules/<id>.json  groups/<id>.json  nodes/<id>.json
 *   parameters.json  settings.json        (both optional)
 *
 * Everything readable is loaded; every problem is a diagnostic. References
 * (a directive's technique, a rule's directives and groups) are checked
 * here so that generation can trust them.
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ConfigDiagnostic } from "./diagnostics.js";
import { DiagnosticBag } from "./diagnostics.js";
import {
  readDirective,
  readGroup,
  readNode,
  readParametersFile,
  readRule,
  readSettings,
} from "./entities.js";
import { readJsonFile } from "./json-file.js";
import { parseMetadataXml } from "./metadata.js";
import { type Configuration, DEFAULT_SETTINGS, type Directive, type Target } from "./model.js";
import { loadTechniqueAtRevision } from "./revisions.js";
import { type Technique, allVariables, techniqueKey } from "./technique.js";

/**
 * Compiles a YAML technique (rudderc's format) to its metadata.xml and
 * files; provided by the technique compiler (src/rudder/technique).
 */
export type TechniqueCompiler = (
  source: string,
  file: string,
  dir: string,
) =>
  | { readonly ok: true; readonly metadataXml: string; readonly files: ReadonlyMap<string, string> }
  | { readonly ok: false; readonly diagnostics: readonly ConfigDiagnostic[] };

export interface LoadOptions {
  readonly compileTechnique?: TechniqueCompiler;
}

export interface LoadResult {
  readonly config: Configuration;
  readonly diagnostics: readonly ConfigDiagnostic[];
}

function subdirs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

function jsonFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => n.endsWith(".json"))
    .sort();
}

/** Loads `dir`. Never throws for bad content; see the diagnostics. */
export function loadConfiguration(dir: string, options: LoadOptions = {}): LoadResult {
  const root = resolve(dir);
  const bag = new DiagnosticBag();
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    bag.error(root, 1, 1, "not a directory");
  }
  const techniques = loadTechniques(root, bag, options);
  const directives = loadEntities(root, "directives", bag, readDirective);
  for (const d of directives.values()) {
    const key = `${d.techniqueName}/${d.techniqueVersion}`;
    if (!d.techniqueVersion.includes("+") || techniques.has(key)) continue;
    const t = loadTechniqueAtRevision(root, d.techniqueName, d.techniqueVersion, d.file, bag);
    if (t) techniques.set(key, t);
  }
  const rules = loadEntities(root, "rules", bag, readRule);
  const groups = loadEntities(root, "groups", bag, readGroup);
  const nodes = loadEntities(root, "nodes", bag, readNode);
  const paramFile = join(root, "parameters.json");
  const pf = existsSync(paramFile) ? readJsonFile(paramFile, bag) : undefined;
  const parameters = pf ? readParametersFile(bag, pf) : new Map<string, unknown>();
  const settingsFile = join(root, "settings.json");
  const sf = existsSync(settingsFile) ? readJsonFile(settingsFile, bag) : undefined;
  const settings = sf ? readSettings(bag, sf) : DEFAULT_SETTINGS;
  const config: Configuration = {
    dir: root,
    techniques,
    directives,
    rules,
    groups,
    nodes,
    parameters,
    settings,
  };
  checkReferences(config, bag);
  return { config, diagnostics: bag.items };
}

function loadEntities<T>(
  root: string,
  folder: string,
  bag: DiagnosticBag,
  read: (bag: DiagnosticBag, f: NonNullable<ReturnType<typeof readJsonFile>>, id: string) => T | undefined,
): Map<string, T> {
  const out = new Map<string, T>();
  const dir = join(root, folder);
  for (const name of jsonFiles(dir)) {
    const f = readJsonFile(join(dir, name), bag);
    if (!f) continue;
    const entity = read(bag, f, name.slice(0, -".json".length));
    if (entity !== undefined) out.set(name.slice(0, -".json".length), entity);
  }
  return out;
}

function loadTechniques(root: string, bag: DiagnosticBag, options: LoadOptions): Map<string, Technique> {
  const out = new Map<string, Technique>();
  const base = join(root, "techniques");
  for (const name of subdirs(base)) {
    for (const version of subdirs(join(base, name))) {
      const t = loadTechnique(join(base, name, version), { name, version }, bag, options);
      if (t) out.set(techniqueKey(t.id), t);
    }
  }
  return out;
}

function loadTechnique(
  dir: string,
  id: { name: string; version: string },
  bag: DiagnosticBag,
  options: LoadOptions,
): Technique | undefined {
  const metadata = join(dir, "metadata.xml");
  const yaml = ["technique.yml", "technique.yaml"].map((n) => join(dir, n)).find((p) => existsSync(p));
  if (existsSync(metadata)) {
    return parseMetadataXml(readFileSync(metadata, "utf8"), metadata, id, dir, bag);
  }
  if (yaml === undefined) {
    bag.error(dir, 1, 1, "a technique folder needs a metadata.xml or a technique.yml");
    return undefined;
  }
  if (!options.compileTechnique) {
    bag.error(yaml, 1, 1, "YAML techniques need the technique compiler, which is not available");
    return undefined;
  }
  const compiled = options.compileTechnique(readFileSync(yaml, "utf8"), yaml, dir);
  if (!compiled.ok) {
    bag.items.push(...compiled.diagnostics);
    return undefined;
  }
  const t = parseMetadataXml(compiled.metadataXml, `${yaml} (compiled metadata.xml)`, id, dir, bag);
  return t ? { ...t, generatedFiles: compiled.files } : undefined;
}

function checkReferences(config: Configuration, bag: DiagnosticBag): void {
  for (const d of config.directives.values()) checkDirective(config, d, bag);
  for (const r of config.rules.values()) {
    for (const did of r.directives) {
      if (!config.directives.has(did))
        bag.error(r.file, 1, 1, `rule '${r.id}' lists directive '${did}', which does not exist`);
    }
    for (const t of r.targets) checkTarget(config, t, r.file, bag);
  }
  for (const g of config.groups.values()) {
    for (const c of g.query?.where ?? []) {
      if (c.objectType === "group" && !config.groups.has(c.value)) {
        bag.error(g.file, 1, 1, `group '${g.id}' refers to group '${c.value}', which does not exist`);
      }
    }
  }
}

function checkTarget(config: Configuration, t: Target, file: string, bag: DiagnosticBag): void {
  if (t.kind === "group" && !config.groups.has(t.id))
    bag.error(file, 1, 1, `target group '${t.id}' does not exist`);
  else if (t.kind === "or" || t.kind === "and") for (const x of t.targets) checkTarget(config, x, file, bag);
  else if (t.kind === "exclusion") {
    checkTarget(config, t.include, file, bag);
    checkTarget(config, t.exclude, file, bag);
  }
}

function checkDirective(config: Configuration, d: Directive, bag: DiagnosticBag): void {
  const t = config.techniques.get(`${d.techniqueName}/${d.techniqueVersion}`);
  if (!t) {
    bag.error(
      d.file,
      1,
      1,
      `directive '${d.id}' uses technique '${d.techniqueName}' version '${d.techniqueVersion}', which is not in techniques/`,
    );
    return;
  }
  const names = new Set<string>();
  const aliases = new Set<string>();
  for (const v of allVariables(t.rootSection)) {
    names.add(v.name);
    if (v.variableName) aliases.add(v.variableName);
  }
  for (const key of d.values.keys()) {
    if (!names.has(key) && !aliases.has(key)) {
      bag.error(
        d.file,
        1,
        1,
        `directive '${d.id}' sets '${key}', which technique '${t.id.name}/${t.id.version}' does not define`,
      );
    }
  }
}
