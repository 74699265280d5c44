/**
 * The catalog being built: resources in declaration order with their
 * aliases, containment edges, classes and tags; and its JSON as
 * `puppet catalog compile --render-as json` prints it (virtual resources
 * left out, edges in Puppet's graph order: by target, then by source).
 */
import type { PuppetCatalogJson } from "./compile-api.js";
import { randomUuid } from "../../system/uuid.js";
import { PLAIN_JSON } from "./json-float.js";
import { CResource, type JsonMarks, TagSet, namevarOf, resourceToData } from "./resource.js";

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
      for (let i = 0; i < connected.length; i++) f(node, connected[i] as CResource);
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
    // The containers kept (a source of containment contains something):
    // a set of those alone, not of every resource, whose identity hashes
    // cost V8 an allocation each.
    const keptSet = new Set(kept.filter((r) => r.contains !== undefined));
    const namevars = namevarTable(namevar);
    const marks: JsonMarks = { float: false };
    const resources = kept.map((r) => resourceToData(r, namevars(r.type), marks));
    const edges: { source: string; target: string }[] = [];
    // Indexed: for-of makes an iterator result per step in code not yet optimized.
    for (let i = 0; i < kept.length; i++) {
      const t = kept[i] as CResource;
      const ins = t.containedBy;
      if (ins === undefined) continue;
      for (let j = 0; j < ins.length; j++) {
        const s = ins[j] as CResource;
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
