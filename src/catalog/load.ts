/**
 * Reads a catalog in Puppet 7's JSON form (what `puppet catalog compile
 * NODE --render-as json` writes) and checks it before anything runs: JSON
 * syntax, the shape of each resource, duplicate resources, containment
 * edges and relationship metaparameters naming resources that are not in
 * the catalog. Problems come back as diagnostics with `file:line:col`;
 * nothing here throws for bad input.
 */
import { readFileSync } from "node:fs";
import { lineColumn, lineMap, scanJson } from "./json-locate.js";
import type { Catalog, CatalogEdge, CatalogResource, ParamValue } from "./model.js";
import { parseRef, RELATIONSHIP_PARAMS, refKey, refKeyOf, relationshipRefs } from "./refs.js";

export type CatalogDiagnosticCode =
  | "io"
  | "json-syntax"
  | "catalog-shape"
  | "resource-shape"
  | "duplicate-resource"
  | "edge-missing-resource"
  | "relationship-missing-resource"
  | "relationship-bad-reference";

export interface CatalogDiagnostic {
  readonly code: CatalogDiagnosticCode;
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

export type CatalogLoadResult =
  | { readonly ok: true; readonly catalog: Catalog; readonly diagnostics: readonly CatalogDiagnostic[] }
  | { readonly ok: false; readonly diagnostics: readonly CatalogDiagnostic[] };

/** `file:line:col: message`, the form every tend diagnostic takes. */
export function formatCatalogDiagnostic(d: CatalogDiagnostic): string {
  return `${d.file}:${d.line}:${d.column}: ${d.message}`;
}

/** Reads and checks a catalog file; an unreadable file is a diagnostic too. */
export async function loadCatalogFile(path: string): Promise<CatalogLoadResult> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    return fail([
      { code: "io", file: path, line: 1, column: 1, message: `cannot read the catalog: ${reason}` },
    ]);
  }
  return parseCatalog(text, path);
}

/** Parses and checks a catalog's JSON text; `file` names it in diagnostics. */
export function parseCatalog(text: string, file: string): CatalogLoadResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const scan = scanJson(text, 0);
    const offset = scan.error?.offset ?? 0;
    const message = scan.error?.message ?? (error as Error).message;
    return fail([
      { code: "json-syntax", file, ...lineColumn(text, offset), message: `invalid JSON: ${message}` },
    ]);
  }
  const checker = new CatalogChecker(text, file);
  const catalog = checker.check(value);
  return catalog && checker.diagnostics.length === 0
    ? { ok: true, catalog, diagnostics: [] }
    : fail(checker.diagnostics);
}

function fail(diagnostics: CatalogDiagnostic[]): CatalogLoadResult {
  return { ok: false, diagnostics };
}

type Json = Record<string, unknown>;

/** The ends of an edge, each checked. */
const EDGE_ENDS = ["source", "target"] as const;

/** A resource type's name: `File`, `Concat::Fragment`. */
const TYPE_NAME = /^[A-Za-z][\w]*(::[A-Za-z][\w]*)*$/;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Walks the parsed value, collecting diagnostics; positions are found only when one is reported. */
class CatalogChecker {
  readonly diagnostics: CatalogDiagnostic[] = [];
  private offsets: ReadonlyMap<string, number> | undefined;
  private position: ((offset: number) => { line: number; column: number }) | undefined;
  /** `resources` lives under `data.` in the wrapped form (`document_type: Catalog`). */
  private prefix = "";

  constructor(
    private readonly text: string,
    private readonly file: string,
  ) {}

  check(value: unknown): Catalog | undefined {
    let root = value;
    if (isObject(root) && root.document_type === "Catalog" && isObject(root.data)) {
      root = root.data;
      this.prefix = "data.";
    }
    if (!isObject(root)) {
      this.report("catalog-shape", "", "a catalog must be a JSON object with 'resources' and 'edges'");
      return undefined;
    }
    if (!Array.isArray(root.resources)) {
      this.report("catalog-shape", "resources", "'resources' must be an array of resources");
      return undefined;
    }
    const resources = this.readResources(root.resources);
    const edges = this.readEdges(root.edges);
    const index = this.indexResources(resources);
    this.checkEdges(edges, index);
    this.checkRelationships(resources, index);
    return {
      name: this.readString(root, "name", ""),
      environment: this.readString(root, "environment", "production"),
      version: typeof root.version === "number" ? String(root.version) : this.readString(root, "version", ""),
      resources: resources.map((r) => r.resource),
      edges: edges.map((e) => e.edge),
      classes: this.readStrings(root.classes, "classes"),
      tags: this.readStrings(root.tags, "tags"),
      codeId: typeof root.code_id === "string" ? root.code_id : null,
      ...(typeof root.catalog_uuid === "string" ? { catalogUuid: root.catalog_uuid } : {}),
    };
  }

  private readString(root: Json, key: string, fallback: string): string {
    const value = root[key];
    if (value === undefined || value === null) return fallback;
    if (typeof value === "string") return value;
    this.report("catalog-shape", key, `'${key}' must be a string`);
    return fallback;
  }

  private readStrings(value: unknown, path: string): string[] {
    if (value === undefined || value === null) return [];
    if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value as string[];
    this.report("catalog-shape", path, `'${path}' must be an array of strings`);
    return [];
  }

  private readResources(raw: readonly unknown[]): { resource: CatalogResource; at: number }[] {
    const out: { resource: CatalogResource; at: number }[] = [];
    raw.forEach((item, at) => {
      const resource = this.readResource(item, at);
      if (resource) out.push({ resource, at });
    });
    return out;
  }

  /** The last type name found well formed: a catalog names few types, a thousand times each. */
  private lastType = "";

  private readResource(item: unknown, at: number): CatalogResource | undefined {
    if (!isObject(item)) {
      this.report(
        "resource-shape",
        `resources.${at}`,
        `resource ${at + 1}: expected an object with 'type' and 'title'`,
      );
      return undefined;
    }
    const { type, title } = item;
    if (typeof type !== "string" || (type !== this.lastType && !TYPE_NAME.test(type))) {
      this.report(
        "resource-shape",
        `resources.${at}.type`,
        `resource ${at + 1}: 'type' must be a type name like "File"`,
      );
      return undefined;
    }
    if (typeof title !== "string" && typeof title !== "number") {
      this.report(
        "resource-shape",
        `resources.${at}.title`,
        `${type} (resource ${at + 1}): 'title' must be a string`,
      );
      return undefined;
    }
    this.lastType = type;
    const ref = `${type}[${title}]`;
    const parameters = this.readParameters(item.parameters, ref, at);
    const tags = item.tags === undefined ? [] : item.tags;
    const tagsValid = Array.isArray(tags) && tags.every((t) => typeof t === "string");
    if (!tagsValid) {
      this.report("resource-shape", `resources.${at}.tags`, `${ref}: 'tags' must be an array of strings`);
    }
    const file = typeof item.file === "string" ? item.file : undefined;
    if (item.file !== undefined && item.file !== null && file === undefined)
      this.report("resource-shape", `resources.${at}.file`, `${ref}: 'file' must be a string or null`);
    const line = typeof item.line === "number" && Number.isInteger(item.line) ? item.line : undefined;
    if (item.line !== undefined && item.line !== null && line === undefined)
      this.report("resource-shape", `resources.${at}.line`, `${ref}: 'line' must be an integer or null`);
    if (item.exported !== undefined && typeof item.exported !== "boolean")
      this.report("resource-shape", `resources.${at}.exported`, `${ref}: 'exported' must be true or false`);
    // Built without object spreads, in the same key order: a thousand resources, in cold code.
    const resource: { -readonly [K in keyof CatalogResource]: CatalogResource[K] } = {
      type,
      title: String(title),
      parameters,
      // The parsed array itself when every tag is a string (nothing else holds it).
      tags: tagsValid
        ? (tags as string[])
        : Array.isArray(tags)
          ? (tags.filter((t) => typeof t === "string") as string[])
          : [],
    };
    if (file !== undefined) resource.file = file;
    if (line !== undefined) resource.line = line;
    if (item.exported === true) resource.exported = true;
    if (typeof item.kind === "string") resource.kind = item.kind;
    return resource;
  }

  private readParameters(raw: unknown, ref: string, at: number): Record<string, ParamValue> {
    if (raw === undefined || raw === null) return {};
    if (!isObject(raw)) {
      this.report("resource-shape", `resources.${at}.parameters`, `${ref}: 'parameters' must be an object`);
      return {};
    }
    return raw as Record<string, ParamValue>;
  }

  private readEdges(raw: unknown): { edge: CatalogEdge; at: number }[] {
    if (raw === undefined || raw === null) return [];
    if (!Array.isArray(raw)) {
      this.report("catalog-shape", "edges", "'edges' must be an array of {source, target}");
      return [];
    }
    const out: { edge: CatalogEdge; at: number }[] = [];
    raw.forEach((item, at) => {
      if (isObject(item) && typeof item.source === "string" && typeof item.target === "string")
        out.push({ edge: { source: item.source, target: item.target }, at });
      else
        this.report(
          "catalog-shape",
          `edges.${at}`,
          `edge ${at + 1}: expected {"source": "Type[title]", "target": "Type[title]"}`,
        );
    });
    return out;
  }

  /** Canonical reference (and each alias) → position in `resources`; reports duplicates. */
  private indexResources(
    resources: readonly { resource: CatalogResource; at: number }[],
  ): Map<string, number> {
    const index = new Map<string, number>();
    // Index loops over the resources: a for-of makes an iterator and a
    // result per step in code not optimised yet.
    for (let i = 0; i < resources.length; i++) {
      const { resource, at } = resources[i] as { resource: CatalogResource; at: number };
      const key = refKey(resource.type, resource.title);
      const first = index.get(key);
      if (first !== undefined) {
        const where = this.describeResource(resources, first);
        this.report(
          "duplicate-resource",
          `resources.${at}`,
          `duplicate resource ${key}: already declared${where}`,
        );
        continue;
      }
      index.set(key, at);
      if (resource.parameters.alias === undefined) continue;
      for (const alias of relationshipRefs(resource.parameters.alias).refs) {
        const aliasKey = refKey(resource.type, alias);
        if (!index.has(aliasKey)) index.set(aliasKey, at);
      }
    }
    return index;
  }

  private describeResource(
    resources: readonly { resource: CatalogResource; at: number }[],
    at: number,
  ): string {
    const found = resources.find((r) => r.at === at)?.resource;
    if (found?.file !== undefined) return ` at ${found.file}:${found.line ?? "?"}`;
    return ` as resource ${at + 1}`;
  }

  private checkEdges(edges: readonly { edge: CatalogEdge; at: number }[], index: Map<string, number>): void {
    // Texts found under their canonical form (`Class[main]`), each parsed once.
    const canonical = new Set<string>();
    for (let i = 0; i < edges.length; i++) {
      const { edge, at } = edges[i] as { edge: CatalogEdge; at: number };
      for (let e = 0; e < EDGE_ENDS.length; e++) {
        const end = EDGE_ENDS[e] as (typeof EDGE_ENDS)[number];
        // A compiled catalog writes references canonically, but for classes.
        if (index.has(edge[end]) || canonical.has(edge[end])) continue;
        const key = refKeyOf(edge[end]);
        if (key !== undefined && index.has(key)) canonical.add(edge[end]);
        else
          this.report(
            "edge-missing-resource",
            `edges.${at}.${end}`,
            `edge ${at + 1}: ${end} ${edge[end]} is not a resource of the catalog`,
          );
      }
    }
  }

  private checkRelationships(
    resources: readonly { resource: CatalogResource; at: number }[],
    index: Map<string, number>,
  ): void {
    for (let i = 0; i < resources.length; i++) {
      const { resource, at } = resources[i] as { resource: CatalogResource; at: number };
      for (let p = 0; p < RELATIONSHIP_PARAMS.length; p++) {
        const param = RELATIONSHIP_PARAMS[p] as (typeof RELATIONSHIP_PARAMS)[number];
        const value = resource.parameters[param];
        if (value === undefined) continue;
        this.checkRelationship(resource, at, param, value, index);
      }
    }
  }

  private checkRelationship(
    resource: CatalogResource,
    at: number,
    param: string,
    value: ParamValue,
    index: Map<string, number>,
  ): void {
    const ref = `${resource.type}[${resource.title}]`;
    const path = `resources.${at}.parameters.${param}`;
    const { refs, bad } = relationshipRefs(value);
    for (const item of bad)
      this.report(
        "relationship-bad-reference",
        path,
        `${ref}: '${param}' must name resources as "Type[title]", found ${JSON.stringify(item)}`,
      );
    for (const target of refs) {
      if (index.has(target)) continue;
      if (!parseRef(target)) {
        this.report(
          "relationship-bad-reference",
          path,
          `${ref}: '${param}' must name resources as "Type[title]", found ${JSON.stringify(target)}`,
        );
        continue;
      }
      if (index.has(refKeyOf(target) as string)) continue;
      const description = param === "require" || param === "subscribe" ? "dependency" : "dependent";
      this.report(
        "relationship-missing-resource",
        path,
        `Could not find ${description} ${target} for ${ref} (in '${param}')`,
      );
    }
  }

  private report(code: CatalogDiagnosticCode, path: string, message: string): void {
    this.offsets ??= scanJson(this.text, 5).offsets;
    this.position ??= lineMap(this.text);
    const offset = this.offsetOf(this.prefix + path);
    this.diagnostics.push({ code, file: this.file, ...this.position(offset), message });
  }

  /** The offset of the deepest recorded ancestor of `path` (values deeper than the scan are not recorded). */
  private offsetOf(path: string): number {
    const offsets = this.offsets as ReadonlyMap<string, number>;
    for (let p = path; p !== ""; p = p.includes(".") ? p.slice(0, p.lastIndexOf(".")) : "") {
      const found = offsets.get(p);
      if (found !== undefined) return found;
    }
    return 0;
  }
}
