/**
 * The catalog being built: resources in declaration order with their
 * aliases, containment edges, classes and tags; and its JSON as
 * `puppet catalog compile --render-as json` prints it (virtual resources
 * left out, edges in Puppet's graph order: by target, then by source).
 */
import type { PuppetCatalogJson } from "./compile-api.js";
import { PLAIN_JSON } from "./json-float.js";
import {
  CResource,
  type JsonMarks,
  SKIP_PARAMETER,
  TagSet,
  catalogValue,
  namevarOf,
  resourceToData,
  toJsonData,
} from "./resource.js";
import { renderRubyJson } from "./ruby-json.js";
import { PClassType, PResourceType } from "./types.js";
import { isArr } from "./arr.js";
import { PSensitive, type PValue } from "./values.js";

export class Catalog {
  /** Resources (and aliases) by type, then title: no `type + title` key string made per lookup. */
  private readonly table = new Map<string, Map<string, CResource>>();
  private readonly order: CResource[] = [];
  readonly classes: string[] = [];
  readonly tags = new TagSet();
  readonly stage: CResource;
  main: CResource | undefined;

  constructor(
    readonly name: string,
    readonly environment: string,
    /** The environment's config_version output, else the compile time in seconds (as Puppet). */
    readonly version?: string,
  ) {
    const dummy = undefined as never;
    this.stage = new CResource("Stage", "main", dummy, undefined, "compilable_type", undefined, undefined);
    this.stage.set({ name: "name", value: "main", source: undefined });
    this.add(this.stage);
  }

  private titles(type: string): Map<string, CResource> {
    let m = this.table.get(type);
    if (m === undefined) {
      m = new Map();
      this.table.set(type, m);
    }
    return m;
  }

  add(r: CResource): void {
    this.titles(r.type).set(r.title, r);
    this.order.push(r);
  }

  /** Makes `r` findable as `Type[alias]`; an alias taken by another resource is an error. */
  alias(r: CResource, alias: string): void {
    const titles = this.titles(r.type);
    const existing = titles.get(alias);
    if (existing === r || alias === r.title) return;
    if (existing) {
      throw new Error(
        `Cannot alias ${r.ref} to ${JSON.stringify(alias)}; resource ["${r.type}", ${JSON.stringify(alias)}] already declared`,
      );
    }
    titles.set(alias, r);
  }

  find(type: string, title: string): CResource | undefined {
    return this.table.get(type)?.get(title);
  }

  /** A resource by its reference text (`File[/x]`, `Class[Foo]`). */
  findRef(ref: string): CResource | undefined {
    const i = ref.indexOf("[");
    if (i === -1 || !ref.endsWith("]")) return undefined;
    return this.find(ref.slice(0, i), ref.slice(i + 1, -1));
  }

  resourceList(): CResource[] {
    return this.order;
  }

  addEdge(source: CResource, target: CResource): void {
    // Containment is kept on the resources (an edge is added once: a
    // resource has one or two containers, whose list is the shorter to scan).
    const ins = target.containedBy;
    if (ins === undefined) target.containedBy = [source];
    else if (ins.includes(source)) return;
    else ins.push(source);
    if (source.contains === undefined) source.contains = [target];
    else source.contains.push(target);
  }

  addClass(name: string): void {
    if (name === "") return;
    this.classes.push(name);
    this.tags.add(name);
  }

  mergeTags(tags: TagSet): void {
    this.tags.merge(tags);
  }

  /** Breadth-first over containment from `start`, as Puppet's graph walk. */
  walk(start: CResource, f: (source: CResource, target: CResource) => void): void {
    const stack = [start];
    const seen = new Set<CResource>();
    while (stack.length > 0) {
      const node = stack.shift() as CResource;
      if (seen.has(node)) continue;
      const connected = node.contains ?? [];
      for (const t of connected) f(node, t);
      stack.push(...connected);
      seen.add(node);
    }
  }

  /** The catalog's version (config_version's, else the time) and uuid, fixed once for its JSON. */
  head(): CatalogHead {
    return { version: this.version || Math.floor(Date.now() / 1000), uuid: randomUuid() };
  }

  toJson(namevar: (type: string) => string | undefined, head: CatalogHead = this.head()): PuppetCatalogJson {
    const kept = this.order.filter((r) => !r.virtual);
    const keptSet = new Set(kept);
    const namevars = namevarTable(namevar);
    const marks: JsonMarks = { float: false };
    const resources = kept.map((r) => resourceToData(r, namevars(r.type), marks));
    const edges: { source: string; target: string }[] = [];
    for (const t of kept) {
      for (const s of t.containedBy ?? []) {
        if (keptSet.has(s)) edges.push({ source: s.ref, target: t.ref });
      }
    }
    const tags = new TagSet();
    for (const c of this.classes) tags.add(c);
    tags.merge(this.tags);
    const json: PuppetCatalogJson = {
      tags: [...tags.tags],
      name: this.name,
      version: head.version,
      code_id: null,
      catalog_uuid: head.uuid,
      catalog_format: 2,
      environment: this.environment,
      resources,
      edges,
      classes: [...this.classes],
    };
    if (!marks.float) Object.defineProperty(json, PLAIN_JSON, { value: true });
    return json;
  }

  /**
   * `renderRubyJson(this.toJson(namevar, head))`, written straight from the
   * resources: no object tree of 10,000 resources made first to be walked.
   */
  renderJson(namevar: (type: string) => string | undefined, head: CatalogHead): string {
    const namevars = namevarTable(namevar);
    const out: string[] = [];
    const tags = new TagSet();
    for (const c of this.classes) tags.add(c);
    tags.merge(this.tags);
    out.push(`{"tags":${stringList(tags.tags)},"name":${q(this.name)},"version":`);
    out.push(typeof head.version === "string" ? q(head.version) : renderRubyJson(head.version));
    out.push(
      `,"code_id":null,"catalog_uuid":${q(head.uuid)},"catalog_format":2,"environment":${q(this.environment)},"resources":[`,
    );
    const kept = new Set<CResource>();
    for (const r of this.order) {
      if (r.virtual) continue;
      if (kept.size > 0) out.push(",");
      kept.add(r);
      writeResource(r, namevars(r.type), out);
    }
    out.push('],"edges":[');
    let first = true;
    for (const t of kept) {
      const sources = t.containedBy;
      if (sources === undefined) continue;
      for (const s of sources) {
        if (!kept.has(s)) continue;
        out.push(`${first ? "" : ","}{"source":${q(s.ref)},"target":${q(t.ref)}}`);
        first = false;
      }
    }
    out.push(`],"classes":${stringList(this.classes)}}`);
    return out.join("");
  }
}

/** What a catalog's JSON is stamped with: its version and uuid. */
export interface CatalogHead {
  readonly version: number | string;
  readonly uuid: string;
}

/** The namevar of each type, asked once per type. */
function namevarTable(lookup: (type: string) => string | undefined): (type: string) => string {
  const known = new Map<string, string>();
  return (type) => {
    let nv = known.get(type);
    if (nv === undefined) {
      nv = namevarOf(type, lookup);
      known.set(type, nv);
    }
    return nv;
  };
}

const q = JSON.stringify as (s: string) => string;

function stringList(items: Iterable<string>): string {
  let text = "[";
  let first = true;
  for (const s of items) {
    text += first ? q(s) : `,${q(s)}`;
    first = false;
  }
  return `${text}]`;
}

/** One resource as `renderRubyJson(resourceToData(r, namevar))` writes it. */
function writeResource(r: CResource, namevar: string, out: string[]): void {
  let text = `{"type":${q(r.type)},"title":${q(r.title)},"tags":${stringList(r.tags.tags)}`;
  if (r.file !== undefined) text += `,"file":${q(r.file)}`;
  if (r.line !== undefined) text += `,"line":${renderRubyJson(r.line)}`;
  text += `,"exported":${r.exported ? "true" : "false"},"kind":${q(r.kind)}`;
  let params = "";
  for (const [name, p] of r.params) {
    // Sensitive parameters (rare) are listed apart: through the data tree.
    if (p.value instanceof PSensitive) {
      out.push(renderRubyJson(resourceToData(r, namevar)));
      return;
    }
    const value = catalogValue(r, name, p.value, namevar);
    if (value === SKIP_PARAMETER) continue;
    params += `${params === "" ? "" : ","}${q(name)}:${valueJson(value)}`;
  }
  if (params !== "") text += `,"parameters":{${params}}`;
  out.push(`${text}}`);
}

/** A parameter value's JSON text: strings and references here, anything else through its JSON data. */
function valueJson(v: PValue): string {
  if (typeof v === "string") return q(v);
  if (typeof v === "boolean") return v ? "true" : "false";
  if (v instanceof PResourceType || v instanceof PClassType) return q(toJsonData(v) as string);
  if (isArr(v)) {
    let text = "[";
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      text += `${i === 0 ? "" : ","}${x === undefined ? "null" : valueJson(x)}`;
    }
    return `${text}]`;
  }
  return renderRubyJson(toJsonData(v));
}

function randomUuid(): string {
  return globalThis.crypto.randomUUID();
}
