/**
 * The evaluation context: classes and variables, and the stack of bundles
 * being evaluated.
 *
 * Classes are hard (discovered about the host, always in the default
 * namespace) or soft (defined by policy, per namespace, or local to the
 * bundle that defined them). Variables live in scopes `ns:bundle`; a classic
 * array entry `x[k]` is a variable of its own whose lval is `x[k]`.
 */
import { canonifyClassName, checkClassExpression } from "./class-expression.js";
import { type JsonValue, type Value, scalar } from "./values.js";
import { SPECIAL_SCOPES, type VarRef, lvalKey } from "./var-ref.js";

export const DEFAULT_NAMESPACE = "default";

/** One bundle (or body) being evaluated. */
export interface Frame {
  readonly ns: string;
  /** The bundle name, the scope of unqualified variables. */
  readonly scope: string;
  readonly localClasses: Set<string>;
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

export class EvalContext {
  /** The policy's bundles, set by whoever runs the policy (empty while loading). */
  policyBundles: readonly PolicyBundleInfo[] = [];
  /** Results of the functions 3.21 calls once per run (execresult, returnszero...), by arguments. */
  readonly functionCache = new Map<string, Value>();
  private readonly hard = new Set<string>();
  private readonly soft = new Map<string, Set<string>>();
  private readonly vars = new Map<string, Map<string, Value>>();
  private readonly stack: Frame[] = [];
  private readonly negated = new Set<string>();
  private readonly variableTags = new Map<string, readonly string[] | null>();
  private readonly classTags = new Map<string, readonly string[]>();

  // --- classes -----------------------------------------------------------

  /** Adds a hard class (canonified) unless it is negated. */
  defineHardClass(name: string): void {
    const canonical = canonifyClassName(name);
    if (!this.negated.has(canonical)) this.hard.add(canonical);
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
  defineClass(name: string, local = false): void {
    const { ns, bare } = this.splitClass(name);
    if (local && this.stack.length > 0) {
      this.currentFrame().localClasses.add(bare);
      return;
    }
    const set = this.soft.get(ns) ?? new Set<string>();
    this.soft.set(ns, set);
    set.add(bare);
  }

  undefineClass(name: string): void {
    const { ns, bare } = this.splitClass(name);
    this.soft.get(ns)?.delete(bare);
    this.stack.at(-1)?.localClasses.delete(bare);
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

  /** Evaluates a class expression; a malformed one counts as false. */
  checkExpression(expression: string): boolean {
    return checkClassExpression(expression, (n) => this.isClassDefined(n)) === true;
  }

  isHardClass(name: string): boolean {
    return this.hard.has(name);
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
    const frame: Frame = { ns, scope, localClasses: new Set(), thisVars };
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

  // --- tags --------------------------------------------------------------

  /**
   * Records all the tags of a variable, replacing those it has by default
   * (`source=promise`), as the module protocol does; null records that it
   * has no tag set at all (a module variable defined before any `^meta`).
   */
  setVariableTags(ref: VarRef, tags: readonly string[] | null): void {
    this.variableTags.set(`${this.scopeKey(ref)}.${lvalKey(ref.name, ref.indices)}`, tags);
  }

  /** The tags recorded for a variable: undefined when it has the default ones, null when none. */
  getVariableTags(ref: VarRef): readonly string[] | null | undefined {
    return this.variableTags.get(`${this.scopeKey(ref)}.${lvalKey(ref.name, ref.indices)}`);
  }

  /** Records all the tags of a class (replacing the default ones); the name may be `ns:`-qualified. */
  setClassTags(name: string, tags: readonly string[]): void {
    const { ns, bare } = this.splitClass(name);
    this.classTags.set(`${ns}:${bare}`, tags);
  }

  /** The tags recorded for a class; undefined when it has the default ones. */
  getClassTags(name: string): readonly string[] | undefined {
    const { ns, bare } = this.splitClass(name);
    return this.classTags.get(`${ns}:${bare}`);
  }

  /** The bundle frames being evaluated, outermost first. */
  frames(): readonly Frame[] {
    return this.stack;
  }

  // --- variables ---------------------------------------------------------

  /** Stores a variable; a reference without scope goes to the current bundle. */
  setVariable(ref: VarRef, value: Value): void {
    const key = this.scopeKey(ref);
    if (ref.scope === "this" && this.stack.length > 0) {
      this.currentFrame().thisVars.set(lvalKey(ref.name, ref.indices), value);
      return;
    }
    const table = this.vars.get(key) ?? new Map<string, Value>();
    this.vars.set(key, table);
    table.set(lvalKey(ref.name, ref.indices), value);
  }

  removeVariable(ref: VarRef): void {
    this.vars.get(this.scopeKey(ref))?.delete(lvalKey(ref.name, ref.indices));
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
    this.vars.delete(`${ns}:${scope}`);
  }

  /** All entries of a scope (`ns:bundle`), for array functions and listings. */
  scopeEntries(ns: string, scope: string): ReadonlyMap<string, Value> {
    return this.vars.get(`${ns}:${scope}`) ?? new Map();
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
    else if (at !== null && typeof at === "object") at = Object.hasOwn(at, index) ? at[index] : undefined;
    else return undefined;
    if (at === undefined) return undefined;
  }
  if (at !== null && typeof at === "object") return { type: "data", value: at };
  if (at === null || at === undefined) return undefined;
  return scalar(String(at));
}
