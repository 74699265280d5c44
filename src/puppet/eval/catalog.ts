/**
 * The catalog being built: resources in declaration order with their
 * aliases, containment edges, classes and tags; and its JSON as
 * `puppet catalog compile --render-as json` prints it (virtual resources
 * left out, edges in Puppet's graph order: by target, then by source).
 */
import type { PuppetCatalogJson } from "./compile-api.js";
import { CResource, TagSet, namevarOf, resourceToData } from "./resource.js";

export class Catalog {
  private readonly table = new Map<string, CResource>();
  private readonly order: CResource[] = [];
  /** Containment: source → targets (insertion ordered) and target → sources. */
  private readonly out = new Map<CResource, CResource[]>();
  private readonly in = new Map<CResource, CResource[]>();
  /** The targets of each source as a set: an edge is added once, without a scan of `out`. */
  private readonly outSet = new Map<CResource, Set<CResource>>();
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

  private static key(type: string, title: string): string {
    return `${type}\u0000${title}`;
  }

  add(r: CResource): void {
    this.table.set(Catalog.key(r.type, r.title), r);
    this.order.push(r);
  }

  /** Makes `r` findable as `Type[alias]`; an alias taken by another resource is an error. */
  alias(r: CResource, alias: string): void {
    const key = Catalog.key(r.type, alias);
    const existing = this.table.get(key);
    if (existing === r || alias === r.title) return;
    if (existing) {
      throw new Error(
        `Cannot alias ${r.ref} to ${JSON.stringify(alias)}; resource ["${r.type}", ${JSON.stringify(alias)}] already declared`,
      );
    }
    this.table.set(key, r);
  }

  find(type: string, title: string): CResource | undefined {
    return this.table.get(Catalog.key(type, title));
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
    let outs = this.out.get(source);
    let set = this.outSet.get(source);
    if (!outs || !set) {
      outs = [];
      set = new Set();
      this.out.set(source, outs);
      this.outSet.set(source, set);
    }
    if (set.has(target)) return;
    outs.push(target);
    set.add(target);
    let ins = this.in.get(target);
    if (!ins) {
      ins = [];
      this.in.set(target, ins);
    }
    ins.push(source);
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
      const connected = this.out.get(node) ?? [];
      for (const t of connected) f(node, t);
      stack.push(...connected);
      seen.add(node);
    }
  }

  toJson(namevar: (type: string) => string | undefined): PuppetCatalogJson {
    const kept = this.order.filter((r) => !r.virtual);
    const keptSet = new Set(kept);
    const resources = kept.map((r) => resourceToData(r, namevarOf(r.type, namevar)));
    const edges: { source: string; target: string }[] = [];
    for (const t of kept) {
      for (const s of this.in.get(t) ?? []) {
        if (keptSet.has(s)) edges.push({ source: s.ref, target: t.ref });
      }
    }
    const tags = new TagSet();
    for (const c of this.classes) tags.add(c);
    tags.merge(this.tags);
    return {
      tags: [...tags.tags],
      name: this.name,
      version: this.version || Math.floor(Date.now() / 1000),
      code_id: null,
      catalog_uuid: randomUuid(),
      catalog_format: 2,
      environment: this.environment,
      resources,
      edges,
      classes: [...this.classes],
    };
  }
}

function randomUuid(): string {
  return globalThis.crypto.randomUUID();
}
