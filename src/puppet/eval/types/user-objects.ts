/**
 * User-defined Object types and TypeSets (`type Car = Object[{attributes =>
 * {...}}]`, `TypeSet[{types => {...}}]`) and their instances, as Puppet 7's
 * PObjectType, PTypeSetType and generated implementation classes behave:
 * attributes (given, defaulted, constant, derived, reference), `parent`
 * inheritance, `equality`, `new` by position or by hash with Puppet's
 * messages, the string forms, and annotations (`annotate`).
 */
import {
  DEFAULT,
  equals as pEquals,
  hashKey,
  isHash,
  isType,
  PDeferred,
  PHash,
  PObject,
  PRegexp,
  type PValue,
} from "../values.js";
import { type PType, type RecursionGuard, TypeSystemError } from "./base.js";
import { inferType } from "./infer.js";
import { describeMismatch } from "./mismatch.js";
import {
  PAnyType,
  PCallableType,
  PHashType,
  PObjectType,
  PPatternType,
  PRegexpType,
  POptionalType,
  PStringType,
  PStructElement,
  PStructType,
  PTypeAliasType,
  PTypeReferenceType,
  PTypeType,
  setAliasPrinter,
} from "./model.js";
import { formatTypeArg, puppetQuote } from "./quote.js";

export type AttributeKind = "constant" | "derived" | "given_or_derived" | "reference";

export interface ObjectAttribute {
  readonly name: string;
  readonly type: PType;
  readonly kind?: AttributeKind;
  /** Whether a default `value` was given (an Optional type without one defaults to undef). */
  readonly hasValue: boolean;
  readonly value: PValue;
  readonly final: boolean;
  readonly override: boolean;
  /** The attribute was given as a bare type (printed as such). */
  readonly bare: boolean;
  /** Declared through `constants`. */
  readonly constant: boolean;
}

/** While an Object type prints its definition, nested Object types print by name. */
let printing = 0;

function resolve(t: PType | undefined): PType | undefined {
  let r = t;
  while (r instanceof PTypeAliasType) r = r.resolvedType();
  return r;
}

function errorOf(message: string): TypeSystemError {
  return new TypeSystemError(message);
}

/** A user-defined Object type. */
export class PUserObjectType extends PObjectType {
  /** The TypeSet defining this type, and its name there. */
  typeSet?: PTypeSetType;
  localName?: string;
  /** The names of a TypeSet's other types this type's parent may refer to. */
  #parentResolved?: PUserObjectType | null;
  #initStruct?: PStructType;
  /** Annotations attached with `annotate` (annotation type → instance). */
  annotations?: Map<PUserObjectType, PUserObject>;
  #params?: { names: string[]; types: PType[]; required: number };

  constructor(
    name: string | undefined,
    readonly parentType: PType | undefined,
    readonly ownAttributes: ReadonlyMap<string, ObjectAttribute>,
    readonly ownFunctions: ReadonlyMap<string, PType>,
    readonly equality: readonly string[] | undefined,
    readonly equalityIncludeType: boolean,
    readonly declaredAnnotations: PHash | undefined,
    readonly checks: PValue,
    /** Functions declared `final` or `override` (their hash form). */
    readonly functionFlags: ReadonlyMap<string, { final: boolean; override: boolean }> = new Map(),
    /** `type_parameters`: what `T[...]` may constrain, by name. */
    readonly ownTypeParameters: ReadonlyMap<string, PType> = new Map(),
  ) {
    super(name);
  }

  /** Every type parameter, the parent's first. */
  typeParameters(): Map<string, PType> {
    const all = this.parentObject()?.typeParameters() ?? new Map<string, PType>();
    for (const [k, t] of this.ownTypeParameters) all.set(k, t);
    return all;
  }

  /**
   * The checks Puppet makes when it resolves the type by name (so its
   * messages name it): a function overriding an inherited one must say
   * `override => true`.
   */
  validate(): void {
    if (!this.parentReady()) return;
    const parent = this.parentObject();
    if (!parent) return;
    const inherited = parent.allAttributes();
    for (const name of this.ownAttributes.keys()) {
      if (!inherited.get(name)?.final) continue;
      const owner = parent.attributeOwner(name) ?? parent;
      throw errorOf(
        `attribute ${this.label}[${name}] attempts to override final attribute ${owner.label}[${name}]`,
      );
    }
    const parentEquality = parent.equalityAttributes();
    for (const name of this.equality ?? []) {
      if (!parentEquality.includes(name)) continue;
      const owner = parent.attributeOwner(name) ?? parent;
      throw errorOf(
        `${this.label} equality is referencing attribute ${owner.label}[${name}] which is included in equality of ${owner.label}`,
      );
    }
    for (const [name, t] of this.ownFunctions) {
      const inherited = parent.member(name);
      if (inherited === undefined || !isType(inherited)) continue;
      if (this.functionFlags.get(name)?.override !== true) {
        const owner = parent.functionOwner(name) ?? parent;
        throw errorOf(
          `function ${this.label}[${name}] attempts to override function ${owner.label}[${name}] without having override => true`,
        );
      }
      void t;
    }
  }

  /**
   * Whether the chain of parents can be followed: not when an ancestor is
   * an alias still being resolved (a type named in the definition of its
   * own ancestor: Puppet sees that ancestor without members yet). A chain
   * leading back to this type is an error, as Puppet reports it.
   */
  private parentReady(): boolean {
    const seen = new Set<PType>();
    let t: PUserObjectType = this;
    let p = this.parentType;
    while (p !== undefined) {
      if (p instanceof PTypeReferenceType && t.typeSet) p = t.typeSet.localType(p.typeString) ?? p;
      if (p instanceof PTypeAliasType) {
        if (!p.resolving) {
          p = p.resolvedType();
          continue;
        }
        if (p.aliasName !== this.typeName) return false;
        p = this;
      }
      if (p === this) throw errorOf(`The Object type '${this.label}' inherits from itself`);
      if (!(p instanceof PUserObjectType) || seen.has(p)) return true;
      seen.add(p);
      t = p;
      p = p.parentType;
    }
    return true;
  }

  /** The Object type (this or an ancestor) declaring attribute `name`. */
  attributeOwner(name: string): PUserObjectType | undefined {
    if (this.ownAttributes.has(name)) return this;
    return this.parentObject()?.attributeOwner(name);
  }

  /** The Object type (this or an ancestor) declaring function `name`. */
  functionOwner(name: string): PUserObjectType | undefined {
    if (this.ownFunctions.has(name)) return this;
    return this.parentObject()?.functionOwner(name);
  }

  /** Gives a type alias's name to the Object type it defines. */
  assignName(name: string): void {
    (this as { typeName?: string }).typeName = name;
  }

  get label(): string {
    return this.typeName ?? "Object";
  }

  /** The resolved parent Object type, if any. */
  parentObject(): PUserObjectType | undefined {
    if (this.#parentResolved === undefined) {
      let p = this.parentType;
      if (p instanceof PTypeReferenceType && this.typeSet) p = this.typeSet.localType(p.typeString) ?? p;
      const r = resolve(p);
      if (r instanceof PTypeReferenceType) throw errorOf(`reference to unresolved type '${r.typeString}'`);
      this.#parentResolved = r instanceof PUserObjectType ? r : null;
    }
    return this.#parentResolved ?? undefined;
  }

  /** Every attribute, the parent's first. */
  allAttributes(): Map<string, ObjectAttribute> {
    const all = this.parentObject()?.allAttributes() ?? new Map<string, ObjectAttribute>();
    for (const [k, a] of this.ownAttributes) all.set(k, a);
    return all;
  }

  member(name: string): ObjectAttribute | PType | undefined {
    return this.ownAttributes.get(name) ?? this.ownFunctions.get(name) ?? this.parentObject()?.member(name);
  }

  equalityAttributes(): string[] {
    const out = this.parentObject()?.equalityAttributes() ?? [];
    if (this.equality === undefined) {
      for (const a of this.ownAttributes.values()) if (a.kind !== "constant") out.push(a.name);
    } else out.push(...this.equality);
    return out;
  }

  isAnnotation(): boolean {
    for (let t: PUserObjectType | undefined = this; t; t = t.parentObject())
      if (t === ANNOTATION_TYPE) return true;
    return false;
  }

  /** The attributes `new` takes: required first, then those with defaults (Puppet's parameter_info). */
  parameterInfo(): { names: string[]; types: PType[]; required: number } {
    if (!this.#params) {
      const req: ObjectAttribute[] = [];
      const opt: ObjectAttribute[] = [];
      for (const a of this.allAttributes().values()) {
        if (a.kind === "constant" || a.kind === "derived") continue;
        (optionalAttribute(a) ? opt : req).push(a);
      }
      const all = [...req, ...opt];
      this.#params = { names: all.map((a) => a.name), types: all.map((a) => a.type), required: req.length };
    }
    return this.#params;
  }

  initStruct(): PStructType {
    if (!this.#initStruct) {
      const elems: PStructElement[] = [];
      for (const a of this.allAttributes().values()) {
        if (a.kind === "constant" || a.kind === "derived") continue;
        const key = new PStringType(undefined, a.name);
        elems.push(new PStructElement(optionalAttribute(a) ? new POptionalType(key) : key, a.type));
      }
      this.#initStruct = new PStructType(elems);
    }
    return this.#initStruct;
  }

  /** The name instances print with (`MyTS::Car` inside a TypeSet). */
  get instanceName(): string {
    if (this.typeSet && this.localName) return `${this.typeSet.label}::${this.localName}`;
    return this.label;
  }

  override isInstance(v: PValue): boolean {
    return v instanceof PUserObject && this.isAssignable(v.type);
  }
  protected override assignableFrom(o: PType, _guard?: RecursionGuard): boolean {
    const from = o instanceof PParameterizedObjectType ? o.base : o;
    for (
      let t: PType | undefined = from;
      t;
      t = t instanceof PUserObjectType ? t.parentObject() : undefined
    ) {
      if (t === this || (t instanceof PUserObjectType && this.equals(t))) return true;
    }
    return false;
  }
  override equals(other: PType): boolean {
    if (other === this) return true;
    if (other instanceof PTypeAliasType) {
      const r = aliasedObject(other);
      return r !== undefined && this.equals(r);
    }
    if (!(other instanceof PUserObjectType)) return false;
    if (this.typeName !== other.typeName) return false;
    return this.definition(true) === other.definition(true);
  }

  /** The init hash form: `{name => 'Car', parent => Vehicle, attributes => {...}}` (inside `Object[...]`). */
  definition(includeName: boolean): string {
    printing++;
    try {
      const parts: string[] = [];
      if (includeName && this.typeName !== undefined && !this.typeSet)
        parts.push(`name => ${puppetQuote(this.typeName)}`);
      if (this.parentType) parts.push(`parent => ${typeLabel(this.parentType)}`);
      if (this.ownTypeParameters.size > 0)
        parts.push(
          `type_parameters => {${[...this.ownTypeParameters].map(([k, t]) => `${puppetQuote(k)} => ${typeLabel(t)}`).join(", ")}}`,
        );
      const attrs: string[] = [];
      const consts: string[] = [];
      for (const a of this.ownAttributes.values()) {
        // Puppet prints every constant (declared either way) under `constants`.
        if (a.constant || a.kind === "constant") {
          consts.push(`${puppetQuote(a.name)} => ${formatTypeArg(a.value)}`);
          continue;
        }
        const fields: string[] = [`type => ${typeLabel(a.type)}`];
        if (a.final) fields.push("final => true");
        if (a.override) fields.push("override => true");
        if (a.kind) fields.push(`kind => ${a.kind}`);
        if (a.hasValue && !(a.bare && a.value === undefined))
          fields.push(`value => ${formatTypeArg(a.value)}`);
        attrs.push(
          `${puppetQuote(a.name)} => ${fields.length === 1 || (a.bare && fields.length <= 2 && a.value === undefined) ? typeLabel(a.type) : `{${fields.join(", ")}}`}`,
        );
      }
      if (attrs.length > 0) parts.push(`attributes => {${attrs.join(", ")}}`);
      if (consts.length > 0) parts.push(`constants => {${consts.join(", ")}}`);
      if (this.ownFunctions.size > 0)
        parts.push(
          `functions => {${[...this.ownFunctions]
            .map(([k, t]) => {
              const flags = this.functionFlags.get(k);
              const extra = [
                ...(flags?.final ? ["final => true"] : []),
                ...(flags?.override ? ["override => true"] : []),
              ];
              const text =
                extra.length === 0 ? typeLabel(t) : `{${[`type => ${typeLabel(t)}`, ...extra].join(", ")}}`;
              return `${puppetQuote(k)} => ${text}`;
            })
            .join(", ")}}`,
        );
      if (this.equality !== undefined)
        parts.push(`equality => [${this.equality.map(puppetQuote).join(", ")}]`);
      if (this.checks !== undefined) parts.push(`checks => ${formatTypeArg(this.checks)}`);
      return `{${parts.join(", ")}}`;
    } finally {
      printing--;
    }
  }

  override toString(): string {
    if (printing > 0) return this.typeSet && this.localName ? this.localName : this.label;
    return `Object[${this.definition(true)}]`;
  }
}

/** An attribute `new` may leave out: it has a default, or its type accepts undef. */
function optionalAttribute(a: ObjectAttribute): boolean {
  if (a.hasValue) return true;
  try {
    return a.type.isInstance(undefined);
  } catch {
    return false;
  }
}

/** A type as a definition prints it: aliases and Object types by name. */
function typeLabel(t: PType): string {
  if (t instanceof PTypeAliasType) return t.aliasName;
  if (t instanceof PTypeReferenceType) return t.typeString;
  return t.toString();
}

/** Whether a type alias stands for the Object type of the same name (it then prints as that type). */
export function aliasedObject(t: PTypeAliasType): PUserObjectType | undefined {
  if (printing > 0) return undefined;
  try {
    const r = t.resolvedType();
    return r instanceof PUserObjectType && r.typeName === t.aliasName ? r : undefined;
  } catch {
    return undefined;
  }
}

setAliasPrinter((t) => {
  if (printing > 0) return undefined;
  const o = aliasedObject(t);
  if (o) return o.toString();
  try {
    const r = t.resolvedType();
    return r instanceof PTypeSetType && r.typeSetName === t.aliasName ? r.toString() : undefined;
  } catch {
    return undefined;
  }
});

/** An instance of a user-defined Object type. */
export class PUserObject extends PObject {
  readonly typeName: string;
  /** Annotations attached with `annotate` (annotation type → instance). */
  annotations?: Map<PUserObjectType, PUserObject>;
  constructor(
    readonly type: PUserObjectType,
    /** Every attribute's value, defaults filled in. */
    readonly values: ReadonlyMap<string, PValue>,
  ) {
    super();
    this.typeName = type.instanceName;
  }
  get(name: string): PValue {
    return this.values.get(name);
  }
  /** The type `type()` gives: parameterized by the attribute values when the type has type_parameters. */
  inferredType(): PType {
    const params = this.type.typeParameters();
    if (params.size === 0) return this.type;
    const attrs = this.type.allAttributes();
    return parameterizeObject(
      this.type,
      [...params.keys()].map((n) => (attrs.has(n) ? this.values.get(n) : undefined)),
    ) as PType;
  }
  /** The init hash: attributes whose value is not their default (Puppet's extract_init_hash). */
  initHash(): PHash {
    const h = new PHash();
    for (const a of this.type.allAttributes().values()) {
      if (a.kind === "constant" || a.kind === "derived") continue;
      const v = this.values.get(a.name);
      if (a.hasValue && pEquals(v, a.value)) continue;
      h.set(a.name, v);
    }
    return h;
  }
  toString(): string {
    return `${this.type.instanceName}(${formatTypeArg(this.initHash())})`;
  }
  equals(other: PValue): boolean {
    if (!(other instanceof PUserObject)) return false;
    if (other === this) return true;
    if (this.type.equalityIncludeType && !(this.type.equals(other.type) || other.type === this.type))
      return false;
    for (const k of this.type.equalityAttributes())
      if (!pEquals(this.values.get(k), other.values.get(k))) return false;
    return true;
  }
  hashKey(): string {
    const keys = this.type.equalityAttributes().map((k) => String(hashKey(this.values.get(k) ?? "")));
    return `${this.type.instanceName}(${keys.join(",")})`;
  }
}

/* ------------------------------------------------------------ TypeSet */

export class PTypeSetType extends PAnyType {
  readonly types = new Map<string, PType>();
  constructor(
    public typeSetName: string | undefined,
    readonly init: PHash,
  ) {
    super();
    const types = init.get("types");
    if (isHash(types)) {
      for (const [key, t] of types) {
        // Inside a TypeSet, `Car => ...` is a reference to the name being defined.
        const k = key instanceof PTypeReferenceType ? key.typeString : key;
        if (typeof k !== "string" || !isType(t)) continue;
        this.types.set(k, t);
        if (t instanceof PUserObjectType && !t.typeSet) {
          t.typeSet = this;
          t.localName = k;
        }
      }
    }
  }
  get label(): string {
    return this.typeSetName ?? "TypeSet";
  }
  override get name(): string {
    return "TypeSet";
  }
  override get kind(): string {
    return "TypeSet";
  }
  /** Whether the TypeSet names other TypeSets it refers to (`references`). */
  hasReferences(): boolean {
    const refs = this.init.get("references");
    return isHash(refs) && refs.size > 0;
  }
  /** Whether an attribute of its Object types names a type neither built in nor of the set (Puppet cannot load the set). */
  hasUnresolved(): boolean {
    for (const t of this.types.values()) {
      if (!(t instanceof PUserObjectType)) continue;
      for (const a of t.ownAttributes.values())
        if (a.type instanceof PTypeReferenceType && this.localType(a.type.typeString) === undefined)
          return true;
    }
    return false;
  }
  localType(name: string): PType | undefined {
    return this.types.get(name);
  }
  /** `MyTS::Car`: the Object types a TypeSet defines (Puppet resolves only those by qualified name). */
  objectType(name: string): PUserObjectType | undefined {
    for (const [k, t] of this.types)
      if (k.toLowerCase() === name.toLowerCase() && t instanceof PUserObjectType) return t;
    return undefined;
  }
  override isInstance(_v: PValue): boolean {
    return false;
  }
  protected override assignableFrom(o: PType): boolean {
    return o === this;
  }
  override equals(other: PType): boolean {
    return other === this;
  }
  override toString(): string {
    const parts: string[] = [];
    const pv = this.init.get("pcore_version");
    if (pv !== undefined) parts.push(`pcore_version => ${formatTypeArg(pv)}`);
    parts.push(
      `name_authority => ${puppetQuote(String(this.init.get("name_authority") ?? "http://puppet.com/2016.1/runtime"))}`,
    );
    if (this.typeSetName !== undefined) parts.push(`name => ${puppetQuote(this.typeSetName)}`);
    const version = this.init.get("version");
    if (version !== undefined) parts.push(`version => ${formatTypeArg(String(version))}`);
    if (this.types.size > 0) {
      const ts: string[] = [];
      for (const [k, t] of this.types) {
        if (t instanceof PUserObjectType) ts.push(`${k} => Object[${t.definition(false)}]`);
        else ts.push(`${k} => ${typeLabel(t)}`);
      }
      parts.push(`types => {${ts.join(", ")}}`);
    }
    const refs = this.init.get("references");
    if (isHash(refs) && refs.size > 0) {
      const rs: string[] = [];
      for (const [k, r] of refs)
        rs.push(`${k instanceof PTypeReferenceType ? k.typeString : String(k)} => ${formatTypeArg(r)}`);
      parts.push(`references => {${rs.join(", ")}}`);
    }
    return `TypeSet[{${parts.join(", ")}}]`;
  }
}

/* ------------------------------------------------------- construction */

const KINDS = new Set(["constant", "derived", "given_or_derived", "reference"]);
const OBJECT_KEYS = new Set([
  "name",
  "parent",
  "type_parameters",
  "attributes",
  "constants",
  "functions",
  "equality",
  "equality_include_type",
  "checks",
  "annotations",
]);

function attributeFrom(label: string, name: string, spec: PValue, override = false): ObjectAttribute {
  if (isType(spec)) {
    const opt = resolveQuiet(spec) instanceof POptionalType;
    return {
      name,
      type: spec,
      hasValue: opt,
      value: undefined,
      final: false,
      override,
      bare: true,
      constant: false,
    };
  }
  if (!isHash(spec))
    throw errorOf(
      `attribute ${label}[${name}] has wrong type, expects a Type value, got ${inferType(spec).toString()}`,
    );
  const type = spec.get("type");
  if (!isType(type))
    throw errorOf(`initializer for attribute ${label}[${name}] expects a value for key 'type'`);
  const kind = spec.get("kind");
  if (kind !== undefined && (typeof kind !== "string" || !KINDS.has(kind)))
    throw errorOf(
      `initializer for attribute ${label}[${name}] entry 'kind' expects an undef value or a match for Enum['constant', 'derived', 'given_or_derived', 'reference'], got ${formatTypeArg(kind)}`,
    );
  const hasValue = spec.has("value");
  const value = spec.get("value");
  if (hasValue && (kind === "derived" || kind === "given_or_derived"))
    throw errorOf(`attribute ${label}[${name}] of kind '${kind}' cannot be combined with an attribute value`);
  if (!hasValue && kind === "constant")
    throw errorOf(`attribute ${label}[${name}] of kind 'constant' requires a value`);
  if (hasValue && value !== DEFAULT && !type.isInstance(value))
    throw errorOf(describeMismatch(`attribute ${label}[${name}] value`, type, value));
  return {
    name,
    type,
    ...(kind !== undefined ? { kind: kind as AttributeKind } : {}),
    hasValue,
    value,
    final: spec.get("final") === true || kind === "constant",
    override: spec.get("override") === true || override,
    bare: false,
    constant: false,
  };
}

function resolveQuiet(t: PType): PType | undefined {
  try {
    return resolve(t);
  } catch {
    return t;
  }
}

/** `Object[{...}]`: an Object type from its init hash. */
export function createObjectType(init: PValue): PType {
  if (!isHash(init)) throw errorOf(`Object-Type expects a Hash argument, got ${inferType(init).toString()}`);
  for (const k of init.keys())
    if (typeof k !== "string" || !OBJECT_KEYS.has(k))
      throw errorOf(`object initializer has wrong type, unrecognized key '${String(k)}'`);
  const name = init.get("name");
  if (name !== undefined && typeof name !== "string")
    throw errorOf(
      `object initializer entry 'name' expects a String value, got ${inferType(name).toString()}`,
    );
  const label = name ?? "Object";
  const parent = init.get("parent");
  if (parent !== undefined && !isType(parent))
    throw errorOf(
      `object initializer entry 'parent' expects a Type value, got ${inferType(parent).toString()}`,
    );
  const attrs = new Map<string, ObjectAttribute>();
  const specs = init.get("attributes");
  if (specs !== undefined && !isHash(specs))
    throw errorOf("object initializer entry 'attributes' expects a Hash value");
  if (isHash(specs)) for (const [k, s] of specs) attrs.set(String(k), attributeFrom(label, String(k), s));
  const constants = init.get("constants");
  if (isHash(constants))
    for (const [k, v] of constants) {
      const key = String(k);
      if (attrs.has(key))
        throw errorOf(`attribute ${label}[${key}] is defined as both a constant and an attribute`);
      attrs.set(key, {
        name: key,
        type: inferType(v).generalize(),
        kind: "constant",
        hasValue: true,
        value: v,
        final: true,
        override: false,
        bare: false,
        constant: true,
      });
    }
  const functions = new Map<string, PType>();
  const functionFlags = new Map<string, { final: boolean; override: boolean }>();
  const fspecs = init.get("functions");
  if (isHash(fspecs))
    for (const [k, s] of fspecs) {
      const t = isHash(s) ? s.get("type") : s;
      if (!isType(t)) throw errorOf(`function ${label}[${String(k)}] has wrong type, expects a Type value`);
      if (!(resolveQuiet(t) instanceof PCallableType))
        throw errorOf(
          `function ${label}[${String(k)}] has wrong type, expects a Type[Callable] value, got ${inferType(t).toString()}`,
        );
      if (attrs.has(String(k)))
        throw errorOf(`function ${label}[${String(k)}] conflicts with attribute with the same name`);
      functions.set(String(k), t);
      if (isHash(s) && (s.get("final") === true || s.get("override") === true))
        functionFlags.set(String(k), {
          final: s.get("final") === true,
          override: s.get("override") === true,
        });
    }
  const typeParameters = new Map<string, PType>();
  const tspecs = init.get("type_parameters");
  if (isHash(tspecs))
    for (const [k, spec] of tspecs) {
      const t = isHash(spec) ? spec.get("type") : spec;
      if (!isType(t))
        throw errorOf(`type_parameter ${label}[${String(k)}] has wrong type, expects a Type value`);
      typeParameters.set(String(k), t);
    }
  const includeType = init.get("equality_include_type");
  let equality: string[] | undefined;
  const eq = init.get("equality");
  if (typeof eq === "string") equality = [eq];
  else if (Array.isArray(eq)) equality = eq.map(String);
  if (equality && equality.length > 0 && includeType === false)
    throw errorOf("equality_include_type = false cannot be combined with non empty equality specification");
  for (const a of equality ?? []) {
    const m = attrs.get(a);
    if (m === undefined && !functions.has(a) && parent === undefined)
      throw errorOf(`${label} equality is referencing non existent attribute '${a}'`);
    if (m?.kind === "constant")
      throw errorOf(
        `${label} equality is referencing constant attribute ${label}[${a}]. Reference to constant is not allowed in equality`,
      );
  }
  const annotations = init.get("annotations");
  if (annotations !== undefined) {
    const t = annotationsType();
    if (!t.isInstance(annotations))
      throw errorOf(
        describeMismatch("object initializer has wrong type, entry 'annotations'", t, annotations),
      );
  }
  return new PUserObjectType(
    name,
    parent as PType | undefined,
    attrs,
    functions,
    equality,
    includeType !== false,
    isHash(annotations) ? annotations : undefined,
    init.get("checks"),
    functionFlags,
    typeParameters,
  );
}

/** `TypeSet[{...}]`. */
export function createTypeSet(init: PValue): PType {
  if (!isHash(init)) throw errorOf(`TypeSet-Type expects a Hash argument, got ${inferType(init).toString()}`);
  const name = init.get("name");
  return new PTypeSetType(typeof name === "string" ? name : undefined, init);
}

/** The loader's name for an Object type or TypeSet a type alias defines. */
export function nameDefinedType(t: PType, name: string): void {
  if (t instanceof PUserObjectType && t.typeName === undefined) t.assignName(name);
  else if (t instanceof PUserObjectType && t.typeName !== name && !t.typeSet) t.assignName(name);
  else if (t instanceof PTypeSetType) t.typeSetName = name;
  if (t instanceof PUserObjectType) t.validate();
}

/**
 * The message of an error in the definition of the Object type alias
 * `name` as Puppet reports it when the alias is first resolved ("Error
 * while evaluating a Type-Name"), naming the type by the alias (`function
 * Pt[x] ...` where the definition alone says `Object[x]`); undefined for
 * other errors.
 */
export function typeNameError(error: unknown, name: string): string | undefined {
  if (!(error instanceof TypeSystemError)) return undefined;
  const message = error.message.replace(/^((?:function|attribute) )Object\[/, `$1${name}[`);
  return `Error while evaluating a Type-Name, ${message}`;
}

/* -------------------------------------------------------------- new */

function plural(n: number): string {
  if (n === 0) return "no arguments";
  return n === 1 ? "1 argument" : `${n} arguments`;
}

/** A count of arguments given, as Puppet words it (`none` for zero). */
function given(n: number): string {
  return n === 0 ? "none" : String(n);
}

function signatureText(t: PUserObjectType): string[] {
  printing++;
  try {
    const info = t.parameterInfo();
    const params = info.names.map((n, i) => `${typeLabel(info.types[i] as PType)} ${n}`);
    return [`(${t.initStruct().toString()} hash)`, `(${params.join(", ")})`];
  } finally {
    printing--;
  }
}

/** `Car.new(...)`/`Car(...)`: by one init hash or by the attributes in order. */
export function newUserObject(t: PUserObjectType, args: readonly PValue[]): PUserObject {
  const fn = `new_${t.instanceName}`;
  if (t.isAnnotation() && t === ANNOTATION_TYPE)
    throw errorOf(`Creation of new instance of type '${t.label}' is not supported`);
  const info = t.parameterInfo();
  const struct = t.initStruct();
  // By hash.
  let hashReject: string | undefined;
  if (args.length === 1) {
    const h = args[0];
    if (isHash(h) && struct.isInstance(h)) return build(t, h);
    hashReject = describeMismatch("parameter 'hash'", struct, h);
  }
  // By position.
  let posReject: string | undefined;
  if (args.length >= info.required && args.length <= info.names.length) {
    let ok = true;
    for (let i = 0; i < args.length; i++) {
      const pt = info.types[i] as PType;
      if (!pt.isInstance(args[i])) {
        posReject = describeMismatch(`parameter '${info.names[i]}'`, pt, args[i]);
        ok = false;
        break;
      }
    }
    if (ok) {
      const h = new PHash();
      for (let i = 0; i < args.length; i++) h.set(info.names[i] as string, args[i]);
      return build(t, h);
    }
  } else {
    posReject =
      info.required === info.names.length
        ? `expects ${plural(info.names.length)}, got ${given(args.length)}`
        : `expects between ${info.required} and ${info.names.length} arguments, got ${given(args.length)}`;
  }
  // Both signatures reject: Puppet's describer.
  const countOk = (min: number, max: number) => args.length >= min && args.length <= max;
  if (!countOk(1, 1) && !countOk(info.required, info.names.length)) {
    const lo = Math.min(1, info.required);
    const hi = Math.max(1, info.names.length);
    const want = lo === hi ? `expects ${plural(lo)}` : `expects between ${lo} and ${hi} arguments`;
    throw errorOf(`'${fn}' ${want}, got ${given(args.length)}`);
  }
  const [hs, ps] = signatureText(t);
  throw errorOf(
    `The function '${fn}' was called with arguments it does not accept. It expects one of:\n  ${hs}\n    rejected: ${hashReject ?? `expects 1 argument, got ${given(args.length)}`}\n  ${ps}\n    rejected: ${posReject}`,
  );
}

function build(t: PUserObjectType, h: PHash): PUserObject {
  const values = new Map<string, PValue>();
  for (const a of t.allAttributes().values()) {
    if (a.kind === "derived") continue;
    if (a.kind !== "constant" && h.has(a.name)) values.set(a.name, h.get(a.name));
    else if (a.hasValue) values.set(a.name, a.value);
  }
  return new PUserObject(t, values);
}

/** A member of an Object value called as `$o.name(...)`; `undefined` when it has none of that name. */
export function objectMember(
  receiver: PValue,
  name: string,
  args: readonly PValue[],
): { value: PValue } | undefined {
  if (args.length === 0 && receiver instanceof PDeferred) {
    if (name === "name") return { value: receiver.name };
    if (name === "arguments") return { value: receiver.hasArguments ? [...receiver.args] : undefined };
  }
  if (args.length === 0 && receiver instanceof PObject && receiver.typeName === "Error") {
    // Error's attributes, and its function `message` (the `msg`).
    const init = (receiver as PObject & { initHash(): PHash }).initHash();
    if (name === "message") return { value: init.get("msg") };
    if (["msg", "kind", "details", "issue_code"].includes(name)) return { value: init.get(name) };
  }
  if (!(receiver instanceof PUserObject)) return undefined;
  const m = receiver.type.member(name);
  if (m === undefined) return undefined;
  // Puppet only declares an Object's functions: their implementations are
  // Ruby methods of a class written for the type, which Puppet code cannot give.
  if (isType(m)) throw errorOf(`no method is implemented for function ${receiver.type.label}[${name}]`);
  if (args.length > 0)
    throw errorOf(`'${receiver.type.label}[${name}]' expects no arguments, got ${args.length}`);
  return { value: receiver.values.get(name) };
}

/** The attributes a tree walk visits (`tree_each`): own attributes, references only when asked. */
export function objectChildren(v: PValue, includeRefs: boolean): [PValue, PValue][] | undefined {
  if (!(v instanceof PUserObject)) return undefined;
  const out: [PValue, PValue][] = [];
  for (const a of v.type.ownAttributes.values()) {
    if (a.kind === "reference" && !includeRefs) continue;
    out.push([a.name, v.values.get(a.name)]);
  }
  return out;
}

/* ------------------------------------------------------- annotations */

/** Puppet's `Annotation`: the parent of annotation types. */
export const ANNOTATION_TYPE = new PUserObjectType(
  "Annotation",
  undefined,
  new Map(),
  new Map(),
  undefined,
  true,
  undefined,
  undefined,
);

let annotationsTypeCache: PType | undefined;
/** What an Object type's `annotations` may hold: `{Annotation type => {attribute => value}}`. */
function annotationsType(): PType {
  annotationsTypeCache ??= new POptionalType(
    new PHashType(
      new PTypeType(ANNOTATION_TYPE),
      new PHashType(new PPatternType([new PRegexpType("\\A[a-z_]\\w*\\z")]), new PAnyType()),
    ),
  );
  return annotationsTypeCache;
}

/** `Pcore`: the receiver of `Pcore.annotate(value, {Type => hash})`. */
export class PPcoreType extends PAnyType {
  override get name(): string {
    return "Pcore";
  }
  override isInstance(): boolean {
    return false;
  }
  protected override assignableFrom(o: PType): boolean {
    return o instanceof PPcoreType;
  }
  override equals(other: PType): boolean {
    return other instanceof PPcoreType;
  }
  override toString(): string {
    return "Pcore";
  }
}

type Annotatable = PUserObject | PUserObjectType;

function declared(o: Annotatable, t: PUserObjectType): PValue {
  if (!(o instanceof PUserObjectType) || !o.declaredAnnotations) return undefined;
  for (const [k, v] of o.declaredAnnotations) {
    const r = isType(k) ? resolve(k) : undefined;
    if (r === t) return v;
  }
  return undefined;
}

/** The annotations attached to a value: kept on the Object value or type itself. */
function annotationsOf(o: Annotatable): Map<PUserObjectType, PUserObject> {
  o.annotations ??= new Map();
  return o.annotations;
}

function annotationFrom(t: PUserObjectType, init: PValue): PUserObject {
  return newUserObject(t, [init]);
}

/**
 * `annotate(Type[Annotation], value)` with an optional block giving the
 * init hash, `annotate(Type[Annotation], value, hash | clear)`, and
 * `annotate(Pcore, value, {Type => hash})`.
 */
export function annotate(
  type: PType,
  value: PValue,
  third: PValue | undefined,
  block: (() => PValue) | undefined,
): PValue {
  const subject = value instanceof PTypeAliasType ? resolveQuiet(value) : value;
  const target = subject instanceof PUserObject || subject instanceof PUserObjectType ? subject : undefined;
  if (type instanceof PPcoreType) {
    if (!isHash(third)) throw errorOf("'annotate' parameter 'annotations' expects a Hash value");
    for (const [k, init] of third) {
      const t = isType(k) ? resolve(k) : undefined;
      if (!(t instanceof PUserObjectType) || !t.isAnnotation())
        throw errorOf("'annotate' parameter 'annotations' expects a Hash[Type[Annotation], Hash] value");
      if (target) annotationsOf(target).set(t, annotationFrom(t, init));
    }
    return value;
  }
  const t = resolve(type);
  if (!(t instanceof PUserObjectType) || !t.isAnnotation())
    throw errorOf(
      `'annotate' parameter 'type' expects a Type[Annotation] value, got ${inferType(type).toString()}`,
    );
  const decl = target ? declared(target, t) : undefined;
  if (third === undefined) {
    if (!target) return block ? annotationFrom(t, block()) : undefined;
    const m = annotationsOf(target);
    let a = m.get(t);
    if (a === undefined) {
      const init = decl ?? (block ? block() : undefined);
      if (init !== undefined) {
        a = annotationFrom(t, init);
        m.set(t, a);
      }
    }
    return a;
  }
  if (decl !== undefined) {
    const action = third === "clear" ? "clear" : "redefine";
    throw errorOf(`attempt to ${action} ${t.label} annotation declared on ${labelOf(subject)}`);
  }
  if (!target) return third === "clear" ? undefined : annotationFrom(t, third);
  const m = annotationsOf(target);
  if (third === "clear") {
    const old = m.get(t);
    m.delete(t);
    return old;
  }
  const a = annotationFrom(t, third);
  m.set(t, a);
  return a;
}

function labelOf(v: PValue | PType): string {
  if (v instanceof PUserObjectType) return v.label;
  if (v instanceof PUserObject) return v.type.label;
  return String(v);
}

/** `MyTS::Car`: an Object type of the TypeSet `set` stands for (Puppet resolves only those). */
export function typeSetMember(set: PType, name: string): PType | undefined {
  const r = resolveQuiet(set);
  // Puppet 7.23 resolves no type of a TypeSet declared in Puppet code that
  // has `references` (its loader cannot bind the referenced sets): such a
  // name is not found, whatever it refers to.
  if (r instanceof PTypeSetType && (r.hasReferences() || r.hasUnresolved())) return undefined;
  return r instanceof PTypeSetType ? r.objectType(name) : undefined;
}

/** Whether a type alias's expression is `Object[...]` with one argument (the definition hash). */
export function objectTypeExpression(e: { kind: string; left?: unknown; keys?: unknown[] }): boolean {
  const left = e.left as { kind?: string; value?: string } | undefined;
  return (
    e.kind === "Access" &&
    left?.kind === "QualifiedReference" &&
    left.value?.toLowerCase() === "object" &&
    e.keys?.length === 1
  );
}

/** Whether a type alias's expression is `TypeSet[...]` (its body refers to its own types by name). */
export function isTypeSetExpression(e: { kind: string; left?: unknown }): boolean {
  const left = e.left as { kind?: string; value?: string } | undefined;
  return (
    e.kind === "Access" && left?.kind === "QualifiedReference" && left.value?.toLowerCase() === "typeset"
  );
}

/* ---------------------------------------------------- type_parameters */

/**
 * Puppet's case-match of a value against a type parameter's value: a type
 * matches its instances, a regexp the strings it matches, anything else an
 * equal value.
 */
function matches(v: PValue, pattern: PValue): boolean {
  if (isType(pattern)) return pattern.isInstance(v);
  if (pattern instanceof PRegexp) return typeof v === "string" && pattern.re.test(v);
  return pEquals(v, pattern);
}

/** `MyType['a', 'b']`: an Object type with type_parameters, constrained (Puppet's PObjectTypeExtension). */
export class PParameterizedObjectType extends PAnyType {
  constructor(
    readonly base: PUserObjectType,
    /** The given parameters by name (unset ones absent). */
    readonly parameters: ReadonlyMap<string, PValue>,
  ) {
    super();
  }
  override get name(): string {
    return this.base.name;
  }
  override get kind(): string {
    return "Object";
  }
  override generalize(): PType {
    return this.base;
  }
  override isInstance(v: PValue): boolean {
    if (!this.base.isInstance(v) || !(v instanceof PUserObject)) return false;
    const attrs = v.type.allAttributes();
    for (const [n, p] of this.parameters) if (!attrs.has(n) || !matches(v.get(n), p)) return false;
    return true;
  }
  protected override assignableFrom(o: PType, guard?: RecursionGuard): boolean {
    const other = o instanceof PParameterizedObjectType ? o : undefined;
    if (!this.base.isAssignable(other ? other.base : o, guard)) return false;
    for (const [n, b] of this.parameters) {
      if (!other?.parameters.has(n)) return false;
      const a = other.parameters.get(n);
      if (!(matches(a, b) || (isType(a) && isType(b) && b.isAssignable(a, guard)))) return false;
    }
    return true;
  }
  override equals(other: PType): boolean {
    if (!(other instanceof PParameterizedObjectType) || !this.base.equals(other.base)) return false;
    if (other.parameters.size !== this.parameters.size) return false;
    for (const [n, v] of this.parameters)
      if (!other.parameters.has(n) || !pEquals(v, other.parameters.get(n) as PValue)) return false;
    return true;
  }
  override toString(): string {
    const names = [...this.base.typeParameters().keys()];
    if (names.length > 2) {
      const h = new PHash();
      for (const [n, v] of this.parameters) h.set(n, v);
      return `${this.base.label}[${formatTypeArg(h)}]`;
    }
    const args: PValue[] = names.map((n) => (this.parameters.has(n) ? this.parameters.get(n) : DEFAULT));
    while (args.length > 0 && args[args.length - 1] === DEFAULT) args.pop();
    return `${this.base.label}[${args.map(formatTypeArg).join(", ")}]`;
  }
}

/** `T[args]` of an Object type: by position, or by name in one hash; Puppet's checks and messages. */
export function parameterizeObject(base: PUserObjectType, args: readonly PValue[]): PType {
  const params = base.typeParameters();
  const fail = (m: string): never => {
    throw errorOf(`Error while evaluating a '[]' expression, ${m}`);
  };
  if (params.size === 0) fail(`The ${base.label}-Type cannot be parameterized using []`);
  const first = [...params.values()][0] as PType;
  const byName = new Map<string, PValue>();
  // A type parameter may always be undef (Puppet makes its type Optional).
  const check = (n: string, t: PType, v: PValue): void => {
    const optional = new POptionalType(t);
    if (!optional.isInstance(v))
      fail(describeMismatch(`type_parameter ${base.label}[${n}] has wrong type,`, optional, v));
    byName.set(n, v);
  };
  const only = args[0];
  if (args.length === 1 && isHash(only) && !first.isInstance(only)) {
    for (const [k, v] of only) {
      const t = params.get(String(k));
      if (t === undefined) fail(`'${String(k)}' is not a known type parameter for ${base.label}-Type`);
      if (v !== DEFAULT) check(String(k), t as PType, v);
    }
  } else {
    [...params].forEach(([n, t], i) => {
      if (i < args.length && args[i] !== DEFAULT) check(n, t, args[i]);
    });
  }
  if (byName.size === 0) fail(`The ${base.label}-Type cannot be parameterized using an empty parameter list`);
  return new PParameterizedObjectType(base, byName);
}
