/**
 * metadata.xml as rudderc 8.3 writes it for Rudder's server: the technique's
 * name and descriptions, USEMETHODREPORTING, MULTIINSTANCE (true when the
 * technique has parameters) and POLICYGENERATION (`separated-with-parameters`
 * with parameters, `separated` without), one AGENT per target with its
 * files (the technique file, then each resource), and SECTIONS: the
 * parameters' INPUT/SELECT1 (NAME is the parameter id, upper-cased), then one
 * SECTION per block and per reporting method call with its REPORTKEYS.
 */
import type { Block, Item, MethodCall, Technique, TechniqueParameter } from "./model.js";

/** What the server side needs of a technique, as data (also written in metadata.xml). */
export interface TechniqueMetadata {
  readonly name: string;
  readonly description: string;
  readonly longDescription?: string;
  readonly policyTypes: readonly string[];
  readonly multiInstance: boolean;
  readonly policyGeneration: "separated" | "separated-with-parameters";
  /** The CFEngine bundle to call. */
  readonly bundleName: string;
  readonly files: readonly MetadataFile[];
  readonly inputs: readonly MetadataInput[];
  readonly sections: readonly MetadataSection[];
}

export interface MetadataFile {
  readonly name: string;
  readonly included: boolean;
  readonly outPath?: string;
}

export interface MetadataInput {
  /** The parameter id, upper-cased: the directive's variable name. */
  readonly name: string;
  /** The parameter name: the bundle parameter. */
  readonly variableName: string;
  readonly description: string;
  readonly longDescription?: string;
  readonly type: string;
  readonly mayBeEmpty: boolean;
  readonly regex?: { readonly value: string; readonly error: string };
  readonly passwordHashes?: string;
  readonly default?: string;
  readonly select?: readonly { readonly label: string; readonly value: string }[];
}

export type MetadataSection =
  | {
      readonly kind: "block";
      readonly id: string;
      readonly name: string;
      readonly reporting: string;
      readonly sections: readonly MetadataSection[];
    }
  | { readonly kind: "method"; readonly id: string; readonly name: string; readonly reportKey: string };

const METADATA_TYPES: Readonly<Record<TechniqueParameter["type"], string>> = {
  boolean: "boolean",
  string: "string",
  "multiline-string": "textarea",
  json: "textarea",
  yaml: "textarea",
  mail: "mail",
  ip: "ip",
  ipv4: "ipv4",
  ipv6: "ipv6",
  integer: "integer",
  "size-b": "size-b",
  "size-kb": "size-kb",
  "size-mb": "size-mb",
  "size-gb": "size-gb",
  "size-tb": "size-tb",
  permissions: "perm",
  "shared-file": "sharedfile",
  password: "password",
};

const HASH_NAMES: Readonly<Record<string, string>> = {
  "md5-crypt": "linux-shadow-md5",
  "sha256-crypt": "linux-shadow-sha256",
  "sha512-crypt": "linux-shadow-sha512",
};

export function techniqueMetadata(t: Technique, resources: readonly string[]): TechniqueMetadata {
  const withParams = t.params.length > 0;
  return {
    name: t.name,
    description: t.description ?? t.name,
    ...(t.documentation !== undefined ? { longDescription: t.documentation } : {}),
    policyTypes: t.policyTypes,
    multiInstance: withParams,
    policyGeneration: withParams ? "separated-with-parameters" : "separated",
    bundleName: t.id,
    files: agentFiles(t, "cf", resources),
    inputs: t.params.map(metadataInput),
    sections: sectionsOf(t.items),
  };
}

function agentFiles(t: Technique, extension: string, resources: readonly string[]): MetadataFile[] {
  return [
    { name: `technique.${extension}`, included: true },
    ...resources.map((r) => ({
      name: `resources/${r}`,
      included: false,
      outPath: `${t.id}/${t.version}/resources/${r}`,
    })),
  ];
}

function metadataInput(p: TechniqueParameter): MetadataInput {
  const c = p.constraints;
  const select = c.select?.map((s) => ({ label: s.name ?? s.value, value: s.value }));
  return {
    name: p.id.toUpperCase(),
    variableName: p.name,
    description: p.description ?? p.name,
    ...(p.documentation !== undefined ? { longDescription: p.documentation } : {}),
    type: METADATA_TYPES[p.type],
    mayBeEmpty: c.allowEmpty,
    ...(c.regex && !select
      ? {
          regex: {
            value: c.regex.value,
            error: c.regex.errorMessage ?? `Value should match regex: '${c.regex.value}'`,
          },
        }
      : {}),
    ...(p.type === "password" && !select
      ? { passwordHashes: (c.passwordHashes ?? []).map((h) => HASH_NAMES[h] ?? h).join(",") }
      : {}),
    ...(p.default !== undefined ? { default: p.default } : {}),
    ...(select ? { select } : {}),
  };
}

function sectionsOf(items: readonly Item[]): MetadataSection[] {
  const out: MetadataSection[] = [];
  for (const item of items) {
    if (item.kind === "block") out.push(blockSection(item));
    else if (item.reporting !== "disabled" && !item.method.startsWith("_")) out.push(methodSection(item));
  }
  return out;
}

function blockSection(b: Block): MetadataSection {
  const reporting = b.reporting.mode === "focus" ? `focus:${b.reporting.id ?? ""}` : b.reporting.mode;
  return { kind: "block", id: b.id, name: b.name, reporting, sections: sectionsOf(b.items) };
}

function methodSection(m: MethodCall): MetadataSection {
  return {
    kind: "method",
    id: m.id,
    name: m.name,
    reportKey: m.params.get(m.info?.classParameter ?? "") ?? "",
  };
}

// --- XML, as quick-xml writes it with full quoting and two-space indentation

/** Escapes the five XML special characters, in text and attributes alike. */
export function xmlEscape(s: string): string {
  return s.replace(
    /[<>&'"]/g,
    (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", "'": "&apos;", '"': "&quot;" })[c] as string,
  );
}

class XmlWriter {
  private readonly lines: string[] = [];

  open(depth: number, tag: string, attributes: readonly (readonly [string, string])[] = []): void {
    this.lines.push(`${"  ".repeat(depth)}<${tag}${attrs(attributes)}>`);
  }

  close(depth: number, tag: string): void {
    this.lines.push(`${"  ".repeat(depth)}</${tag}>`);
  }

  leaf(
    depth: number,
    tag: string,
    text: string,
    attributes: readonly (readonly [string, string])[] = [],
  ): void {
    this.lines.push(`${"  ".repeat(depth)}<${tag}${attrs(attributes)}>${xmlEscape(text)}</${tag}>`);
  }

  empty(depth: number, tag: string, attributes: readonly (readonly [string, string])[] = []): void {
    this.lines.push(`${"  ".repeat(depth)}<${tag}${attrs(attributes)}/>`);
  }

  text(): string {
    return this.lines.join("\n");
  }
}

function attrs(attributes: readonly (readonly [string, string])[]): string {
  return attributes.map(([k, v]) => ` ${k}="${xmlEscape(v)}"`).join("");
}

/** Writes metadata.xml; `windowsBundle` is the DSC agent's bundle name (rudderc writes both agents). */
export function renderMetadataXml(m: TechniqueMetadata, t: Technique, resources: readonly string[]): string {
  const w = new XmlWriter();
  w.open(0, "TECHNIQUE", [["name", m.name]]);
  w.leaf(1, "DESCRIPTION", m.description);
  for (const type of m.policyTypes) w.leaf(1, "POLICY_TYPES", type);
  if (m.longDescription !== undefined) w.leaf(1, "LONG_DESCRIPTION", m.longDescription);
  w.leaf(1, "USEMETHODREPORTING", "true");
  w.leaf(1, "MULTIINSTANCE", String(m.multiInstance));
  w.leaf(1, "POLICYGENERATION", m.policyGeneration);
  writeAgent(w, "cfengine-community", m.bundleName, m.files);
  writeAgent(w, "dsc", windowsTechniqueName(t.id), agentFiles(t, "ps1", resources));
  const sectionCount = m.sections.length + (m.inputs.length > 0 ? 1 : 0);
  if (sectionCount === 0) w.empty(1, "SECTIONS");
  else {
    w.open(1, "SECTIONS");
    if (m.inputs.length > 0) writeInputs(w, m.inputs);
    for (const s of m.sections) writeSection(w, s, 2);
    w.close(1, "SECTIONS");
  }
  w.close(0, "TECHNIQUE");
  return w.text();
}

function writeAgent(w: XmlWriter, type: string, bundle: string, files: readonly MetadataFile[]): void {
  w.open(1, "AGENT", [["type", type]]);
  w.open(2, "BUNDLES");
  w.leaf(3, "NAME", bundle);
  w.close(2, "BUNDLES");
  w.open(2, "FILES");
  for (const f of files) {
    w.open(3, "FILE", [["name", f.name]]);
    w.leaf(4, "INCLUDED", String(f.included));
    if (f.outPath !== undefined) w.leaf(4, "OUTPATH", f.outPath);
    w.close(3, "FILE");
  }
  w.close(2, "FILES");
  w.close(1, "AGENT");
}

function writeInputs(w: XmlWriter, inputs: readonly MetadataInput[]): void {
  w.open(2, "SECTION", [["name", "Technique parameters"]]);
  for (const input of inputs) {
    const tag = input.select ? "SELECT1" : "INPUT";
    w.open(3, tag);
    w.leaf(4, "NAME", input.name);
    w.leaf(4, "VARIABLENAME", input.variableName);
    w.leaf(4, "DESCRIPTION", input.description);
    if (input.longDescription !== undefined) w.leaf(4, "LONGDESCRIPTION", input.longDescription);
    for (const item of input.select ?? []) {
      w.open(4, "ITEM");
      w.leaf(5, "LABEL", item.label);
      w.leaf(5, "VALUE", item.value);
      w.close(4, "ITEM");
    }
    w.open(4, "CONSTRAINT");
    w.leaf(5, "TYPE", input.type);
    if (input.mayBeEmpty) w.leaf(5, "MAYBEEMPTY", "true");
    if (input.regex) w.leaf(5, "REGEX", input.regex.value, [["error", input.regex.error]]);
    if (input.passwordHashes !== undefined) w.leaf(5, "PASSWORDHASH", input.passwordHashes);
    if (input.default !== undefined) w.leaf(5, "DEFAULT", input.default);
    w.close(4, "CONSTRAINT");
    w.close(3, tag);
  }
  w.close(2, "SECTION");
}

function writeSection(w: XmlWriter, s: MetadataSection, depth: number): void {
  if (s.kind === "method") {
    w.open(depth, "SECTION", [
      ["name", s.name],
      ["id", s.id],
      ["component", "true"],
      ["multivalued", "true"],
    ]);
    w.open(depth + 1, "REPORTKEYS");
    w.leaf(depth + 2, "VALUE", s.reportKey, [["id", s.id]]);
    w.close(depth + 1, "REPORTKEYS");
    w.close(depth, "SECTION");
    return;
  }
  const attributes: [string, string][] = [
    ["id", s.id],
    ["name", s.name],
    ["reporting", s.reporting],
    ["component", "true"],
    ["multivalued", "true"],
  ];
  if (s.sections.length === 0) {
    w.empty(depth, "SECTION", attributes);
    return;
  }
  w.open(depth, "SECTION", attributes);
  for (const inner of s.sections) writeSection(w, inner, depth + 1);
  w.close(depth, "SECTION");
}

/** rudderc's name for the DSC technique: `Technique-` and the id's words capitalised, joined by `-`. */
export function windowsTechniqueName(id: string): string {
  const words = id.split("_").map((w) => (w.length > 0 ? (w[0] as string).toUpperCase() + w.slice(1) : w));
  return `Technique-${words.join("-")}`;
}
