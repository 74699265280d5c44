/**
 * A resource as the compiler builds it (Puppet's Parser::Resource): type,
 * title, parameters with where each was set, tags, virtual/exported, and
 * the scope it was declared in; its catalog JSON (`toData`).
 */
import { isArr } from "./arr.js";
import type { Definition } from "./definitions.js";
import { JsonFloat } from "./json-float.js";
import { lowerCaseName } from "./lower-case.js";
import { type ParamEntry, ParamTable } from "./param-table.js";
import type { Scope } from "./scope.js";
import { ResourceRef, asResourceRef, formatFloat, formatValue } from "./typing.js";
import {
  DEFAULT,
  PBinary,
  PDeferred,
  PHash,
  PObject,
  PRegexp,
  PSensitive,
  type PValue,
  isType,
} from "./values.js";

const VALID_TAG = /^[\p{L}\p{N}_][\p{L}\p{N}_:.-]*$/u;
/** VALID_TAG on ASCII text. */
const VALID_ASCII_TAG = /^[A-Za-z0-9_][A-Za-z0-9_:.-]*$/;

export function isValidTag(t: string): boolean {
  // VALID_TAG only for text outside ASCII: V8 takes ~7 ms to compile it
  // when tend's regex flags are set (bin/tend.js: the experimental engine
  // expands its Unicode classes), at every compile, for a check most tags
  // pass or fail in ASCII.
  if (VALID_ASCII_TAG.test(t)) return true;
  for (let i = 0; i < t.length; i++) if (t.charCodeAt(i) > 0x7f) return VALID_TAG.test(t);
  return false;
}

/** No tags: the list every TagSet starts with. */
const NO_TAGS: readonly string[] = [];

/** Beyond this many tags a set indexes them (below it, a search of the list is quicker). */
const INDEXED = 16;

/**
 * An insertion-ordered tag set with Puppet's `::` splitting. The tags are
 * a list never changed in place: an addition makes a new one of the exact
 * size (a resource has a handful of tags, and ten thousand resources keep
 * theirs for the whole compile: a Set of five takes 240 bytes, the list 88),
 * so that lists are shared (a merge into an empty set takes the other's).
 */
export class TagSet {
  declare private list: readonly string[];
  declare private index: Set<string> | undefined;
  constructor() {
    this.list = NO_TAGS;
    this.index = undefined;
  }
  /** The tags in the order they were added. */
  get tags(): readonly string[] {
    return this.list;
  }
  /** Adds a tag (lower-cased; `a::b` also adds `a` and `b`); false when invalid. */
  add(tag: string): boolean {
    const name = lowerCaseName(tag);
    if (this.has(name)) return true;
    if (!isValidTag(name)) return false;
    if (!name.includes("::")) {
      // concat of a string appends it: no list of one made for it.
      this.list = this.list.concat(name);
      if (this.index !== undefined) this.index.add(name);
      else if (this.list.length > INDEXED) this.index = new Set(this.list);
      return true;
    }
    const added = [name];
    for (const s of name.split("::")) if (!this.has(s) && !added.includes(s)) added.push(s);
    this.append(added);
    return true;
  }
  addIfValid(tag: string): void {
    if (isValidTag(tag)) this.add(tag);
  }
  merge(other: TagSet): void {
    const theirs = other.list;
    if (this.list.length === 0) {
      this.list = theirs;
      this.index = other.index === undefined ? undefined : new Set(theirs);
      return;
    }
    // Counted first, then copied into a list of the exact size: no list
    // made when nothing is new (the merge of the container's tags again),
    // nor one grown by push (room for 17). Indexed loops: for-of makes an
    // iterator result per step in code not yet optimized.
    let missing = 0;
    for (let i = 0; i < theirs.length; i++) if (!this.has(theirs[i] as string)) missing++;
    if (missing === 0) return;
    const mine = this.list;
    const merged = new Array<string>(mine.length + missing);
    for (let i = 0; i < mine.length; i++) merged[i] = mine[i] as string;
    let at = mine.length;
    for (let i = 0; i < theirs.length; i++) {
      const t = theirs[i] as string;
      if (!this.has(t)) merged[at++] = t;
    }
    this.list = merged;
    if (this.index !== undefined) for (let i = mine.length; i < at; i++) this.index.add(merged[i] as string);
    else if (at > INDEXED) this.index = new Set(merged);
  }
  /**
   * merge, remembering the lists it merged in `memo`: the same two lists
   * again (the next resource of a class, with its type's tags, merged with
   * the class's) take the list that merge made, shared as lists are.
   */
  mergeRemembered(other: TagSet, memo: TagMergeMemo): void {
    const mine = this.list;
    const theirs = other.list;
    const merged = memo.merged;
    if (merged !== undefined && memo.mine === mine && memo.theirs === theirs) {
      this.list = merged;
      this.index = merged.length > INDEXED ? new Set(merged) : undefined;
      return;
    }
    this.merge(other);
    memo.mine = mine;
    memo.theirs = theirs;
    memo.merged = this.list;
  }
  has(t: string): boolean {
    return this.index === undefined ? this.list.includes(t) : this.index.has(t);
  }
  /** Tags not in the set yet, appended: one new list of the exact size. */
  private append(added: readonly string[]): void {
    this.list = this.list.concat(added);
    if (this.index !== undefined) for (const t of added) this.index.add(t);
    else if (this.list.length > INDEXED) this.index = new Set(this.list);
  }
}

/** The tags of each type name (`foo::bar`, `foo`, `bar`), made once. */
const TYPE_TAGS = new Map<string, TagSet>();

function typeTags(type: string): TagSet {
  let tags = TYPE_TAGS.get(type);
  if (tags === undefined) {
    tags = new TagSet();
    tags.add(type);
    if (TYPE_TAGS.size < 1000) TYPE_TAGS.set(type, tags);
  }
  return tags;
}

export type { ParamEntry };

/** The lists of the last TagSet.mergeRemembered, and the list it made. */
export interface TagMergeMemo {
  mine?: readonly string[];
  theirs?: readonly string[];
  merged?: readonly string[];
}

export type ResourceKind = "compilable_type" | "defined_type" | "unknown" | "class";

// The fields are declared and set in the constructor, in one order: ten
// thousand resources are made cold, and field initialisers cost V8 a
// function of their own per construction.
export class CResource {
  /** Capitalised type: `File`, `Class`, `Node`, `Foo::Bar`. */
  declare readonly type: string;
  declare readonly title: string;
  /** Where it was declared (the scope whose resource contains it). */
  declare readonly scope: Scope;
  declare readonly source: Definition | undefined;
  declare readonly kind: ResourceKind;
  declare readonly file: string | undefined;
  declare readonly line: number | undefined;
  declare readonly params: ParamTable;
  declare readonly tags: TagSet;
  declare evaluated: boolean;
  declare finished: boolean;
  declare virtual: boolean;
  declare exported: boolean;
  /** The scope of a class/define/node once its body is evaluated. */
  declare bodyScope: Scope | undefined;
  /** For defines, classes, nodes: what to evaluate. */
  declare definition: Definition | undefined;
  /** Set when a collector realizes a virtual resource. */
  declare collected: boolean;
  /** Containment in the catalog (Catalog.addEdge): what this resource contains, in order, and its containers. */
  declare contains: CResource[] | undefined;
  declare containedBy: CResource[] | undefined;
  declare private refText: string | undefined;

  constructor(
    type: string,
    title: string,
    scope: Scope,
    source: Definition | undefined,
    kind: ResourceKind,
    file: string | undefined,
    line: number | undefined,
    options?: { virtual?: boolean; exported?: boolean },
    /** Its parameters, when the caller made the table for it alone (and tags it with their `tag` itself). */
    params?: ParamTable,
  ) {
    this.type = type;
    this.title = title;
    this.scope = scope;
    this.source = source;
    this.kind = kind;
    this.file = file;
    this.line = line;
    this.params = params ?? new ParamTable();
    this.tags = new TagSet();
    this.evaluated = false;
    this.finished = false;
    this.exported = options?.exported === true;
    this.virtual = options?.virtual === true || this.exported;
    this.bodyScope = undefined;
    this.definition = undefined;
    this.collected = false;
    this.contains = undefined;
    this.containedBy = undefined;
    this.refText = undefined;
    // The type's tags as a list shared by every resource of the type (a
    // merge into an empty set takes it): no name lower-cased, checked and
    // made a list again for each of ten thousand files.
    this.tags.merge(typeTags(type));
    if (!(title === "main" && (type === "Stage" || type === "Class"))) this.tags.addIfValid(title);
  }

  get ref(): string {
    this.refText ??= `${this.type}[${this.title}]`;
    return this.refText;
  }
  get isClass(): boolean {
    return this.type === "Class";
  }
  get isNode(): boolean {
    return this.type === "Node";
  }
  get isStage(): boolean {
    return this.type === "Stage";
  }
  get isDefine(): boolean {
    return this.kind === "defined_type";
  }
  get isBuiltin(): boolean {
    return this.kind === "compilable_type";
  }

  get(name: string): PValue {
    return this.params.get(name)?.value;
  }

  set(entry: ParamEntry): void {
    if (entry.name === "tag") this.tagWith(entry.value);
    this.params.set(entry);
  }

  tagWith(v: PValue): void {
    const list = isArr(v) ? v.flat(Number.POSITIVE_INFINITY as 1) : [v];
    for (const t of list) {
      if (t === undefined) continue;
      const s = typeof t === "string" ? t : String(t);
      if (!this.tags.add(s)) throw new Error(`Invalid tag '${s.toLowerCase()}'`);
    }
  }

  toRef(): ResourceRef {
    return new ResourceRef(this.type, this.title);
  }
}

/** The namevar of built-in types whose namevar is not `name`. */
const NAMEVARS: Record<string, string> = {
  File: "path",
  Exec: "command",
  Tidy: "path",
  Notify: "name",
  Stage: "name",
};

export function namevarOf(type: string, lookup?: (t: string) => string | undefined): string {
  return lookup?.(type) ?? NAMEVARS[type] ?? "name";
}

const RELATIONSHIP = new Set(["before", "require", "notify", "subscribe"]);

/** What a catalog's JSON was found to hold while it was made. */
export interface JsonMarks {
  /** A Float (Ruby writes `1.0`, `1.0e-05`): the plain JSON.stringify text would differ. */
  float: boolean;
}

/** A parameter value as catalog JSON (Puppet's value_to_json_data + rich data). */
export function toJsonData(v: PValue, marks?: JsonMarks): unknown {
  if (v === undefined) return null;
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "bigint") return Number(v);
  // A whole Float stays a Float (`1.0`) when the command line renders it as Ruby does.
  if (typeof v === "number") {
    if (marks) marks.float = true;
    return Number.isInteger(v) ? new JsonFloat(v) : v;
  }
  if (v === DEFAULT) return { __ptype: "Default" };
  if (isArr(v)) return v.map((x) => toJsonData(x, marks));
  if (v instanceof PHash) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of v) o[typeof k === "string" ? k : rubyToS(k)] = toJsonData(x, marks);
    return o;
  }
  if (v instanceof PRegexp) return { __ptype: "Regexp", __pvalue: v.source };
  if (v instanceof PSensitive) return toJsonData(v.value, marks);
  if (v instanceof PBinary) return { __ptype: "Binary", __pvalue: Buffer.from(v.bytes).toString("base64") };
  const ref = asResourceRef(v);
  if (ref) return ref.title === undefined ? ref.typeName : ref.refString();
  if (v instanceof PDeferred) return deferredText(v);
  // A user-defined Object's value is not Data: Puppet gives its string form.
  if (v instanceof PObject && isType((v as { type?: PValue }).type)) return v.toString();
  if (v instanceof PObject) return { __ptype: v.typeName, __pvalue: v.toString() };
  if (isType(v)) return v.toString();
  if (typeof v === "number") return formatFloat(v);
  return String(v);
}

/** Ruby's `to_s` of a hash key that is not a String (Puppet's JSON keys). */
function rubyToS(v: PValue): string {
  if (isArr(v)) return `[${v.map(rubyInspect).join(", ")}]`;
  if (typeof v === "number") return formatFloat(v);
  if (v === undefined) return "";
  return typeof v === "bigint" || typeof v === "boolean" ? String(v) : formatValue(v);
}

function rubyInspect(v: PValue): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (v === undefined) return "nil";
  return rubyToS(v);
}

/** A Deferred as a catalog parameter: `Deferred({'name' => 'join', 'arguments' => [[1, 2], ':']})`. */
function deferredText(d: PDeferred): string {
  const args = d.hasArguments ? `, 'arguments' => [${d.args.map(deferredArg).join(", ")}]` : "";
  return `Deferred({'name' => '${d.name}'${args}})`;
}

function deferredArg(v: PValue): string {
  if (v instanceof PDeferred) return deferredText(v);
  if (typeof v === "string") return `'${v.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
  if (isArr(v)) return `[${v.map(deferredArg).join(", ")}]`;
  if (v instanceof PHash)
    return `{${[...v].map(([k, x]) => `${deferredArg(k)} => ${deferredArg(x)}`).join(", ")}}`;
  if (v === undefined) return "undef";
  return formatValue(v);
}

/** A parameter left out of the catalog's JSON. */
export const SKIP_PARAMETER: unique symbol = Symbol("skip parameter");

/**
 * A parameter's value (not Sensitive) as the catalog's JSON holds it:
 * relationship lists flattened; SKIP_PARAMETER for undef, and for the
 * namevar when it is the title.
 */
export function catalogValue(
  r: CResource,
  name: string,
  value: PValue,
  namevar: string,
): PValue | typeof SKIP_PARAMETER {
  if (value === undefined) return SKIP_PARAMETER;
  if (RELATIONSHIP.has(name) && isArr(value))
    return (value.flat(Number.POSITIVE_INFINITY as 1) as PValue[]).filter((x) => x !== undefined);
  if (
    name === namevar &&
    typeof value === "string" &&
    value === r.title &&
    !(r.title === "main" && (r.type === "Stage" || r.type === "Class"))
  )
    return SKIP_PARAMETER;
  return value;
}

/**
 * The resource as `to_data_hash` gives it in a catalog. Made for each of
 * ten thousand resources at once, and kept until the JSON is written: the
 * usual shape is one literal, String values (most of them) skip the
 * conversion, and no parameter object or sensitive list is made empty.
 */
export function resourceToData(r: CResource, namevar: string, marks?: JsonMarks): Record<string, unknown> {
  // The tag list as it is: never changed in place (TagSet), it can be shared.
  const tags = r.tags.tags;
  const data: Record<string, unknown> =
    r.file !== undefined && r.line !== undefined
      ? { type: r.type, title: r.title, tags, file: r.file, line: r.line, exported: r.exported, kind: r.kind }
      : partialData(r, tags);
  let params: Record<string, unknown> | undefined;
  let sensitive: string[] | undefined;
  // forEach, not for-of: no iterator result made per parameter (this runs
  // cold, once per resource).
  r.params.forEach((p) => {
    const name = p.name;
    let value = p.value;
    if (typeof value === "string") {
      // catalogValue's rules for a String: only the namevar equal to the title is left out.
      if (
        name === namevar &&
        value === r.title &&
        !(r.title === "main" && (r.type === "Stage" || r.type === "Class"))
      )
        return;
      params ??= {};
      params[name] = value;
      return;
    }
    if (value instanceof PSensitive) {
      sensitive ??= [];
      sensitive.push(name);
      value = value.value;
    }
    const kept = catalogValue(r, name, value, namevar);
    if (kept === SKIP_PARAMETER) return;
    params ??= {};
    params[name] = toJsonData(kept, marks);
  });
  if (params !== undefined) data.parameters = params;
  if (sensitive !== undefined) data.sensitive_parameters = sensitive;
  return data;
}

function partialData(r: CResource, tags: readonly string[]): Record<string, unknown> {
  const data: Record<string, unknown> = { type: r.type, title: r.title, tags };
  if (r.file !== undefined) data.file = r.file;
  if (r.line !== undefined) data.line = r.line;
  data.exported = r.exported;
  data.kind = r.kind;
  return data;
}
