/**
 * Collection functions: dig, get, getvar, keys, values, length, size,
 * empty, flatten, unwrap, sort, unique, slice, tree_each.
 */
import { type CallContext, FunctionArgumentError, FunctionError, type PuppetFunction } from "../registry.js";
import { ANY, PCallableType, PStringType, PTupleType, inferType } from "../../types.js";
import { objectChildren } from "../../types/user-objects.js";
import {
  type PCallable,
  PBinary,
  PHash,
  PIterator,
  PObject,
  type PSensitive,
  type PValue,
  rubyEqlKey,
} from "../../values.js";
import { blk, dispatcher, opt, p, rep } from "./dispatch.js";
import { forEach, iterationOf } from "./iterable.js";
import { cmpStr } from "./numbers.js";
import { rubySplit } from "./regex.js";
import { rubyInspect } from "./ruby-text.js";
import { T, actualDetailed, isArray, isHashValue, isString } from "./spec.js";

/** The text of the type Puppet infers, from the type system when it is there. */
function inferredText(v: PValue): string {
  try {
    return inferType(v).toString();
  } catch {
    return actualDetailed(v);
  }
}

/** An error carrying Puppet's Error data (`get`'s block receives it). */
export class DigError extends FunctionError {
  constructor(
    message: string,
    readonly issueCode: string,
  ) {
    super(message);
  }
}

function digValue(data: PValue, keys: readonly PValue[]): PValue {
  const walked: PValue[] = [];
  let d = data;
  for (const k of keys) {
    if (d === undefined || k === undefined) return undefined;
    if (!isArray(d) && !isHashValue(d))
      throw new DigError(
        `The given data does not contain a Collection at ${rubyInspect(walked)}, got '${inferredText(d)}'`,
        "EXPECTED_COLLECTION",
      );
    walked.push(k);
    if (isArray(d)) {
      if (typeof k !== "bigint")
        throw new DigError(
          `The given data requires an Integer index at ${rubyInspect(walked)}, got '${inferredText(k)}'`,
          "EXPECTED_INTEGER_INDEX",
        );
      const i = Number(k);
      d = i < 0 ? d[d.length + i] : d[i];
    } else d = d.get(k);
  }
  return d;
}

export const dig = dispatcher("dig", [
  {
    params: [p("data", T.optional(T.collection)), rep("arg", T.any)],
    call: (_c, [d, ...keys]) => digValue(d, keys),
  },
]);

const SEGMENTS = /(\s*"[^"]+"\s*|\s*'[^']+'\s*|[^'".]+)/g;

/** Puppet's dotted-key split (lookup's sub-keys): quoted segments, numbers as Integers. */
function splitKey(key: string): PValue[] {
  if (!/['".]/.test(key)) return [key];
  const segs = rubySplit(key, SEGMENTS);
  const bad = () => new FunctionError("Syntax error in dotted-navigation string");
  if (segs.length === 0 || segs.shift() !== "") throw bad();
  const count = segs.length;
  if (count === 0) throw bad();
  const kept = segs.filter((s) => s !== ".");
  if (kept.length * 2 !== count + 1) throw bad();
  return kept.map((seg) => {
    const s = seg.trim();
    if (s.startsWith('"') || s.startsWith("'")) return s.slice(1, -1);
    if (/^(:?[+-]?[0-9]+)$/.test(s)) return BigInt(s.replace(/^:/, ""));
    return s;
  });
}

function getValue(
  ctx: CallContext,
  value: PValue,
  nav: string,
  dflt: PValue,
  block: PCallable | undefined,
): PValue {
  if (value === undefined) return dflt;
  if (nav === "") return value;
  const segments = splitKey(`x.${nav}`).slice(1);
  try {
    const r = dig(ctx, [value, ...segments], undefined);
    return r === undefined ? dflt : r;
  } catch (e) {
    if (block && e instanceof DigError) return block.call([errorValue(e)]);
    throw e;
  }
}

/** The Error value a `get` block receives: its message and issue code as a hash. */
function errorValue(e: DigError): PValue {
  return PHash.fromRecord({ msg: e.message, kind: "SLICE_ERROR", issue_code: e.issueCode });
}

export const get = dispatcher("get", [
  {
    params: [p("value", T.any), p("dotted_string", T.string), opt("default_value", T.any)],
    block: blk(1, 1, true),
    call: (ctx, [v, nav, d], b) => getValue(ctx, v, nav as string, d, b),
  },
]);

const VAR_START = /^(?:::)?(?:[a-z]\w*::)*[a-z_]\w*(?:\.|$)/;

export const getvar = dispatcher("getvar", [
  {
    params: [
      p("get_string", T.pattern(VAR_START, "\\A(?:::)?(?:[a-z]\\w*::)*[a-z_]\\w*(?:\\.|\\Z)")),
      opt("default_value", T.any),
    ],
    block: blk(1, 1, true),
    call: (ctx, [s, d], b) => {
      const m = /^((?:::)?(?:\w+::)*\w+)(.*)$/s.exec(s as string) as RegExpExecArray;
      let nav = m[2] as string;
      if (nav.startsWith(".")) nav = nav.slice(1);
      else if (nav !== "")
        throw new FunctionArgumentError(
          `First character after var name in get string must be a '.' - got ${nav[0]}`,
        );
      return getValue(ctx, ctx.lookupVariable((m[1] as string).replace(/^::/, "")), nav, d, b);
    },
  },
  {
    params: [p("get_string", T.string), opt("default_value", T.any)],
    block: { name: "block", optional: true },
    mismatch: true,
    call: () => "The given string does not start with a valid variable name",
  },
]);

export const keys = dispatcher("keys", [
  { params: [p("hsh", T.hash)], call: (_c, [h]) => [...(h as PHash).keys()] },
]);
export const values = dispatcher("values", [
  { params: [p("hsh", T.hash)], call: (_c, [h]) => [...(h as PHash).values()] },
]);

function sizeOf(v: PValue): bigint {
  if (isArray(v)) return BigInt(v.length);
  if (isHashValue(v)) return BigInt(v.size);
  if (v instanceof PBinary) return BigInt(v.bytes.length);
  return BigInt(Array.from(v as string).length);
}

export const length = dispatcher("length", [
  { params: [p("arg", T.collection)], call: (_c, [v]) => sizeOf(v) },
  { params: [p("arg", T.string)], call: (_c, [v]) => sizeOf(v) },
  { params: [p("arg", T.binary)], call: (_c, [v]) => sizeOf(v) },
]);

export const size = dispatcher("size", [
  { params: [p("arg", T.variant(T.collection, T.string, T.binary))], call: (_c, [v]) => sizeOf(v) },
]);

export const empty = dispatcher("empty", [
  { params: [p("coll", T.collection)], call: (_c, [v]) => sizeOf(v) === 0n },
  { params: [p("str", T.sensitiveOf(T.string))], call: (_c, [v]) => (v as PSensitive).value === "" },
  { params: [p("str", T.string)], call: (_c, [v]) => v === "" },
  {
    params: [p("num", T.numeric)],
    call: (ctx) => {
      ctx.warn("Calling function empty() with Numeric value is deprecated.");
      return false;
    },
  },
  { params: [p("bin", T.binary)], call: (_c, [v]) => (v as PBinary).bytes.length === 0 },
  { params: [p("x", T.undef)], call: () => true },
]);

function flattenAll(args: readonly PValue[]): PValue[] {
  return args.flatMap((a) => (isArray(a) ? flattenAll(a) : [a]));
}

export const flatten = dispatcher("flatten", [
  { params: [rep("args", T.any)], call: (_c, args) => flattenAll(args) },
]);

export const unwrap = dispatcher("unwrap", [
  {
    params: [p("arg", T.sensitive)],
    block: { name: "block", optional: true },
    call: (_c, [v], b) => (b ? b.call([(v as PSensitive).value]) : (v as PSensitive).value),
  },
  {
    params: [p("arg", T.any)],
    block: { name: "block", optional: true },
    call: (_c, [v], b) => (b ? b.call([v]) : v),
  },
]);

function rubyClassName(v: PValue): string {
  if (v === undefined) return "NilClass";
  if (typeof v === "bigint") return "Integer";
  if (typeof v === "number") return "Float";
  if (typeof v === "string") return "String";
  if (typeof v === "boolean") return v ? "TrueClass" : "FalseClass";
  if (isArray(v)) return "Array";
  if (isHashValue(v)) return "Hash";
  return "Object";
}

/** Ruby's `<=>` as Array#sort uses it; throws Ruby's message for values it cannot order. */
export function rubyCompare(a: PValue, b: PValue): number {
  if ((typeof a === "bigint" || typeof a === "number") && (typeof b === "bigint" || typeof b === "number")) {
    if (typeof a === "bigint" && typeof b === "bigint") return a < b ? -1 : a > b ? 1 : 0;
    return Number(a) < Number(b) ? -1 : Number(a) > Number(b) ? 1 : 0;
  }
  if (isString(a) && isString(b)) return cmpStr(a, b);
  if (a instanceof PObject && b instanceof PObject && a.typeName === b.typeName) {
    const c = (a as unknown as { compare?: (o: PObject) => number }).compare;
    if (typeof c === "function") return Math.sign(c.call(a, b));
  }
  if (isArray(a) && isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = rubyCompare(a[i], b[i]);
      if (c !== 0) return c;
    }
    return Math.sign(a.length - b.length);
  }
  throw new FunctionError(`comparison of ${rubyClassName(a)} with ${cmpErrName(b)} failed`);
}

/** Ruby names immediate values (nil, true, false, small numbers) by their inspect in comparison errors. */
function cmpErrName(v: PValue): string {
  if (v === undefined || typeof v === "boolean" || typeof v === "bigint" || typeof v === "number")
    return rubyInspect(v);
  return rubyClassName(v);
}

function sortList(list: PValue[], block: PCallable | undefined): PValue[] {
  const cmp = block
    ? (a: PValue, b: PValue) => {
        const r = block.call([a, b]);
        if (typeof r === "bigint") return Number(r);
        if (typeof r === "number") return Math.sign(r);
        throw new FunctionError(`comparison of ${rubyClassName(a)} with ${cmpErrName(b)} failed`);
      }
    : rubyCompare;
  return mergeSort([...list], cmp);
}

/** A merge sort comparing (earlier, later), so that Ruby's "comparison of X with Y failed" names them in its order. */
function mergeSort(a: PValue[], cmp: (x: PValue, y: PValue) => number): PValue[] {
  if (a.length < 2) return a;
  const mid = a.length >> 1;
  const left = mergeSort(a.slice(0, mid), cmp);
  const right = mergeSort(a.slice(mid), cmp);
  const out: PValue[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) out.push(cmp(left[i], right[j]) <= 0 ? left[i++] : right[j++]);
  return out.concat(left.slice(i), right.slice(j));
}

export const sort = dispatcher("sort", [
  {
    params: [p("string_value", T.string)],
    block: blk(2, 2, true),
    call: (_c, [s], b) => sortList(Array.from(s as string), b).join(""),
  },
  {
    params: [p("array_value", T.array)],
    block: blk(2, 2, true),
    call: (_c, [a], b) => sortList(a as PValue[], b),
  },
]);

function uniq(list: readonly PValue[], block: PCallable | undefined): PValue[] {
  const seen = new Set<string>();
  const out: PValue[] = [];
  for (const x of list) {
    const k = rubyEqlKey(block ? block.call([x]) : x);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(x);
  }
  return out;
}

function uniqueHash(h: PHash, block: PCallable | undefined): PHash {
  const groups = new Map<string, { keys: PValue[]; values: PValue[] }>();
  for (const [k, v] of h) {
    const key = rubyEqlKey(block ? block.call([v]) : v);
    const g = groups.get(key) ?? { keys: [], values: [] };
    g.keys.push(k);
    g.values.push(v);
    groups.set(key, g);
  }
  const out = new PHash();
  for (const g of groups.values()) out.set(g.keys, uniq(g.values, undefined));
  return out;
}

const anyBlock = {
  name: "block",
  optional: true,
  label: "Callable[Any]",
  type: new PCallableType(new PTupleType([ANY])),
};

export const unique = dispatcher("unique", [
  {
    params: [p("string", T.string)],
    block: {
      ...anyBlock,
      label: "Callable[String]",
      type: new PCallableType(new PTupleType([new PStringType()])),
    },
    call: (_c, [s], b) => uniq(Array.from(s as string), b).join(""),
  },
  { params: [p("hash", T.hash)], block: anyBlock, call: (_c, [h], b) => uniqueHash(h as PHash, b) },
  { params: [p("array", T.array)], block: anyBlock, call: (_c, [a], b) => uniq(a as PValue[], b) },
  {
    params: [p("iterable", T.iterable)],
    block: anyBlock,
    call: (_c, [v], b) => uniq([...iterationOf(v, "unique").items], b),
  },
]);

/** Ruby's Proc#arity for a lambda: n when fixed, -(required + 1) otherwise. */
function arity(b: PCallable): number {
  return b.minArgs === b.maxArgs ? b.minArgs : -(b.minArgs + 1);
}

function sliceCommon(
  items: PValue[],
  n: number,
  filler: () => PValue,
  block: PCallable | undefined,
): PValue[] {
  const serving = block ? (arity(block) < 0 ? n : arity(block)) : 1;
  if (serving === 0)
    throw new FunctionArgumentError("slice(): block must define at least one parameter. Block has 0.");
  if (serving !== 1 && serving !== n) {
    const names = (block as unknown as { parameterNames?: readonly string[] }).parameterNames ?? [];
    throw new FunctionArgumentError(
      `slice(): block must define one parameter, or the same number of parameters as the given size of the slice (${n}). Block has ${serving}; ${names.join(", ")}`,
    );
  }
  const slices: PValue[][] = [];
  for (let i = 0; i < items.length; i += n) slices.push(items.slice(i, i + n));
  if (!block) return slices;
  forEach(slices, (s) => {
    const a = s as PValue[];
    if (serving === 1) block.call([a]);
    else block.call([...a, ...Array.from({ length: serving - a.length }, filler)]);
  });
  return slices;
}

export const slice = dispatcher("slice", [
  {
    params: [p("hash", T.hashOf(T.any, T.any)), p("slice_size", T.intRange(1n))],
    block: { name: "block", optional: true },
    call: (_c, [h, n], b) => {
      const r = sliceCommon([...(h as PHash)], Number(n), () => [], b);
      return b ? h : r;
    },
  },
  {
    params: [p("enumerable", T.iterable), p("slice_size", T.intRange(1n))],
    block: { name: "block", optional: true },
    call: (_c, [v, n], b) => {
      const r = sliceCommon([...iterationOf(v, "slice").items], Number(n), () => undefined, b);
      return b ? v : r;
    },
  },
]);

interface TreeOptions {
  withRoot: boolean;
  withContainers: boolean;
  withValues: boolean;
  depthFirst: boolean;
  includeRefs: boolean;
}

function isContainer(v: PValue): boolean {
  return isArray(v) || isHashValue(v) || v instanceof PObject;
}

function children(v: PValue, o: TreeOptions): [PValue, PValue][] {
  if (isArray(v)) return v.map((x, i) => [BigInt(i), x]);
  if (isHashValue(v)) return [...v];
  return objectChildren(v, o.includeRefs) ?? [];
}

function* depthFirst(v: PValue, path: PValue[], o: TreeOptions): Generator<[PValue[], PValue]> {
  for (const [k, x] of children(v, o)) {
    const at: PValue[] = [...path, k];
    if (isContainer(x)) {
      if (o.withContainers) yield [at, x];
      yield* depthFirst(x, at, o);
    } else if (o.withValues) yield [at, x];
  }
}

function* breadthFirst(root: PValue, o: TreeOptions): Generator<[PValue[], PValue]> {
  const queue: [PValue, PValue[]][] = [[root, []]];
  while (queue.length > 0) {
    const [v, path] = queue.shift() as [PValue, PValue[]];
    for (const [k, x] of children(v, o)) {
      const at: PValue[] = [...path, k];
      if (isContainer(x)) {
        queue.push([x, at]);
        if (o.withContainers) yield [at, x];
      } else yield [at, x];
    }
  }
}

function* treeWalk(root: PValue, o: TreeOptions): Generator<[PValue[], PValue]> {
  if (o.withRoot) yield [[], root];
  yield* o.depthFirst ? depthFirst(root, [], o) : breadthFirst(root, o);
}

function treeOptions(h: PValue): TreeOptions {
  const opt = (k: string) => (isHashValue(h) ? h.get(k) : undefined);
  const flag = (k: string) => {
    const v = opt(k);
    return v === undefined ? true : v !== false;
  };
  const withContainers = flag("include_containers");
  const withValues = flag("include_values");
  if (!withContainers && !withValues)
    throw new FunctionArgumentError("Options 'include_containers' and 'include_values' cannot both be false");
  return {
    withRoot: withContainers && flag("include_root"),
    withContainers,
    withValues,
    depthFirst: opt("order") !== "breadth_first",
    includeRefs: opt("include_refs") === true,
  };
}

const OPTION_TYPES: Record<string, (v: PValue) => boolean> = {
  container_type: (v) => v === undefined || (typeof v === "object" && v !== null && "isPuppetType" in v),
  include_root: (v) => v === undefined || typeof v === "boolean",
  include_containers: (v) => v === undefined || typeof v === "boolean",
  include_values: (v) => v === undefined || typeof v === "boolean",
  order: (v) => v === undefined || v === "depth_first" || v === "breadth_first",
  include_refs: (v) => v === undefined || typeof v === "boolean",
};

const optionsType = {
  ...T.alias(
    "OptionsType",
    T.hash,
    "OptionsType = Struct[{'container_type' => Optional[Type], 'include_root' => Optional[Boolean], 'include_containers' => Optional[Boolean], 'include_values' => Optional[Boolean], 'order' => Optional[Enum['breadth_first', 'depth_first']], 'include_refs' => Optional[Boolean]}]",
  ),
  test: (v: PValue) =>
    isHashValue(v) &&
    [...v].every(([k, x]) => typeof k === "string" && OPTION_TYPES[k] !== undefined && OPTION_TYPES[k](x)),
  explain: (v: PValue) => {
    if (!isHashValue(v)) return undefined;
    for (const [k, x] of v) {
      const t = typeof k === "string" ? OPTION_TYPES[k] : undefined;
      if (!t) return ` unrecognized key '${String(k)}'`;
      if (t(x)) continue;
      if (k === "order")
        return ` entry 'order' expects an undef value or a match for Enum['breadth_first', 'depth_first'], got ${typeof x === "string" ? `'${x}'` : actualDetailed(x)}`;
      return ` entry '${String(k)}' expects a value of type Undef or Boolean, got ${actualDetailed(x)}`;
    }
    return undefined;
  },
};

const treeT = T.variant(T.iterator, T.array, T.hash, T.object);

export const tree_each: PuppetFunction = dispatcher("tree_each", [
  {
    params: [p("tree", treeT), opt("options", optionsType)],
    block: blk(2),
    call: (_c, [v, o], b) => {
      forEach(treeWalk(v, treeOptions(o)), (e) => (b as PCallable).call(e as PValue[]));
      return v;
    },
  },
  {
    params: [p("tree", treeT), opt("options", optionsType)],
    block: blk(1),
    call: (_c, [v, o], b) => {
      forEach(treeWalk(v, treeOptions(o)), (e) => (b as PCallable).call([(e as PValue[])[1]]));
      return v;
    },
  },
  {
    params: [p("tree", treeT), opt("options", optionsType)],
    call: (_c, [v, o]) => {
      const options = treeOptions(o);
      return new PIterator(() => treeWalk(v, options));
    },
  },
]);
