/**
 * The catalog being built: resources in declaration order with their
 * aliases, containment edges, classes and tags; and its JSON as
 * `puppet catalog compile --render-as json` prints it (virtual resources
 * left out, edges in Puppet's graph order: by target, then by source).
 */
import type { PuppetCatalogJson } from "./compile-api.js";
import { randomUuid } from "../../system/uuid.js";
import { PLAIN_JSON } from "./json-float.js";
import { renderRubyJson } from "./ruby-json.js";
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
    const kept = this.kept();
    const namevars = namevarTable(namevar);
    const marks: JsonMarks = { float: false };
    const resources = kept.map((r) => resourceToData(r, namevars(r.type), marks));
    const edges: CatalogEdge[] = [];
    this.edges(kept, containers(kept), 0, kept.length, edges);
    const json: PuppetCatalogJson = {
      ...this.top(head),
      resources,
      edges,
      classes: [...this.classes],
    };
    if (!marks.float) Object.defineProperty(json, PLAIN_JSON, { value: true });
    return json;
  }

  /**
   * The text renderRubyJson(this.toJson(namevar, head)) gives, as UTF-8,
   * handed to `write` in pieces whose bytes are valid during the call only
   * (one buffer is reused: copy what is kept). The data of a few hundred
   * resources at a time is made, rendered and dropped: on ten thousand
   * resources the whole data (~12 MB) and its text (4.4 MB) would otherwise
   * live to the end, copied by each garbage collection on the way.
   */
  writeJson(
    namevar: (type: string) => string | undefined,
    head: CatalogHead,
    write: (bytes: Uint8Array) => void,
  ): void {
    const out = new JsonPieces(write);
    const kept = this.kept();
    const namevars = namevarTable(namevar);
    const top = renderRubyJson(this.top(head));
    out.text(`${top.slice(0, -1)},"resources":[`);
    for (let i = 0; i < kept.length; i += BATCH) {
      const end = Math.min(i + BATCH, kept.length);
      const marks: JsonMarks = { float: false };
      const data = new Array<Record<string, unknown>>(end - i);
      for (let j = i; j < end; j++) {
        const r = kept[j] as CResource;
        data[j - i] = resourceToData(r, namevars(r.type), marks);
      }
      out.items(marks.float ? renderRubyJson(data) : JSON.stringify(data));
    }
    out.text('],"edges":[');
    // Edges in batches of their targets: references only, no numbers.
    out.more = false;
    const from = containers(kept);
    for (let i = 0; i < kept.length; i += BATCH) {
      const edges: CatalogEdge[] = [];
      this.edges(kept, from, i, Math.min(i + BATCH, kept.length), edges);
      out.items(JSON.stringify(edges));
    }
    out.text(`],"classes":${renderRubyJson(this.classes)}}`);
  }

  /** The resources of the catalog's JSON: all but the virtual ones. */
  private kept(): CResource[] {
    return this.order.filter((r) => !r.virtual);
  }

  /** The catalog's JSON before its resources, keys in Puppet's order. */
  private top(head: CatalogHead): Omit<PuppetCatalogJson, "resources" | "edges" | "classes"> {
    const tags = new TagSet();
    for (const c of this.classes) tags.add(c);
    tags.merge(this.tags);
    return {
      tags: [...tags.tags],
      name: this.name,
      version: head.version,
      code_id: null,
      catalog_uuid: head.uuid,
      catalog_format: 2,
      environment: this.environment,
    };
  }

  /** The containment edges into kept[from..to) from the containers kept, in Puppet's graph order. */
  private edges(
    kept: readonly CResource[],
    sources: ReadonlySet<CResource>,
    from: number,
    to: number,
    out: CatalogEdge[],
  ): void {
    // Indexed: for-of makes an iterator result per step in code not yet optimized.
    for (let i = from; i < to; i++) {
      const t = kept[i] as CResource;
      const ins = t.containedBy;
      if (ins === undefined) continue;
      for (let j = 0; j < ins.length; j++) {
        const s = ins[j] as CResource;
        if (sources.has(s)) out.push({ source: s.ref, target: t.ref });
      }
    }
  }
}

/**
 * The containers kept (a source of containment contains something): a set
 * of those alone, not of every resource, whose identity hashes cost V8 an
 * allocation each.
 */
function containers(kept: readonly CResource[]): Set<CResource> {
  return new Set(kept.filter((r) => r.contains !== undefined));
}

/** Resources (and edges) rendered at a time by writeJson: ~200 kB of text. */
const BATCH = 512;

interface CatalogEdge {
  source: string;
  target: string;
}

/**
 * JSON text written as UTF-8 through one buffer, grown as needed: pieces
 * of ~200 kB are encoded into it without a Buffer made for each, and the
 * items of a list are written without their brackets, no text sliced for it.
 */
class JsonPieces {
  private buffer = Buffer.allocUnsafe(0);
  /** Whether list items were written before: the next ones follow a comma. */
  more = false;
  constructor(private readonly write: (bytes: Uint8Array) => void) {}

  text(text: string): void {
    const n = this.encode(text);
    this.write(this.buffer.subarray(0, n));
  }

  /** The items of a list's text (`[a,b]`), after a comma when items were written before them. */
  items(list: string): void {
    if (list.length <= 2) return;
    const n = this.encode(list);
    // The brackets are one byte each: the opening one becomes the comma.
    if (this.more) this.buffer[0] = 0x2c;
    this.write(this.buffer.subarray(this.more ? 0 : 1, n - 1));
    this.more = true;
  }

  /** The UTF-8 of `text` at the buffer's start; its length. */
  private encode(text: string): number {
    // Three bytes at most for each UTF-16 unit (a surrogate pair: four for two).
    const room = text.length * 3;
    if (this.buffer.length < room) this.buffer = Buffer.allocUnsafe(room);
    return this.buffer.write(text, 0, "utf8");
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
