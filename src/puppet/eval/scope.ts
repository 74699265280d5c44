/**
 * Puppet's scopes: a scope per class, defined type instance, node and the
 * top scope, each with its own variables, resource defaults and a stack of
 * ephemeral tables (lambda locals and regex match results) over them.
 * Lookups go to the ephemeral tables, then the scope's variables, then the
 * inherited class's scope, then the enclosing scope (the node scope or the
 * top scope): Puppet's static scoping.
 */
import type { Locator } from "../lang/locator.js";
import type { Definition } from "./definitions.js";
import type { CResource, ParamEntry } from "./resource.js";
import type { PValue } from "./values.js";

/** A table of local variables (lambda parameters, a scope's own variables). */
class LocalTable {
  declare readonly vars: Map<string, PValue>;
  declare readonly parent: Table | undefined;
  constructor(parent: Table | undefined) {
    this.vars = new Map();
    this.parent = parent;
  }
}

/** The numbered variables of the last regex match. */
class MatchTable {
  declare readonly parent: Table | undefined;
  declare readonly match: readonly (string | undefined)[] | undefined;
  constructor(parent: Table | undefined, match: readonly (string | undefined)[] | undefined) {
    this.parent = parent;
    this.match = match;
  }
}

type Table = LocalTable | MatchTable;

/** What the compiler offers every scope (qualified variables, class scopes). */
export interface ScopeHost {
  readonly qualifiedVariables: Map<string, PValue>;
  readonly classScopes: Map<string, Scope>;
}

export class ScopeError extends Error {}

const NUMERIC = /^\d+$/;
const NO_DEFAULTS: Map<string, ParamEntry> = new Map();

export class Scope {
  readonly symtable: LocalTable;
  ephemeral: Table[];
  readonly defaults = new Map<string, Map<string, ParamEntry>>();

  constructor(
    readonly host: ScopeHost,
    readonly parent: Scope | undefined,
    /** The class, define or node this scope evaluates (undefined: top scope, lambdas of it). */
    readonly source: Definition | undefined,
    public resource: CResource | undefined,
    public locator: Locator | undefined,
  ) {
    this.symtable = new LocalTable(undefined);
    this.ephemeral = [new MatchTable(this.symtable, undefined)];
  }

  get isTop(): boolean {
    return this.parent === undefined;
  }
  get isNode(): boolean {
    return this.resource?.type === "Node";
  }
  get isClass(): boolean {
    return this.resource?.type === "Class";
  }

  /** A child scope for a class, define or node body. */
  newScope(source: Definition | undefined, resource: CResource | undefined, locator?: Locator): Scope {
    return new Scope(this.host, this, source, resource, locator ?? this.locator);
  }

  /** The value of `$name` as seen here; `found` tells unset from undef. */
  lookup(name: string): { found: boolean; value: PValue } {
    const idx = name.indexOf("::");
    if (idx !== -1) return this.lookupQualified(idx === 0 ? name.slice(2) : name);
    let t: Table | undefined = this.ephemeral[this.ephemeral.length - 1];
    while (t) {
      if (t instanceof LocalTable) {
        if (t.vars.has(name)) return { found: true, value: t.vars.get(name) };
      } else if (t.match && NUMERIC.test(name)) {
        return { found: true, value: t.match[Number(name)] };
      }
      t = t.parent;
    }
    const next = this.inheritedScope() ?? this.enclosingScope();
    if (next) return next.lookup(name);
    return { found: false, value: undefined };
  }

  private lookupQualified(fqn: string): { found: boolean; value: PValue } {
    const q = this.host.qualifiedVariables;
    if (q.has(fqn)) return { found: true, value: q.get(fqn) };
    const leaf = fqn.lastIndexOf("::");
    if (leaf === -1) return { found: false, value: undefined };
    const cls = fqn.slice(0, leaf).toLowerCase();
    const qs = this.host.classScopes.get(cls);
    if (!qs) return { found: false, value: undefined };
    const name = fqn.slice(leaf + 2);
    if (qs.symtable.vars.has(name)) return { found: true, value: qs.symtable.vars.get(name) };
    const inherited = qs.inheritedScope();
    if (inherited?.source) return this.lookupQualified(`${inherited.source.name}::${name}`);
    return { found: false, value: undefined };
  }

  /** The scope of the class this class inherits from. */
  inheritedScope(): Scope | undefined {
    if (!this.isClass || !this.source || this.source.kind !== "class") return undefined;
    const parent = this.source.parent;
    if (parent === undefined) return undefined;
    return this.host.classScopes.get(parent);
  }

  enclosingScope(): Scope | undefined {
    const p = this.parent;
    if (!p) return undefined;
    if (p.isTop || p.isNode) return p;
    return p.enclosingScope();
  }

  /** Whether `$name` is bound in the table an assignment here would write. */
  isBound(name: string): boolean {
    return this.effectiveTable().vars.has(name);
  }

  private effectiveTable(): LocalTable {
    let t: Table | undefined = this.ephemeral[this.ephemeral.length - 1];
    while (t && !(t instanceof LocalTable)) t = t.parent;
    return t ?? this.symtable;
  }

  /** Assigns `$name`; throws a ScopeError with Puppet's message when already bound. */
  setVar(name: string, value: PValue): void {
    const table = this.effectiveTable();
    if (table.vars.has(name)) throw new ScopeError(`Cannot reassign variable '$${name}'`);
    table.vars.set(name, value);
    if (table === this.symtable) {
      if (this.isTop) this.host.qualifiedVariables.set(name, value);
      else if (this.source?.kind === "class")
        this.host.qualifiedVariables.set(`${this.source.name}::${name}`, value);
    }
  }

  /** The current ephemeral depth, to restore with `popTo`. */
  level(): number {
    return this.ephemeral.length;
  }
  popTo(level: number): void {
    this.ephemeral.length = level;
  }

  /** Pushes a table of lambda parameters. */
  pushLocal(vars: ReadonlyMap<string, PValue>): void {
    const t = new LocalTable(this.ephemeral[this.ephemeral.length - 1]);
    for (const [k, v] of vars) t.vars.set(k, v);
    this.ephemeral.push(t);
  }

  /** Records a successful regex match ($0..$n). */
  pushMatch(match: readonly (string | undefined)[]): void {
    this.ephemeral.push(new MatchTable(this.ephemeral[this.ephemeral.length - 1], match));
  }

  /** Runs `f` with only the scope's own table (Puppet's `with_global_scope`/no ephemerals). */
  withoutEphemerals<T>(f: () => T): T {
    const saved = this.ephemeral;
    this.ephemeral = [this.symtable];
    try {
      return f();
    } finally {
      this.ephemeral = saved;
    }
  }

  /** Resource defaults for `type` (capitalised) from this scope and its parents. */
  lookupDefaults(type: string): Map<string, ParamEntry> {
    if (!this.hasDefaults(type)) return NO_DEFAULTS;
    const result = this.parent ? new Map(this.parent.lookupDefaults(type)) : new Map<string, ParamEntry>();
    const mine = this.defaults.get(type);
    if (mine) for (const [k, v] of mine) result.set(k, v);
    return result;
  }

  private hasDefaults(type: string): boolean {
    for (let s: Scope | undefined = this; s; s = s.parent) if (s.defaults.has(type)) return true;
    return false;
  }

  /** The variables visible here as a plain map (for templates' `scope.to_hash`). */
  localNames(): string[] {
    return [...this.symtable.vars.keys()];
  }

  /** Puppet's `Scope(Class[main])` text for log messages. */
  toString(): string {
    return this.resource ? `Scope(${this.resource.ref})` : "Scope()";
  }
}
