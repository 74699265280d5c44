/**
 * The iteration functions: each, map, filter, reduce, any, all, index,
 * group_by, partition, reverse_each, step, with, then, lest.
 * A 2-parameter block gets (key, value) for hashes and (index, element)
 * otherwise; a 1-parameter block gets the element (a [key, value] pair for
 * hashes).
 */
import type { PuppetFunction } from "../registry.js";
import { type PCallable, PHash, PIterator, type PValue, equals } from "../../values.js";

/** Ruby's `==`: like Puppet's but strings compare case-sensitively. */
export function rubyEquals(a: PValue, b: PValue): boolean {
  if (typeof a === "string" || typeof b === "string") return a === b;
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => rubyEquals(x, b[i]));
  if (a instanceof PHash) {
    if (!(b instanceof PHash) || a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !rubyEquals(v, b.get(k))) return false;
    return true;
  }
  return equals(a, b);
}
import { type PType, inferSet, reduceType } from "../../types.js";
import { blk, dispatcher, p, type Signature } from "./dispatch.js";
import { forEach, iterationOf } from "./iterable.js";
import { T } from "./spec.js";

type Body = (v: PValue, block: PCallable) => PValue;

/** The four dispatches every iteration function has: Hash with 2 or 1 parameters, Iterable with 2 or 1. */
function iterating(name: string, hash2: Body, hash1: Body, enum2: Body, enum1: Body): PuppetFunction {
  return dispatcher(name, iterSigs(hash2, hash1, enum2, enum1));
}

function iterSigs(hash2: Body, hash1: Body, enum2: Body, enum1: Body): Signature[] {
  const hashT = T.hashOf(T.any, T.any);
  const sig = (type: typeof T.any, n: number, body: Body): Signature => ({
    params: [p(type === hashT ? "hash" : "enumerable", type)],
    block: blk(n),
    call: (_ctx, args, block) => body(args[0], block as PCallable),
  });
  return [sig(hashT, 2, hash2), sig(hashT, 1, hash1), sig(T.iterable, 2, enum2), sig(T.iterable, 1, enum1)];
}

function entries(v: PValue): [PValue, PValue][] {
  return [...(v as PHash)];
}

function call2(block: PCallable, hashStyle: boolean, x: PValue, i: number): PValue {
  if (hashStyle) {
    const [k, v] = x as PValue[];
    return block.call([k, v]);
  }
  return block.call([BigInt(i), x]);
}

const truthy = (v: PValue): boolean => v !== undefined && v !== false;

export const each = iterating(
  "each",
  (h, b) => {
    forEach(entries(h), (e) => b.call(e as PValue[]));
    return h;
  },
  (h, b) => {
    forEach(entries(h), (e) => b.call([e]));
    return h;
  },
  (v, b) => {
    const { hashStyle, items } = iterationOf(v, "each");
    forEach(items, (x, i) => call2(b, hashStyle, x, i));
    return v;
  },
  (v, b) => {
    forEach(iterationOf(v, "each").items, (x) => b.call([x]));
    return v;
  },
);

export const map = iterating(
  "map",
  (h, b) => collect(entries(h), (e) => b.call(e as PValue[])),
  (h, b) => collect(entries(h), (e) => b.call([e])),
  (v, b) => {
    const { hashStyle, items } = iterationOf(v, "map");
    return collect(items, (x, i) => call2(b, hashStyle, x, i));
  },
  (v, b) => collect(iterationOf(v, "map").items, (x) => b.call([x])),
);

function collect(items: Iterable<PValue>, f: (x: PValue, i: number) => PValue): PValue[] {
  const out: PValue[] = [];
  forEach(items, (x, i) => out.push(f(x, i)));
  return out;
}

function filterHash(h: PValue, pick: (k: PValue, v: PValue) => PValue): PHash {
  const out = new PHash();
  forEach(entries(h), (e) => {
    const [k, v] = e as [PValue, PValue];
    if (truthy(pick(k, v))) out.set(k, v);
  });
  return out;
}

export const filter = iterating(
  "filter",
  (h, b) => filterHash(h, (k, v) => b.call([k, v])),
  (h, b) => filterHash(h, (k, v) => b.call([[k, v]])),
  (v, b) => {
    const { hashStyle, items } = iterationOf(v, "filter");
    const out: PValue[] = [];
    forEach(items, (x, i) => truthy(call2(b, hashStyle, x, i)) && out.push(x));
    return out;
  },
  (v, b) => {
    const out: PValue[] = [];
    forEach(iterationOf(v, "filter").items, (x) => truthy(b.call([x])) && out.push(x));
    return out;
  },
);

/** Returns the first result of `test` that is not undefined, or undefined. */
function findFirst(items: Iterable<PValue>, test: (x: PValue, i: number) => PValue): PValue {
  let found: PValue;
  let done = false;
  forEach(items, (x, i) => {
    if (done) return;
    const r = test(x, i);
    if (r !== undefined) {
      found = r;
      done = true;
    }
  });
  return found;
}

function anyOf(items: Iterable<PValue>, test: (x: PValue, i: number) => boolean): boolean {
  return findFirst(items, (x, i) => (test(x, i) ? true : undefined)) === true;
}

export const any = iterating(
  "any",
  (h, b) => anyOf(entries(h), (e) => truthy(b.call(e as PValue[]))),
  (h, b) => anyOf(entries(h), (e) => truthy(b.call([e]))),
  (v, b) => {
    const { hashStyle, items } = iterationOf(v, "any");
    return anyOf(items, (x, i) => truthy(call2(b, hashStyle, x, i)));
  },
  (v, b) => anyOf(iterationOf(v, "any").items, (x) => truthy(b.call([x]))),
);

export const all = iterating(
  "all",
  (h, b) => !anyOf(entries(h), (e) => !truthy(b.call(e as PValue[]))),
  (h, b) => !anyOf(entries(h), (e) => !truthy(b.call([e]))),
  (v, b) => {
    const { hashStyle, items } = iterationOf(v, "all");
    return !anyOf(items, (x, i) => !truthy(call2(b, hashStyle, x, i)));
  },
  (v, b) => !anyOf(iterationOf(v, "all").items, (x) => !truthy(b.call([x]))),
);

const indexBlock = iterSigs(
  (h, b) => findFirst(entries(h), (e) => (truthy(b.call(e as PValue[])) ? (e as PValue[])[0] : undefined)),
  (h, b) =>
    findFirst(entries(h), (e) => (truthy(b.call([(e as PValue[])[1]])) ? (e as PValue[])[0] : undefined)),
  (v, b) => {
    const { hashStyle, items } = iterationOf(v, "index");
    return findFirst(items, (x, i) =>
      truthy(call2(b, hashStyle, x, i)) ? (hashStyle ? (x as PValue[])[0] : BigInt(i)) : undefined,
    );
  },
  (v, b) => {
    const { hashStyle, items } = iterationOf(v, "index");
    return findFirst(items, (x, i) => {
      const value = hashStyle ? (x as PValue[])[1] : x;
      return truthy(b.call([value])) ? (hashStyle ? (x as PValue[])[0] : BigInt(i)) : undefined;
    });
  },
);

export const index = dispatcher("index", [
  ...indexBlock,
  {
    params: [p("str", T.string), p("match", T.variant(T.string, T.regexp))],
    call: (_c, [s, m]) => stringIndex(s as string, m),
  },
  {
    params: [p("enumerable", T.iterable), p("match", T.any)],
    call: (_c, [v, m]) => {
      const { hashStyle, items } = iterationOf(v, "index");
      return findFirst(items, (x, i) => {
        if (hashStyle) return rubyEquals((x as PValue[])[1], m) ? (x as PValue[])[0] : undefined;
        return rubyEquals(x, m) ? BigInt(i) : undefined;
      });
    },
  },
]);

function stringIndex(s: string, m: PValue): PValue {
  if (typeof m === "string") {
    const i = s.indexOf(m);
    return i < 0 ? undefined : BigInt(Array.from(s.slice(0, i)).length);
  }
  const re = (m as { re: RegExp }).re;
  const r = new RegExp(re.source, re.flags.replace("g", "")).exec(s);
  return r ? BigInt(Array.from(s.slice(0, r.index)).length) : undefined;
}

function reduceWith(v: PValue, block: PCallable, memo: PValue, hasMemo: boolean): PValue {
  const { items } = iterationOf(v, "reduce");
  let acc = memo;
  let first = !hasMemo;
  forEach(items, (x) => {
    if (first) {
      acc = x;
      first = false;
    } else acc = block.call([acc, x]);
  });
  return acc;
}

export const reduce = dispatcher("reduce", [
  {
    params: [p("enumerable", T.iterable)],
    block: blk(2),
    call: (_c, [v], b) => reduceWith(v, b as PCallable, undefined, false),
  },
  {
    params: [p("enumerable", T.iterable), p("memo", T.any)],
    block: blk(2),
    call: (_c, [v, m], b) => reduceWith(v, b as PCallable, m, true),
  },
]);

function collectionPairs(v: PValue): PValue[] {
  return v instanceof PHash ? entries(v) : (v as PValue[]);
}

function groupBy(
  items: PValue[],
  key: (x: PValue, i: number) => PValue,
  value: (x: PValue) => PValue,
): PHash {
  const out = new PHash();
  items.forEach((x, i) => {
    const k = key(x, i);
    const list = out.get(k) as PValue[] | undefined;
    if (list) list.push(value(x));
    else out.set(k, [value(x)]);
  });
  return out;
}

const id = (x: PValue) => x;

export const group_by = dispatcher("group_by", [
  {
    params: [p("collection", T.collection)],
    block: blk(1),
    call: (_c, [v], b) => groupBy(collectionPairs(v), (x) => (b as PCallable).call([x]), id),
  },
  {
    params: [p("array", T.array)],
    block: blk(2),
    call: (_c, [v], b) => groupBy(v as PValue[], (x, i) => (b as PCallable).call([BigInt(i), x]), id),
  },
  {
    params: [p("collection", T.collection)],
    block: blk(2),
    call: (_c, [v], b) => groupBy(collectionPairs(v), (x) => (b as PCallable).call(x as PValue[]), id),
  },
]);

function partitionBy(items: PValue[], test: (x: PValue, i: number) => PValue): PValue[] {
  const yes: PValue[] = [];
  const no: PValue[] = [];
  for (let i = 0; i < items.length; i++) {
    const x = items[i];
    if (truthy(test(x, i))) yes.push(x);
    else no.push(x);
  }
  return [yes, no];
}

export const partition = dispatcher("partition", [
  {
    params: [p("collection", T.collection)],
    block: blk(1),
    call: (_c, [v], b) => partitionBy(collectionPairs(v), (x) => (b as PCallable).call([x])),
  },
  {
    params: [p("array", T.array)],
    block: blk(2),
    call: (_c, [v], b) => partitionBy(v as PValue[], (x, i) => (b as PCallable).call([BigInt(i), x])),
  },
  {
    params: [p("collection", T.collection)],
    block: blk(2),
    call: (_c, [v], b) => partitionBy(collectionPairs(v), (x) => (b as PCallable).call(x as PValue[])),
  },
]);

export const reverse_each = dispatcher("reverse_each", [
  {
    params: [p("iterable", T.iterable)],
    call: (_c, [v]) => {
      const list = [...iterationOf(v, "reverse_each").items].reverse();
      return new PIterator(() => list, elementType(list));
    },
  },
  {
    params: [p("iterable", T.iterable)],
    block: blk(1),
    call: (_c, [v], b) => {
      forEach([...iterationOf(v, "reverse_each").items].reverse(), (x) => (b as PCallable).call([x]));
      return undefined;
    },
  },
]);

/** The common type of an iterator's elements (for messages and `type`). */
function elementType(list: readonly PValue[]): PType | undefined {
  try {
    return list.length === 0 ? undefined : reduceType(list.map(inferSet));
  } catch {
    return undefined;
  }
}

function stepped(v: PValue, step: bigint): PValue[] {
  const list = [...iterationOf(v, "step").items];
  const out: PValue[] = [];
  for (let i = 0; i < list.length; i += Number(step)) out.push(list[i]);
  return out;
}

export const step = dispatcher("step", [
  {
    params: [p("iterable", T.iterable), p("step", T.intRange(1n))],
    call: (_c, [v, s]) => {
      const list = stepped(v, s as bigint);
      return new PIterator(() => list, elementType(list));
    },
  },
  {
    params: [p("iterable", T.iterable), p("step", T.intRange(1n))],
    block: blk(1),
    call: (_c, [v, s], b) => {
      forEach(stepped(v, s as bigint), (x) => (b as PCallable).call([x]));
      return undefined;
    },
  },
]);

export const withFn = dispatcher("with", [
  {
    params: [{ name: "arg", type: T.any, repeated: true, optional: true }],
    block: { name: "block" },
    call: (_c, args, b) => (b as PCallable).call(args),
  },
]);

export const thenFn = dispatcher("then", [
  {
    params: [p("arg", T.any)],
    block: blk(1),
    call: (_c, [v], b) => (v === undefined ? undefined : (b as PCallable).call([v])),
  },
]);

export const lest = dispatcher("lest", [
  {
    params: [p("arg", T.any)],
    block: blk(0),
    call: (_c, [v], b) => (v === undefined ? (b as PCallable).call([]) : v),
  },
]);
