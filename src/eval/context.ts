/**
 * The evaluation context: classes and variables, and the stack of bundles
 * being evaluated.
 *
 * Classes are hard (discovered about the host, always in the default
 * namespace) or soft (defined by policy, per namespace, or local to the
 * bundle that defined them). Variables live in scopes `ns:bundle`; a classic
 * array entry `x[k]` is a variable of its own whose lval is `x[k]`.
 */
import { VariableTableSize, inGlobalTable } from "./variable-table-size.js";
import { CallStack } from "./call-stack.js";
import { canonifyClassName, evaluateClassExpression, parseClassExpression } from "./class-expression.js";
import { type JsonValue, type Value, primitiveToScalar, scalar, isJsonContainer } from "./values.js";
import { SPECIAL_SCOPES, type VarRef, lvalKey } from "./var-ref.js";
import type { AgentType } from "./hard-classes.js";

export const DEFAULT_NAMESPACE = "default";

/**
 * What 3.21 keeps with a variable or class besides its value: its tags (in
 * the order they were added, without duplicates, as cf-promises prints them)
 * and the promise's `comment`.
 */
export interface EntryMeta {
  /** Null for a variable with no tag set at all (a module's variable before any `^meta`). */
  readonly tags: readonly string[] | null;
  readonly comment?: string;
}

/** Tags of a variable stored without any: what a `vars` promise gives. */
const DEFAULT_VARIABLE_META: EntryMeta = { tags: ["source=promise"] };
const NO_META: EntryMeta = { tags: [] };

/** One bundle (or body) being evaluated. */
export interface Frame {
  readonly ns: string;
  /** The bundle name, the scope of unqualified variables. */
  readonly scope: string;
  readonly localClasses: Set<string>;
  /** Tags and comments of local classes that have any. */
  readonly localClassMeta: Map<string, EntryMeta>;
  /** `this.*` variables: promise_filename, promise_dirname, bundle... */
  readonly thisVars: Map<string, Value>;
}

/** A bundle of the policy as functions such as `bundlesmatching` see it. */
export interface PolicyBundleInfo {
  /** `ns:name`. */
  readonly name: string;
  /** The `tags` of its `meta` promises. */
  readonly tags: readonly string[];
}

/** The scope part of an `ns:scope` key. */
function scopeOfKey(key: string): string {
  return key.slice(key.indexOf(":") + 1);
}

export class EvalContext {
  /** Bundle, section, promise and iteration frames, for `callstack_callers()`. */
  readonly callStack = new CallStack();
  /** The policy's bundles, set by whoever runs the policy (empty while loading). */
  policyBundles: readonly PolicyBundleInfo[] = [];
  /** Results of the functions 3.21 calls once per run (execresult, returnszero...), by arguments. */
  readonly functionCache = new Map<string, Value>();
  /**
   * `cache_system_functions` of body common control (read once the policy
   * is loaded, as 3.21 does): off, those functions run at every call.
   */
  cacheSystemFunctions = true;
  /** The program evaluating: cf-agent, or cf-promises (`common`); some functions' messages differ. */
  agentType: AgentType = "common";
  /**
   * 3.21's host address (VIPADDRESS) when `sys.ipv4` is not set (no
   * interface but loopback): the fqhost's address as the resolver gives
   * it. It seeds select_class and the splay, with the fqhost.
   */
  resolvedAddress = "";
  /**
   * `package_inventory` of body common control: the package modules whose
   * inventories packagesmatching() reads (none: the package_method one).
   */
  packageInventory: readonly string[] = [];
  /**
   * The directory cf-agent would be in: it changes into the directory of
   * each file a files promise names (without a depth search) and stays
   * there, so later relative paths (`filesexist()`) are read from it.
   * Undefined: the process's own.
   */
  workingDirectory: string | undefined;
  /**
   * `--simulate`: functions with side effects (execresult, returnszero,
   * usemodule...) are not called, except for promises tagged
   * `simulate_safe` (see `ExpandOptions.simulateSafe`), as in 3.21.
   */
  skipUnsafeFunctions = false;
  private readonly hard = new Set<string>();
  private readonly soft = new Map<string, Set<string>>();
  private readonly vars = new Map<string, Map<string, Value>>();
  /** The bucket count 3.21's variable table would have (the order functions list variables in). */
  readonly tableSize = new VariableTableSize();
  private readonly stack: Frame[] = [];
  private readonly negated = new Set<string>();
  /** Tags and comment per variable, by `ns:scope` then lval; absent means DEFAULT_VARIABLE_META. */
  private readonly variableMeta = new Map<string, Map<string, EntryMeta>>();
  /** Tags and comment per global class (`ns:name`); absent means none. */
  private readonly classMeta = new Map<string, EntryMeta>();

  // --- classes -----------------------------------------------------------

  /**
   * Adds a hard class (canonified) unless it is negated. As in 3.21 its tags
   * end with `hardclass`, and a class already defined keeps its first tags.
   */
  defineHardClass(name: string, tags: readonly string[] = ["source=agent"]): void {
    const canonical = canonifyClassName(name);
    if (this.negated.has(canonical) || this.hard.has(canonical)) return;
    this.hard.add(canonical);
    this.classMeta.set(`${DEFAULT_NAMESPACE}:${canonical}`, { tags: uniqueTags([...tags, "hardclass"]) });
  }

  /**
   * Negates a class (`-N`): it is removed if defined and can no longer be
   * discovered as a hard class. As in 3.21, policy may still define it.
   */
  negateClass(name: string): void {
    const canonical = canonifyClassName(name);
    this.negated.add(canonical);
    this.hard.delete(canonical);
    for (const set of this.soft.values()) set.delete(canonical);
  }

  /**
   * Adds a soft class; `ns:name` picks its namespace, otherwise the current
   * one. `local` puts it in the current bundle frame instead.
   */
  defineClass(name: string, local = false, meta: EntryMeta = NO_META): void {
    const { ns, bare } = this.splitClass(name);
    const tagged = (meta.tags?.length ?? 0) > 0 || meta.comment !== undefined;
    if (local && this.stack.length > 0) {
      const frame = this.currentFrame();
      // As in 3.21, a class defined again keeps the tags it was first given.
      if (tagged && !frame.localClasses.has(bare)) frame.localClassMeta.set(bare, normalizeMeta(meta));
      frame.localClasses.add(bare);
      return;
    }
    const set = this.soft.get(ns) ?? new Set<string>();
    this.soft.set(ns, set);
    if (set.has(bare)) return;
    set.add(bare);
    if (tagged) this.classMeta.set(`${ns}:${bare}`, normalizeMeta(meta));
    else this.classMeta.delete(`${ns}:${bare}`);
  }

  undefineClass(name: string): void {
    const { ns, bare } = this.splitClass(name);
    if (this.soft.get(ns)?.delete(bare)) this.classMeta.delete(`${ns}:${bare}`);
    this.stack.at(-1)?.localClasses.delete(bare);
    this.stack.at(-1)?.localClassMeta.delete(bare);
  }

  private splitClass(name: string): { ns: string; bare: string } {
    const canonical = canonifyClassName(name);
    const colon = canonical.indexOf(":");
    if (colon > 0) return { ns: canonical.slice(0, colon), bare: canonical.slice(colon + 1) };
    return { ns: this.currentNamespace(), bare: canonical };
  }

  /** Whether one class name (maybe `ns:`-qualified) is defined here. */
  isClassDefined(name: string): boolean {
    if (name === "any") return true;
    const colon = name.indexOf(":");
    if (colon > 0) {
      const ns = name.slice(0, colon);
      const bare = name.slice(colon + 1);
      if (ns === DEFAULT_NAMESPACE && this.hard.has(bare)) return true;
      const frame = this.stack.at(-1);
      // A bundle's own classes are kept unqualified, in the bundle's namespace.
      if (frame?.localClasses.has(name) || (frame?.ns === ns && frame.localClasses.has(bare))) return true;
      return this.soft.get(ns)?.has(bare) === true || bare === "any";
    }
    if (this.hard.has(name)) return true;
    if (this.soft.get(this.currentNamespace())?.has(name)) return true;
    return this.stack.at(-1)?.localClasses.has(name) === true;
  }

  /**
   * Where evaluation reports problems it goes on after (a malformed class
   * expression, a classes promise that cannot select): the agent logs them
   * as 3.21 does. Until one is set, they are kept (bounded) for `takeNotes`.
   */
  private noteSink?: (level: "error" | "verbose", message: string) => void;
  private readonly pendingNotes: { level: "error" | "verbose"; message: string }[] = [];

  /** Reports a problem evaluation goes on after (see `setNoteSink`). */
  note(level: "error" | "verbose", message: string): void {
    if (this.noteSink) this.noteSink(level, message);
    else if (this.pendingNotes.length < 1000) this.pendingNotes.push({ level, message });
  }

  /** Routes notes to `sink`, first handing it those kept so far. */
  setNoteSink(sink: (level: "error" | "verbose", message: string) => void): void {
    for (const { level, message } of this.pendingNotes.splice(0)) sink(level, message);
    this.noteSink = sink;
  }

  /** Evaluates a class expression; an error (see `classExpressionValue`) counts as false. */
  checkExpression(expression: string): boolean {
    return this.classExpressionValue(expression) === true;
  }

  /**
   * A class expression's value as 3.21 computes it: undefined (an error)
   * when it holds an unresolved `$(x)` (silently) or cannot be parsed at all
   * (reported). Like 3.21, an expression with trailing junk is read as far
   * as it parses (`my-host` is `my`).
   */
  classExpressionValue(expression: string): boolean | undefined {
    if (expression.includes("$(") || expression.includes("${")) return undefined;
    const isDefined = (name: string) => this.isClassDefined(name);
    const parsed = parseClassExpression(expression);
    if (parsed.ok) return evaluateClassExpression(parsed.expression, isDefined);
    const gap = /[A-Za-z0-9_][ \t]+[A-Za-z0-9_]/.test(expression);
    if (!gap && parsed.offset > 0) {
      const prefix = parseClassExpression(expression.replace(/[ \t\n\r]/g, "").slice(0, parsed.offset));
      if (prefix.ok) return evaluateClassExpression(prefix.expression, isDefined);
    }
    this.note(
      "error",
      gap
        ? `class expressions can't be separated by whitespace without an intervening operator in expression '${expression}'`
        : `Unable to parse class expression '${expression}'`,
    );
    return undefined;
  }

  isHardClass(name: string): boolean {
    return this.hard.has(name);
  }

  /**
   * Replaces the time classes (the hard classes tagged `time_based`) with
   * those of a later moment, for daemons that evaluate the same policy
   * again as time passes.
   */
  replaceTimeClasses(classes: readonly string[], tags: readonly string[]): void {
    for (const name of [...this.hard]) {
      const meta = this.classMeta.get(`${DEFAULT_NAMESPACE}:${name}`);
      if (!meta?.tags?.includes("time_based")) continue;
      this.hard.delete(name);
      this.classMeta.delete(`${DEFAULT_NAMESPACE}:${name}`);
    }
    for (const name of classes) this.defineHardClass(name, tags);
  }

  /**
   * Every global class (hard, then soft) as `[namespace, name]`: what
   * cf-promises --show-classes lists.
   */
  *globalClasses(): Generator<[string, string]> {
    for (const name of this.hard) yield [DEFAULT_NAMESPACE, name];
    for (const [ns, set] of this.soft) {
      for (const name of set) if (!(ns === DEFAULT_NAMESPACE && this.hard.has(name))) yield [ns, name];
    }
  }

  /** Every defined class, qualified with its namespace unless default. */
  listClasses(): string[] {
    const out = [...this.hard];
    for (const [ns, set] of this.soft) {
      for (const name of set) out.push(ns === DEFAULT_NAMESPACE ? name : `${ns}:${name}`);
    }
    for (const name of this.stack.at(-1)?.localClasses ?? []) out.push(name);
    return out;
  }

  // --- frames ------------------------------------------------------------

  pushFrame(ns: string, scope: string, thisVars: Map<string, Value> = new Map()): Frame {
    const frame: Frame = { ns, scope, localClasses: new Set(), localClassMeta: new Map(), thisVars };
    thisVars.set("bundle", scalar(scope));
    thisVars.set("namespace", scalar(ns));
    this.stack.push(frame);
    return frame;
  }

  popFrame(): void {
    this.stack.pop();
  }

  currentFrame(): Frame {
    const frame = this.stack.at(-1);
    if (!frame) throw new Error("no bundle is being evaluated");
    return frame;
  }

  /** The innermost frame, or null outside any bundle. */
  currentFrameOrNull(): Frame | null {
    return this.stack.at(-1) ?? null;
  }

  currentNamespace(): string {
    return this.stack.at(-1)?.ns ?? DEFAULT_NAMESPACE;
  }

  // --- tags ---------------------------------------------------------------

  /** Replaces a variable's tags and comment (the variable itself is unchanged). */
  setVariableMeta(ref: VarRef, meta: EntryMeta): void {
    const key = this.scopeKey(ref);
    const table = this.variableMeta.get(key) ?? new Map<string, EntryMeta>();
    this.variableMeta.set(key, table);
    table.set(lvalKey(ref.name, ref.indices), normalizeMeta(meta));
  }

  /** Adds tags to a variable's own. */
  setVariableTags(ref: VarRef, tags: readonly string[]): void {
    const meta = this.getVariableMeta(ref);
    this.setVariableMeta(ref, { ...meta, tags: [...(meta.tags ?? []), ...tags] });
  }

  /** A variable's tags and comment; `source=promise` when it was stored without any. */
  getVariableMeta(ref: VarRef): EntryMeta {
    if (ref.scope === "this") return DEFAULT_VARIABLE_META;
    return (
      this.variableMeta.get(this.scopeKey(ref))?.get(lvalKey(ref.name, ref.indices)) ?? DEFAULT_VARIABLE_META
    );
  }

  /** The tags and comment of an entry as `allVariables()` lists it (`ns:scope`, lval). */
  scopeVariableMeta(scope: string, lval: string): EntryMeta {
    return this.variableMeta.get(scope)?.get(lval) ?? DEFAULT_VARIABLE_META;
  }

  /** A variable's tags; null when it has no tag set. */
  getVariableTags(ref: VarRef): readonly string[] | null {
    return this.getVariableMeta(ref).tags;
  }

  /** Adds tags to a defined class's own; the name may be `ns:`-qualified. */
  setClassTags(name: string, tags: readonly string[]): void {
    const meta = this.getClassMeta(name);
    const merged = normalizeMeta({ ...meta, tags: [...(meta.tags ?? []), ...tags] });
    const where = this.classMetaKey(name);
    if (where.local) this.currentFrame().localClassMeta.set(where.key, merged);
    else this.classMeta.set(where.key, merged);
  }

  /** A class's tags and comment (none for classes defined by `classes` bodies, as in 3.21). */
  getClassMeta(name: string): EntryMeta {
    const where = this.classMetaKey(name);
    const table = where.local ? this.currentFrame().localClassMeta : this.classMeta;
    return table.get(where.key) ?? NO_META;
  }

  /** Where a class's meta is kept: the current frame (local class) or the global table. */
  private classMetaKey(name: string): { local: boolean; key: string } {
    const { ns, bare } = this.splitClass(name);
    const qualified = name.includes(":");
    if (!qualified && this.stack.at(-1)?.localClasses.has(bare)) return { local: true, key: bare };
    if (this.hard.has(bare) && (!qualified || ns === DEFAULT_NAMESPACE))
      return { local: false, key: `${DEFAULT_NAMESPACE}:${bare}` };
    return { local: false, key: `${ns}:${bare}` };
  }

  getClassTags(name: string): readonly string[] {
    return this.getClassMeta(name).tags ?? [];
  }

  /** The bundle frames being evaluated, outermost first. */
  frames(): readonly Frame[] {
    return this.stack;
  }

  // --- variables ---------------------------------------------------------

  /**
   * Stores a variable; a reference without scope goes to the current
   * bundle. As in 3.21, storing replaces the tags and comment too: without
   * `meta` the variable has those of a `vars` promise (`source=promise`).
   */
  setVariable(ref: VarRef, value: Value, meta?: EntryMeta): void {
    const key = this.scopeKey(ref);
    const lval = lvalKey(ref.name, ref.indices);
    if (ref.scope === "this" && this.stack.length > 0) {
      this.currentFrame().thisVars.set(lval, value);
      return;
    }
    const table = this.vars.get(key) ?? new Map<string, Value>();
    this.vars.set(key, table);
    if (!table.has(lval) && inGlobalTable(scopeOfKey(key))) this.tableSize.added();
    table.set(lval, value);
    if (meta) this.setVariableMeta(ref, meta);
    else this.variableMeta.get(key)?.delete(lval);
  }

  removeVariable(ref: VarRef): void {
    const key = this.scopeKey(ref);
    const lval = lvalKey(ref.name, ref.indices);
    if (this.vars.get(key)?.delete(lval) && inGlobalTable(scopeOfKey(key))) this.tableSize.removed();
    this.variableMeta.get(key)?.delete(lval);
  }

  /**
   * Looks a reference up: first the exact entry (`x[a][b]` as a classic
   * array entry), then the longest defined prefix indexed as data.
   */
  getVariable(ref: VarRef): Value | undefined {
    // As in 3.21, an unqualified name is first looked up among the promise's
    // own `this.*` variables (`$(with)`, `$(promiser)`), then in the bundle.
    if (ref.scope === null && ref.ns === null && ref.indices.length === 0) {
      const own = this.stack.at(-1)?.thisVars.get(ref.name);
      if (own && ref.name !== "bundle" && ref.name !== "namespace") return own;
    }
    const found = this.lookUp(ref);
    if (found || ref.scope !== "this") return found;
    const identity = ref.indices.length === 0 ? agentIdentity(ref.name) : undefined;
    if (identity !== undefined && this.stack.length > 0) return scalar(identity, "int");
    // As in 3.21, `this.x` that is not a promise's own variable is the bundle's `x`.
    const frame = this.stack.at(-1);
    return frame ? this.lookUp({ ...ref, ns: frame.ns, scope: frame.scope }) : undefined;
  }

  private lookUp(ref: VarRef): Value | undefined {
    const table = this.tableFor(ref);
    if (!table) return undefined;
    const exact = table.get(lvalKey(ref.name, ref.indices));
    if (exact || ref.indices.length === 0) return exact;
    for (let n = ref.indices.length - 1; n >= 0; n--) {
      const base = table.get(lvalKey(ref.name, ref.indices.slice(0, n)));
      if (base?.type === "data") return indexJson(base.value, ref.indices.slice(n));
      if (base) return undefined;
    }
    return undefined;
  }

  private tableFor(ref: VarRef): ReadonlyMap<string, Value> | undefined {
    if (ref.scope === "this") return this.stack.at(-1)?.thisVars;
    return this.vars.get(this.scopeKey(ref));
  }

  /** Forgets every variable of a scope (`ns:bundle`). */
  clearScope(ns: string, scope: string): void {
    const cleared = this.vars.get(`${ns}:${scope}`)?.size ?? 0;
    if (inGlobalTable(scope)) this.tableSize.removed(cleared);
    this.vars.delete(`${ns}:${scope}`);
    this.variableMeta.delete(`${ns}:${scope}`);
  }

  /** All entries of a scope (`ns:bundle`), for array functions and listings. */
  scopeEntries(ns: string, scope: string): ReadonlyMap<string, Value> {
    return this.vars.get(`${ns}:${scope}`) ?? new Map();
  }

  /** Every scope's variables, by `ns:scope` then lval, in the order of allVariables(). */
  variableTables(): ReadonlyMap<string, ReadonlyMap<string, Value>> {
    return this.vars;
  }

  /** Every variable as `[ns:scope, lval, value]`. */
  *allVariables(): Generator<[string, string, Value]> {
    for (const [scope, table] of this.vars) {
      for (const [lval, value] of table) yield [scope, lval, value];
    }
  }

  /** The `ns:scope` a reference points into, resolved from the current frame. */
  scopeKey(ref: VarRef): string {
    const scope = ref.scope ?? this.stack.at(-1)?.scope ?? "this";
    if (SPECIAL_SCOPES.has(scope)) return `${DEFAULT_NAMESPACE}:${scope}`;
    const ns = ref.ns ?? this.currentNamespace();
    return `${ns}:${scope}`;
  }
}

function indexJson(json: JsonValue, indices: readonly string[]): Value | undefined {
  let at: JsonValue | undefined = json;
  for (const index of indices) {
    if (Array.isArray(at)) at = /^\d+$/.test(index) ? at[Number(index)] : undefined;
    else if (isJsonContainer(at)) at = Object.hasOwn(at, index) ? at[index] : undefined;
    else return undefined;
    if (at === undefined) return undefined;
  }
  if (isJsonContainer(at)) return { type: "data", value: at };
  if (at === null || at === undefined) return undefined;
  return scalar(primitiveToScalar(at) ?? "");
}

/** Tags without duplicates, first occurrence kept (3.21's small string sets keep insertion order). */
function uniqueTags(tags: readonly string[]): string[] {
  return [...new Set(tags)];
}

function normalizeMeta(meta: EntryMeta): EntryMeta {
  const tags = meta.tags === null ? null : uniqueTags(meta.tags);
  return meta.comment === undefined ? { tags } : { tags, comment: meta.comment };
}

/** `this.promiser_uid`, `_gid`, `_pid`, `_ppid`: the agent's own, in every promise (as 3.21). */
function agentIdentity(name: string): string | undefined {
  switch (name) {
    case "promiser_uid":
      return String(process.getuid?.() ?? 0);
    case "promiser_gid":
      return String(process.getgid?.() ?? 0);
    case "promiser_pid":
      return String(process.pid);
    case "promiser_ppid":
      return String(process.ppid);
    default:
      return undefined;
  }
}
