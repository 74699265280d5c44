/**
 * Comparing two Puppet 7 catalogs (tend's and Puppet's, or two runs) as
 * JSON, after neutralising what changes on every compile or between
 * machines: `version` (a time stamp), `catalog_uuid`, `code_id`, and the code
 * directory's path at the start of each resource's `file`.
 *
 * What counts, and how (deliberate choices):
 * - the header: `name`, `environment`, `catalog_format`;
 * - resources by reference `Type[title]`: each present on both sides, with
 *   the same `type`, `title`, `file`, `line`, `exported`, `kind`, every other
 *   key (`sensitive_parameters`…) and `parameters` compared deeply (arrays
 *   in order; hashes by key, whatever their order, as Puppet compares them);
 * - resource order: the sequence of references (Puppet applies unrelated
 *   resources in this order, so it is behaviour);
 * - tags, of resources and of the catalog, as SETS: Puppet keeps them in a
 *   set whose order only reflects when each was added; an order difference
 *   is reported under `tag-order` when asked (`tagOrder`), never as a
 *   difference in content;
 * - edges (containment) as a set of `source → target` pairs;
 * - classes as a list, in order (the order Puppet evaluated them).
 *
 * Library code: no console output; the caller renders the differences.
 */

/** The JSON of a catalog, as parsed (`puppet catalog compile --render-as json`). */
export type CatalogJson = Readonly<Record<string, unknown>>;

export type DifferenceCategory =
  | "header"
  | "missing-resource"
  | "extra-resource"
  | "resource-field"
  | "parameters"
  | "tags"
  | "resource-order"
  | "edges"
  | "classes"
  | "catalog-tags"
  | "tag-order";

export interface CatalogDifference {
  readonly category: DifferenceCategory;
  /** The resource reference when the difference is in one resource. */
  readonly resource?: string;
  /** Where in the resource or catalog: `parameters.content`, `line`, `edges`. */
  readonly field: string;
  /** A readable rendering of each side's value (JSON, shortened). */
  readonly a: string;
  readonly b: string;
}

export interface CompareOptions {
  /** The code directory of each side (a prefix removed from resources' `file`). */
  readonly codeDirA?: string | readonly string[];
  readonly codeDirB?: string | readonly string[];
  /** Report tag order differences too (category `tag-order`; default false). */
  readonly tagOrder?: boolean;
  /** Stop after this many differences (default: all). */
  readonly limit?: number;
}

export interface CatalogComparison {
  /** No difference other than `tag-order` ones. */
  readonly equal: boolean;
  readonly differences: readonly CatalogDifference[];
}

/** Keys dropped from the catalog before comparing: they change on every compile. */
export const VOLATILE_KEYS: readonly string[] = ["version", "catalog_uuid", "code_id"];

interface NormalResource {
  readonly ref: string;
  readonly data: Readonly<Record<string, unknown>>;
}

function asArray(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

function asRecord(value: unknown): Readonly<Record<string, unknown>> {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function dirs(value: string | readonly string[] | undefined): readonly string[] {
  const list = value === undefined ? [] : typeof value === "string" ? [value] : value;
  return list.filter((d) => d !== "").map((d) => (d.endsWith("/") ? d : `${d}/`));
}

/** A resource's `file` with the code directory replaced by `$codedir/`. */
function neutralFile(file: unknown, codeDirs: readonly string[]): unknown {
  if (typeof file !== "string") return file;
  for (const dir of codeDirs) if (file.startsWith(dir)) return `$codedir/${file.slice(dir.length)}`;
  return file;
}

function resources(catalog: CatalogJson, codeDirs: readonly string[]): NormalResource[] {
  return asArray(catalog.resources).map((r) => {
    const data = { ...asRecord(r) };
    if ("file" in data) data.file = neutralFile(data.file, codeDirs);
    return { ref: `${String(data.type)}[${String(data.title)}]`, data };
  });
}

/** Deep equality of JSON values; objects by key whatever the order, arrays in order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const ka = Object.keys(ra);
  if (ka.length !== Object.keys(rb).length) return false;
  for (const k of ka) if (!Object.hasOwn(rb, k) || !jsonEqual(ra[k], rb[k])) return false;
  return true;
}

/** A value for a difference line: JSON, at most `max` characters. */
export function show(value: unknown, max = 160): string {
  if (value === undefined) return "(absent)";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The first path under which `a` and `b` differ (`.key`, `[i]`), or undefined. */
function firstDifference(
  a: unknown,
  b: unknown,
  path: string,
): { path: string; a: unknown; b: unknown } | undefined {
  if (jsonEqual(a, b)) return undefined;
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (d) return d;
    }
  }
  if (
    a !== null &&
    b !== null &&
    typeof a === "object" &&
    typeof b === "object" &&
    !Array.isArray(a) &&
    !Array.isArray(b)
  ) {
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    for (const k of new Set([...Object.keys(ra), ...Object.keys(rb)])) {
      const d = firstDifference(ra[k], rb[k], `${path}.${k}`);
      if (d) return d;
    }
  }
  return { path, a, b };
}

function stringSet(value: unknown): Set<string> {
  return new Set(asArray(value).map(String));
}

function setsEqual(a: Set<string>, b: Set<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

function setDelta(a: Set<string>, b: Set<string>): { onlyA: string[]; onlyB: string[] } {
  return { onlyA: [...a].filter((x) => !b.has(x)), onlyB: [...b].filter((x) => !a.has(x)) };
}

/** Compare catalog `a` with catalog `b` (both parsed JSON). */
export function compareCatalogs(
  a: CatalogJson,
  b: CatalogJson,
  options: CompareOptions = {},
): CatalogComparison {
  const out: CatalogDifference[] = [];
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const add = (d: CatalogDifference): boolean => {
    out.push(d);
    return out.length >= limit;
  };
  const done = (): CatalogComparison => ({
    equal: out.every((d) => d.category === "tag-order"),
    differences: out,
  });

  for (const key of ["name", "environment", "catalog_format"]) {
    if (
      !jsonEqual(a[key], b[key]) &&
      add({ category: "header", field: key, a: show(a[key]), b: show(b[key]) })
    )
      return done();
  }

  const ra = resources(a, dirs(options.codeDirA));
  const rb = resources(b, dirs(options.codeDirB));
  const mapB = new Map(rb.map((r) => [r.ref, r]));
  const mapA = new Map(ra.map((r) => [r.ref, r]));
  for (const r of ra) {
    const other = mapB.get(r.ref);
    if (other === undefined) {
      if (add({ category: "missing-resource", resource: r.ref, field: "", a: show(r.data), b: "(absent)" }))
        return done();
      continue;
    }
    for (const key of new Set([...Object.keys(r.data), ...Object.keys(other.data)])) {
      const va = r.data[key];
      const vb = other.data[key];
      if (key === "tags") {
        const sa = stringSet(va);
        const sb = stringSet(vb);
        if (!setsEqual(sa, sb)) {
          const { onlyA, onlyB } = setDelta(sa, sb);
          if (add({ category: "tags", resource: r.ref, field: "tags", a: show(onlyA), b: show(onlyB) }))
            return done();
        } else if (options.tagOrder && !jsonEqual(va, vb)) {
          if (add({ category: "tag-order", resource: r.ref, field: "tags", a: show(va), b: show(vb) }))
            return done();
        }
        continue;
      }
      const d = firstDifference(va, vb, key);
      if (d === undefined) continue;
      const category = key === "parameters" ? "parameters" : "resource-field";
      if (add({ category, resource: r.ref, field: d.path, a: show(d.a), b: show(d.b) })) return done();
    }
  }
  for (const r of rb) {
    if (
      !mapA.has(r.ref) &&
      add({ category: "extra-resource", resource: r.ref, field: "", a: "(absent)", b: show(r.data) })
    )
      return done();
  }
  // Order of the resources both sides have.
  const orderA = ra.filter((r) => mapB.has(r.ref)).map((r) => r.ref);
  const orderB = rb.filter((r) => mapA.has(r.ref)).map((r) => r.ref);
  const at = orderA.findIndex((ref, i) => ref !== orderB[i]);
  if (at >= 0) {
    if (
      add({ category: "resource-order", field: `resources[${at}]`, a: orderA[at] ?? "", b: orderB[at] ?? "" })
    )
      return done();
  }

  const edgeSet = (c: CatalogJson): Set<string> =>
    new Set(
      asArray(c.edges).map((e) => {
        const r = asRecord(e);
        return `${String(r.source)} → ${String(r.target)}`;
      }),
    );
  const ea = edgeSet(a);
  const eb = edgeSet(b);
  if (!setsEqual(ea, eb)) {
    const { onlyA, onlyB } = setDelta(ea, eb);
    if (add({ category: "edges", field: "edges", a: show(onlyA), b: show(onlyB) })) return done();
  }
  if (!jsonEqual(a.classes, b.classes)) {
    const d = firstDifference(a.classes, b.classes, "classes");
    if (add({ category: "classes", field: d?.path ?? "classes", a: show(d?.a), b: show(d?.b) }))
      return done();
  }
  const ta = stringSet(a.tags);
  const tb = stringSet(b.tags);
  if (!setsEqual(ta, tb)) {
    const { onlyA, onlyB } = setDelta(ta, tb);
    if (add({ category: "catalog-tags", field: "tags", a: show(onlyA), b: show(onlyB) })) return done();
  } else if (options.tagOrder && !jsonEqual(a.tags, b.tags)) {
    add({ category: "tag-order", field: "tags", a: show(a.tags), b: show(b.tags) });
  }
  return done();
}

/** One line per difference: `Notify[x] parameters.message: A "a" | B "b"`. */
export function formatDifference(
  d: CatalogDifference,
  labels: readonly [string, string] = ["A", "B"],
): string {
  const where = [d.resource, d.field].filter((s) => s !== undefined && s !== "").join(" ");
  switch (d.category) {
    case "missing-resource":
      return `${d.resource}: only in ${labels[0]}`;
    case "extra-resource":
      return `${d.resource}: only in ${labels[1]}`;
    case "tags":
    case "edges":
    case "catalog-tags":
      return `${where}: only in ${labels[0]} ${d.a}; only in ${labels[1]} ${d.b}`;
    case "resource-order":
      return `resource order differs at ${d.field}: ${labels[0]} ${d.a}, ${labels[1]} ${d.b}`;
    default:
      return `${where}: ${labels[0]} ${d.a} | ${labels[1]} ${d.b}`;
  }
}

/** A catalog with the volatile keys dropped and `file` neutralised (for printing or storing). */
export function normaliseCatalog(
  catalog: CatalogJson,
  codeDir?: string | readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(catalog)) if (!VOLATILE_KEYS.includes(k)) out[k] = v;
  const codeDirs = dirs(codeDir);
  out.resources = resources(catalog, codeDirs).map((r) => r.data);
  return out;
}
