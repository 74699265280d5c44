/**
 * Rudder techniques in rudderc 8.3's YAML format, compiled as rudderc
 * compiles them: `compileTechnique` reads and checks the YAML against the
 * schema and the ncf method library, then writes `technique.cf` and
 * `metadata.xml`. Problems are diagnostics with a file, line and column;
 * nothing is thrown for bad input.
 *
 * Typical use:
 *   const lib = loadMethodLibrary([ncfTree]);            // method-library.ts
 *   const r = compileTechnique(yamlText, "technique.yml", { methods: lib.methods });
 *   if (r.ok) r.technique.files.get("technique.cf");
 */
import { buildItems, checkUnicity } from "./check.js";
import { DiagnosticSink, LineMap, type TechniqueDiagnostic, hasTechniqueErrors } from "./diagnostics.js";
import { resolveLoops } from "./foreach.js";
import { type TechniqueMetadata, renderMetadataXml, techniqueMetadata } from "./metadata-xml.js";
import type { MethodLibrary } from "./methods.js";
import type { Technique } from "./model.js";
import { readTechnique } from "./read.js";
import { generateTechniqueCf } from "./unix.js";
import { parseYamlTree } from "./yaml-tree.js";

export type { TechniqueDiagnostic } from "./diagnostics.js";
export { formatTechniqueDiagnostic, hasTechniqueErrors } from "./diagnostics.js";
export type { MethodInfo, MethodLibrary, MethodParameter } from "./methods.js";
export { parseMethodFile } from "./methods.js";
export { loadMethodLibrary, type LibraryLoad } from "./method-library.js";
export { methodLibraryToJson, parseMethodLibraryJson, type MethodLibraryJson } from "./method-json.js";
export type { TechniqueMetadata, MetadataInput, MetadataSection, MetadataFile } from "./metadata-xml.js";
export type { Technique, Item, Block, MethodCall, TechniqueParameter, Condition } from "./model.js";

export interface CompileOptions {
  /** The ncf method library the technique's methods are checked against. */
  readonly methods: MethodLibrary;
  /**
   * The technique's resource files, relative to its `resources/` folder,
   * sorted (see `listResources`); they add `resources_dir` and FILE entries.
   */
  readonly resources?: readonly string[];
}

export interface CompiledTechnique {
  readonly id: string;
  readonly version: string;
  readonly name: string;
  /** Generated files by path relative to the technique's folder: technique.cf, metadata.xml. */
  readonly files: ReadonlyMap<string, string>;
  readonly metadata: TechniqueMetadata;
  /** The checked technique, loops resolved. */
  readonly technique: Technique;
}

export type CompileResult =
  | {
      readonly ok: true;
      readonly technique: CompiledTechnique;
      readonly diagnostics: readonly TechniqueDiagnostic[];
    }
  | { readonly ok: false; readonly diagnostics: readonly TechniqueDiagnostic[] };

/** Reads and checks a technique, with loops resolved; undefined (and errors) when it is not valid. */
export function readTechniqueYaml(
  yamlText: string,
  file: string,
  methods: MethodLibrary,
): { technique?: Technique; diagnostics: TechniqueDiagnostic[] } {
  const sink = new DiagnosticSink(file, new LineMap(yamlText));
  const sorted = (): TechniqueDiagnostic[] =>
    [...sink.diagnostics].sort((a, b) => a.line - b.line || a.column - b.column);
  const root = parseYamlTree(yamlText, sink);
  const raw = root ? readTechnique(root, sink) : undefined;
  if (!raw) return { diagnostics: sorted() };
  const items = buildItems(resolveLoops(raw.items, sink), methods, sink);
  checkUnicity(items, raw.params, raw.paramOffsets, sink);
  const { paramOffsets: _offsets, items: _raw, ...rest } = raw;
  const technique: Technique = { ...rest, items };
  if (hasTechniqueErrors(sink.diagnostics)) return { diagnostics: sorted() };
  return { technique, diagnostics: sorted() };
}

/** Compiles a technique's YAML to technique.cf and metadata.xml. */
export function compileTechnique(yamlText: string, file: string, options: CompileOptions): CompileResult {
  const { technique, diagnostics } = readTechniqueYaml(yamlText, file, options.methods);
  if (!technique) return { ok: false, diagnostics };
  const resources = options.resources ?? [];
  const cf = generateTechniqueCf(technique, resources.length > 0);
  const metadata = techniqueMetadata(technique, resources);
  const xml = renderMetadataXml(metadata, technique, resources);
  const control = findControlCharacter(cf) ?? findControlCharacter(xml);
  if (control !== undefined) {
    const d: TechniqueDiagnostic = {
      code: "control-character",
      severity: "error",
      message: `output contains the forbidden control character ${JSON.stringify(control)}, as a YAML escape in double quotes can make; expected printable text`,
      file,
      line: 1,
      column: 1,
    };
    return { ok: false, diagnostics: [...diagnostics, d] };
  }
  const files = new Map([
    ["technique.cf", cf],
    ["metadata.xml", xml],
  ]);
  return {
    ok: true,
    technique: {
      id: technique.id,
      version: technique.version,
      name: technique.name,
      files,
      metadata,
      technique,
    },
    diagnostics,
  };
}

/** rudderc refuses ASCII control characters other than \n, \r and \t in what it writes. */
function findControlCharacter(text: string): string | undefined {
  const match = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.exec(text);
  return match?.[0];
}
export { listResources } from "./resources.js";
export { standalonePrelude, type StandaloneOptions } from "./standalone.js";
