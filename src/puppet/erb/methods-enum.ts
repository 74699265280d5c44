/** Array, Hash and Range methods of the template's Ruby subset (Enumerable over their elements). */
import { type BlockFn, type Interp, RubyError } from "./interp.js";
import {
  arity,
  callMethod,
  compare,
  isNum,
  type Method,
  mustCompare,
  needBlock,
  type Table,
  toInt,
  typeError,
} from "./methods.js";
import {
  inspect,
  keyOf,
  RHash,
  RRange,
  RRegexp,
  RSymbol,
  type RValue,
  rangeToArray,
  requal,
  toS,
  truthy,
} from "./ruby-values.js";

const first = (a: RValue[]): RValue => a[0] ?? null;

/** Ruby's Array#join: nested arrays joined too, nil as "". */
function join(a: RValue[], sep: string): string {
  return a.map((x) => (Array.isArray(x) ? join(x, sep) : toS(x))).join(sep);
}

function flatten(a: RValue[], depth: number): RValue[] {
  const out: RValue[] = [];
  for (const x of a) {
    if (Array.isArray(x) && depth !== 0) out.push(...flatten(x, depth - 1));
    else out.push(x);
  }
  return out;
}

function uniq(a: RValue[], key: (v: RValue) => RValue): RValue[] {
  const seen = new Set<string>();
  const out: RValue[] = [];
  for (const x of a) {
    const k = keyOf(key(x));
    if (!seen.has(k)) {
      seen.add(k);
      out.push(x);
    }
  }
  return out;
}

/** A stable sort with Ruby's `<=>` (or the block's answer). */
function sort(a: RValue[], blk: BlockFn | null): RValue[] {
  const cmp = blk
    ? (x: RValue, y: RValue): number => {
        const r = blk.call([x, y]);
        if (!isNum(r))
          throw new RubyError(`comparison of ${inspect(x)} with ${inspect(y)} failed`, "ArgumentError");
        return Number(r);
      }
    : mustCompare;
  if (!blk) for (const x of a.slice(1)) mustCompare(a[0] ?? null, x);
  return [...a].sort(cmp);
}

function sortBy(a: RValue[], blk: BlockFn): RValue[] {
  const keyed = a.map((x) => [blk.call([x]), x] as const);
  keyed.sort((p, q) => mustCompare(p[0], q[0]));
  return keyed.map((p) => p[1]);
}

function minMax(a: RValue[], blk: BlockFn | null, args: RValue[], sign: 1 | -1, by: boolean): RValue {
  const key = (x: RValue): RValue => (by && blk ? blk.call([x]) : x);
  const cmp = (x: RValue, y: RValue): number =>
    !by && blk ? Number(blk.call([x, y]) as bigint) : mustCompare(key(x), key(y));
  if (args.length > 0) {
    const n = Number(toInt(args[0] ?? null));
    return [...a].sort((x, y) => sign * cmp(x, y)).slice(0, n);
  }
  let best: RValue = null;
  let has = false;
  for (const x of a) {
    if (!has || sign * cmp(x, best) < 0) best = x;
    has = true;
  }
  return best;
}

function sum(a: RValue[], init: RValue, it: Interp): RValue {
  let acc = init;
  for (const x of a) acc = callMethod(it, acc, "+", [x], null);
  return acc;
}

function inject(it: Interp, a: RValue[], args: RValue[], blk: BlockFn | null): RValue {
  let items = a;
  let acc: RValue;
  let op: string | null = null;
  if (args.length === 2) {
    acc = args[0] ?? null;
    op = toS(args[1] ?? null);
  } else if (args.length === 1 && (args[0] instanceof RSymbol || (!blk && typeof args[0] === "string"))) {
    op = toS(args[0] ?? null);
    acc = first(items);
    items = items.slice(1);
  } else if (args.length === 1) acc = args[0] ?? null;
  else {
    acc = first(items);
    items = items.slice(1);
  }
  for (const x of items)
    acc = op ? callMethod(it, acc, op, [x], null) : needBlock(blk, "inject").call([acc, x]);
  return acc;
}

/** Enumerable methods over `items(self)`; `wrap` turns a filtered element list back into the receiver's kind. */
function enumerable<T>(items: (self: T) => RValue[], wrap: (self: T, els: RValue[]) => RValue): Table {
  return {
    each_with_index: (_it, self: T, _args, blk) => {
      const els = items(self);
      if (!blk) return els.map((x, i) => [x, BigInt(i)]);
      for (const [i, x] of els.entries()) blk.call([x, BigInt(i)]);
      return self as RValue;
    },
    each_with_object: (_it, self: T, args, blk) => {
      const memo = args[0] ?? null;
      for (const x of items(self)) needBlock(blk, "each_with_object").call([x, memo]);
      return memo;
    },
    map: (_it, self: T, _args, blk) => (blk ? items(self).map((x) => blk.call([x])) : items(self)),
    collect: (_it, self: T, _args, blk) => (blk ? items(self).map((x) => blk.call([x])) : items(self)),
    flat_map: (_it, self: T, _args, blk) =>
      items(self).flatMap((x) => {
        const r = needBlock(blk, "flat_map").call([x]);
        return Array.isArray(r) ? r : [r];
      }),
    filter_map: (_it, self: T, _args, blk) =>
      items(self)
        .map((x) => needBlock(blk, "filter_map").call([x]))
        .filter(truthy),
    with_index: (_it, self: T, args, blk) => {
      const off = args[0] === undefined ? 0n : toInt(args[0]);
      return items(self).map((x, i) => needBlock(blk, "with_index").call([x, BigInt(i) + off]));
    },
    each_slice: (_it, self: T, args, blk) => {
      const n = Number(toInt(args[0] ?? null));
      if (n <= 0) throw new RubyError("invalid slice size", "ArgumentError");
      const els = items(self);
      const slices: RValue[] = [];
      for (let i = 0; i < els.length; i += n) slices.push(els.slice(i, i + n));
      if (!blk) return slices;
      for (const s of slices) blk.call([s]);
      return self as RValue;
    },
    each_cons: (_it, self: T, args, blk) => {
      const n = Number(toInt(args[0] ?? null));
      const els = items(self);
      const out: RValue[] = [];
      for (let i = 0; i + n <= els.length; i++) out.push(els.slice(i, i + n));
      if (!blk) return out;
      for (const s of out) blk.call([s]);
      return self as RValue;
    },
    select: (_it, self: T, _args, blk) =>
      wrap(
        self,
        items(self).filter((x) => truthy(needBlock(blk, "select").call([x]))),
      ),
    filter: (_it, self: T, _args, blk) =>
      wrap(
        self,
        items(self).filter((x) => truthy(needBlock(blk, "filter").call([x]))),
      ),
    reject: (_it, self: T, _args, blk) =>
      wrap(
        self,
        items(self).filter((x) => !truthy(needBlock(blk, "reject").call([x]))),
      ),
    partition: (_it, self: T, _args, blk) => {
      const yes: RValue[] = [];
      const no: RValue[] = [];
      for (const x of items(self)) (truthy(needBlock(blk, "partition").call([x])) ? yes : no).push(x);
      return [yes, no];
    },
    find: (_it, self: T, _args, blk) =>
      items(self).find((x) => truthy(needBlock(blk, "find").call([x]))) ?? null,
    detect: (_it, self: T, _args, blk) =>
      items(self).find((x) => truthy(needBlock(blk, "detect").call([x]))) ?? null,
    find_index: (it, self: T, args, blk) => {
      const i = items(self).findIndex((x) => (blk ? truthy(blk.call([x])) : it.equal(x, args[0] ?? null)));
      return i < 0 ? null : BigInt(i);
    },
    "all?": (it, self: T, args, blk) => items(self).every((x) => test(it, x, args, blk)),
    "any?": (it, self: T, args, blk) => items(self).some((x) => test(it, x, args, blk)),
    "none?": (it, self: T, args, blk) => !items(self).some((x) => test(it, x, args, blk)),
    "one?": (it, self: T, args, blk) => items(self).filter((x) => test(it, x, args, blk)).length === 1,
    count: (it, self: T, args, blk) => {
      const els = items(self);
      if (args.length > 0) return BigInt(els.filter((x) => it.equal(x, args[0] ?? null)).length);
      if (blk) return BigInt(els.filter((x) => truthy(blk.call([x]))).length);
      return BigInt(els.length);
    },
    group_by: (_it, self: T, _args, blk) => {
      const h = new RHash();
      for (const x of items(self)) {
        const k = needBlock(blk, "group_by").call([x]);
        const list = h.has(k) ? (h.get(k) as RValue[]) : [];
        list.push(x);
        h.set(k, list);
      }
      return h;
    },
    tally: (_it, self: T) => {
      const h = new RHash();
      for (const x of items(self)) h.set(x, ((h.has(x) ? h.get(x) : 0n) as bigint) + 1n);
      return h;
    },
    sort: (_it, self: T, _args, blk) => sort(items(self), blk),
    sort_by: (_it, self: T, _args, blk) => sortBy(items(self), needBlock(blk, "sort_by")),
    min: (_it, self: T, args, blk) => minMax(items(self), blk, args, 1, false),
    max: (_it, self: T, args, blk) => minMax(items(self), blk, args, -1, false),
    min_by: (_it, self: T, args, blk) => minMax(items(self), needBlock(blk, "min_by"), args, 1, true),
    max_by: (_it, self: T, args, blk) => minMax(items(self), needBlock(blk, "max_by"), args, -1, true),
    minmax: (_it, self: T) => [
      minMax(items(self), null, [], 1, false),
      minMax(items(self), null, [], -1, false),
    ],
    sum: (it, self: T, args, blk) =>
      sum(blk ? items(self).map((x) => blk.call([x])) : items(self), args[0] ?? 0n, it),
    inject: (it, self: T, args, blk) => inject(it, items(self), args, blk),
    reduce: (it, self: T, args, blk) => inject(it, items(self), args, blk),
    to_a: (_it, self: T) => items(self),
    entries: (_it, self: T) => items(self),
    "include?": (it, self: T, args) => items(self).some((x) => it.equal(x, args[0] ?? null)),
    "member?": (it, self: T, args) => items(self).some((x) => it.equal(x, args[0] ?? null)),
    zip: (_it, self: T, args) =>
      items(self).map((x, i) => [x, ...args.map((a) => (Array.isArray(a) ? (a[i] ?? null) : null))]),
    take: (_it, self: T, args) => items(self).slice(0, Number(toInt(args[0] ?? null))),
    drop: (_it, self: T, args) => items(self).slice(Number(toInt(args[0] ?? null))),
    take_while: (_it, self: T, _args, blk) => {
      const els = items(self);
      const i = els.findIndex((x) => !truthy(needBlock(blk, "take_while").call([x])));
      return i < 0 ? els : els.slice(0, i);
    },
    drop_while: (_it, self: T, _args, blk) => {
      const els = items(self);
      const i = els.findIndex((x) => !truthy(needBlock(blk, "drop_while").call([x])));
      return i < 0 ? [] : els.slice(i);
    },
    uniq: (_it, self: T, _args, blk) => uniq(items(self), (x) => (blk ? blk.call([x]) : x)),
    grep: (it, self: T, args, blk) => {
      const els = items(self).filter((x) => truthy(callMethod(it, args[0] ?? null, "===", [x], null)));
      return blk ? els.map((x) => blk.call([x])) : els;
    },
    grep_v: (it, self: T, args) =>
      items(self).filter((x) => !truthy(callMethod(it, args[0] ?? null, "===", [x], null))),
    each_entry: (_it, self: T, _args, blk) => {
      for (const x of items(self)) needBlock(blk, "each_entry").call([x]);
      return self as RValue;
    },
    chunk_while: (_it, self: T, _args, blk) => {
      const out: RValue[][] = [];
      for (const x of items(self)) {
        const cur = out[out.length - 1];
        if (cur && truthy(needBlock(blk, "chunk_while").call([cur[cur.length - 1] ?? null, x]))) cur.push(x);
        else out.push([x]);
      }
      return out;
    },
    to_set: (_it, self: T) => uniq(items(self), (x) => x),
    lazy: (_it, self: T) => items(self),
    to_h: (_it, self: T, _args, blk) => {
      const h = new RHash();
      for (const x of items(self)) {
        const p = blk ? blk.call([x]) : x;
        if (!Array.isArray(p) || p.length !== 2)
          throw new RubyError(`wrong element type ${inspect(p)} (expected array)`, "TypeError");
        h.set(p[0] ?? null, p[1] ?? null);
      }
      return h;
    },
  };
}

function test(it: Interp, x: RValue, args: RValue[], blk: BlockFn | null): boolean {
  if (args.length > 0) return truthy(callMethod(it, args[0] ?? null, "===", [x], null));
  return blk ? truthy(blk.call([x])) : truthy(x);
}

function index(a: RValue[], args: RValue[]): RValue {
  arity(args, 1, 2);
  const i0 = args[0] ?? null;
  if (args.length === 2) {
    let s = Number(toInt(i0));
    const len = Number(toInt(args[1] ?? null));
    if (s < 0) s += a.length;
    if (s < 0 || s > a.length || len < 0) return null;
    return a.slice(s, s + len);
  }
  if (i0 instanceof RRange) {
    let s = i0.from === null ? 0 : Number(toInt(i0.from));
    let e = i0.to === null ? a.length - 1 : Number(toInt(i0.to));
    if (s < 0) s += a.length;
    if (e < 0) e += a.length;
    if (i0.exclusive && i0.to !== null) e -= 1;
    if (s < 0 || s > a.length) return null;
    return a.slice(s, Math.max(s, e + 1));
  }
  const i = Number(toInt(i0));
  return a[i < 0 ? a.length + i : i] ?? null;
}

const arrayEnum = enumerable<RValue[]>(
  (a) => a,
  (_a, els) => els,
);

const ARRAY: Table = {
  ...arrayEnum,
  each: (_it, self: RValue[], _args, blk) => {
    if (!blk) return self;
    for (const x of [...self]) blk.call([x]);
    return self;
  },
  reverse_each: (_it, self: RValue[], _args, blk) => {
    if (!blk) return [...self].reverse();
    for (const x of [...self].reverse()) blk.call([x]);
    return self;
  },
  "[]": (_it, self: RValue[], args) => index(self, args),
  slice: (_it, self: RValue[], args) => index(self, args),
  "[]=": (_it, self: RValue[], args) => {
    arity(args, 2);
    let i = Number(toInt(args[0] ?? null));
    if (i < 0) i += self.length;
    while (self.length < i) self.push(null);
    self[i] = args[1] ?? null;
    return args[1] ?? null;
  },
  at: (_it, self: RValue[], args) => index(self, args),
  dig: (it, self: RValue[], args) => dig(it, self, args),
  fetch: (_it, self: RValue[], args, blk) => {
    const i = Number(toInt(args[0] ?? null));
    const j = i < 0 ? self.length + i : i;
    if (j >= 0 && j < self.length) return self[j] ?? null;
    if (blk) return blk.call([args[0] ?? null]);
    if (args.length > 1) return args[1] ?? null;
    throw new RubyError(`index ${i} outside of array bounds: ${-self.length}...${self.length}`, "IndexError");
  },
  values_at: (_it, self: RValue[], args) => args.map((a) => index(self, [a])),
  first: (_it, self: RValue[], args) =>
    args.length ? self.slice(0, Number(toInt(args[0] ?? null))) : first(self),
  last: (_it, self: RValue[], args) =>
    args.length
      ? self.slice(Math.max(0, self.length - Number(toInt(args[0] ?? null))))
      : (self[self.length - 1] ?? null),
  length: (_it, self: RValue[]) => BigInt(self.length),
  size: (_it, self: RValue[]) => BigInt(self.length),
  "empty?": (_it, self: RValue[]) => self.length === 0,
  "any?": arrayEnum["any?"] as Method,
  index: (it, self: RValue[], args, blk) => {
    const i = self.findIndex((x) => (blk ? truthy(blk.call([x])) : it.equal(x, args[0] ?? null)));
    return i < 0 ? null : BigInt(i);
  },
  rindex: (it, self: RValue[], args, blk) => {
    for (let i = self.length - 1; i >= 0; i--)
      if (blk ? truthy(blk.call([self[i] ?? null])) : it.equal(self[i] ?? null, args[0] ?? null))
        return BigInt(i);
    return null;
  },
  join: (_it, self: RValue[], args) =>
    join(self, args[0] === undefined || args[0] === null ? "" : toS(args[0])),
  to_s: (_it, self: RValue[]) => inspect(self),
  inspect: (_it, self: RValue[]) => inspect(self),
  to_ary: (_it, self: RValue[]) => self,
  push: (_it, self: RValue[], args) => {
    self.push(...args);
    return self;
  },
  append: (_it, self: RValue[], args) => {
    self.push(...args);
    return self;
  },
  "<<": (_it, self: RValue[], args) => {
    self.push(args[0] ?? null);
    return self;
  },
  unshift: (_it, self: RValue[], args) => {
    self.unshift(...args);
    return self;
  },
  prepend: (_it, self: RValue[], args) => {
    self.unshift(...args);
    return self;
  },
  insert: (_it, self: RValue[], args) => {
    const i = Number(toInt(args[0] ?? null));
    self.splice(i < 0 ? self.length + i + 1 : i, 0, ...args.slice(1));
    return self;
  },
  pop: (_it, self: RValue[]) => self.pop() ?? null,
  shift: (_it, self: RValue[]) => self.shift() ?? null,
  concat: (_it, self: RValue[], args) => {
    for (const a of args) self.push(...(Array.isArray(a) ? a : typeError(a, "Array")));
    return self;
  },
  delete: (it, self: RValue[], args) => {
    const v = args[0] ?? null;
    let found: RValue = null;
    for (let i = self.length - 1; i >= 0; i--)
      if (it.equal(self[i] ?? null, v)) {
        found = self[i] ?? null;
        self.splice(i, 1);
      }
    return found;
  },
  delete_at: (_it, self: RValue[], args) => {
    const i = Number(toInt(args[0] ?? null));
    return self.splice(i < 0 ? self.length + i : i, 1)[0] ?? null;
  },
  delete_if: (_it, self: RValue[], _args, blk) => {
    const keep = self.filter((x) => !truthy(needBlock(blk, "delete_if").call([x])));
    self.splice(0, self.length, ...keep);
    return self;
  },
  clear: (_it, self: RValue[]) => {
    self.length = 0;
    return self;
  },
  "+": (_it, self: RValue[], args) => [
    ...self,
    ...(Array.isArray(args[0]) ? args[0] : typeError(args[0] ?? null, "Array")),
  ],
  "-": (it, self: RValue[], args) => {
    const other = Array.isArray(args[0]) ? args[0] : typeError(args[0] ?? null, "Array");
    const keys = new Set(other.map(keyOf));
    void it;
    return self.filter((x) => !keys.has(keyOf(x)));
  },
  "*": (_it, self: RValue[], args) => {
    if (typeof args[0] === "string") return join(self, args[0]);
    const n = Number(toInt(args[0] ?? null));
    return Array.from({ length: n }, () => self).flat();
  },
  "&": (_it, self: RValue[], args) => {
    const keys = new Set((args[0] as RValue[]).map(keyOf));
    return uniq(
      self.filter((x) => keys.has(keyOf(x))),
      (x) => x,
    );
  },
  "|": (_it, self: RValue[], args) => uniq([...self, ...(args[0] as RValue[])], (x) => x),
  "==": (_it, self: RValue[], args) => requal(self, args[0] ?? null),
  "<=>": (_it, self: RValue[], args) => {
    const c = compare(self, args[0] ?? null);
    return c === null ? null : BigInt(c);
  },
  compact: (_it, self: RValue[]) => self.filter((x) => x !== null),
  flatten: (_it, self: RValue[], args) =>
    flatten(self, args[0] === undefined || args[0] === null ? -1 : Number(toInt(args[0]))),
  reverse: (_it, self: RValue[]) => [...self].reverse(),
  rotate: (_it, self: RValue[], args) => {
    if (self.length === 0) return [];
    const n = ((Number(toInt(args[0] ?? 1n)) % self.length) + self.length) % self.length;
    return [...self.slice(n), ...self.slice(0, n)];
  },
  transpose: (_it, self: RValue[]) => {
    const rows = self as RValue[][];
    return (rows[0] ?? []).map((_x, i) => rows.map((r) => r[i] ?? null));
  },
  product: (_it, self: RValue[], args) => {
    let out: RValue[][] = self.map((x) => [x]);
    for (const a of args) out = out.flatMap((p) => (a as RValue[]).map((y) => [...p, y]));
    return out;
  },
  combination: (_it, self: RValue[], args) => {
    const n = Number(toInt(args[0] ?? null));
    const out: RValue[][] = [];
    const rec = (start: number, acc: RValue[]): void => {
      if (acc.length === n) {
        out.push(acc);
        return;
      }
      for (let i = start; i < self.length; i++) rec(i + 1, [...acc, self[i] ?? null]);
    };
    rec(0, []);
    return out;
  },
  assoc: (it, self: RValue[], args) =>
    self.find((x) => Array.isArray(x) && it.equal(x[0] ?? null, args[0] ?? null)) ?? null,
  to_a: (_it, self: RValue[]) => self,
  "sort!": (_it, self: RValue[], _args, blk) => {
    const s = sort(self, blk);
    self.splice(0, self.length, ...s);
    return self;
  },
  "uniq!": (_it, self: RValue[]) => {
    const s = uniq(self, (x) => x);
    const changed = s.length !== self.length;
    self.splice(0, self.length, ...s);
    return changed ? self : null;
  },
  "compact!": (_it, self: RValue[]) => {
    const s = self.filter((x) => x !== null);
    const changed = s.length !== self.length;
    self.splice(0, self.length, ...s);
    return changed ? self : null;
  },
  "flatten!": (_it, self: RValue[]) => {
    self.splice(0, self.length, ...flatten(self, -1));
    return self;
  },
  "reverse!": (_it, self: RValue[]) => self.reverse(),
  "map!": (_it, self: RValue[], _args, blk) => {
    self.splice(0, self.length, ...self.map((x) => needBlock(blk, "map!").call([x])));
    return self;
  },
  "select!": (_it, self: RValue[], _args, blk) => {
    self.splice(0, self.length, ...self.filter((x) => truthy(needBlock(blk, "select!").call([x]))));
    return self;
  },
  "reject!": (_it, self: RValue[], _args, blk) => {
    self.splice(0, self.length, ...self.filter((x) => !truthy(needBlock(blk, "reject!").call([x]))));
    return self;
  },
  sample: (_it, self: RValue[]) => first(self),
  pack: () => {
    throw new RubyError("Array#pack is not in the ERB subset", "NoMethodError");
  },
};

function dig(it: Interp, self: RValue, args: RValue[]): RValue {
  let v = self;
  for (const k of args) {
    if (v === null) return null;
    v = callMethod(it, v, "[]", [k], null);
  }
  return v;
}

const hashEnum = enumerable<RHash>(
  (h) => h.entries(),
  (self, els) => {
    const out = RHash.from(els as [RValue, RValue][]);
    out.default = self.default;
    return out;
  },
);

function hashEach(self: RHash, blk: BlockFn | null): RValue {
  if (!blk) return self.entries();
  for (const [k, v] of self.entries()) blk.call(blk.arity > 1 ? [k, v] : [[k, v]]);
  return self;
}

function fetchKey(self: RHash, args: RValue[], blk: BlockFn | null): RValue {
  arity(args, 1, 2);
  const k = args[0] ?? null;
  if (self.has(k)) return self.get(k);
  if (blk) return blk.call([k]);
  if (args.length > 1) return args[1] ?? null;
  throw new RubyError(`key not found: ${inspect(k)}`, "KeyError");
}

function merge(self: RHash, args: RValue[], blk: BlockFn | null): RHash {
  const out = RHash.from(self.entries());
  out.default = self.default;
  for (const o of args) {
    if (!(o instanceof RHash)) typeError(o, "Hash");
    for (const [k, v] of o.entries()) out.set(k, blk && out.has(k) ? blk.call([k, out.get(k), v]) : v);
  }
  return out;
}

const HASH: Table = {
  ...hashEnum,
  each: (_it, self: RHash, _args, blk) => hashEach(self, blk),
  each_pair: (_it, self: RHash, _args, blk) => hashEach(self, blk),
  each_key: (_it, self: RHash, _args, blk) => {
    for (const [k] of self.entries()) needBlock(blk, "each_key").call([k]);
    return self;
  },
  each_value: (_it, self: RHash, _args, blk) => {
    for (const [, v] of self.entries()) needBlock(blk, "each_value").call([v]);
    return self;
  },
  "[]": (_it, self: RHash, args) => {
    arity(args, 1);
    return self.get(args[0] ?? null);
  },
  "[]=": (_it, self: RHash, args) => {
    arity(args, 2);
    self.set(args[0] ?? null, args[1] ?? null);
    return args[1] ?? null;
  },
  store: (_it, self: RHash, args) => {
    self.set(args[0] ?? null, args[1] ?? null);
    return args[1] ?? null;
  },
  fetch: (_it, self: RHash, args, blk) => fetchKey(self, args, blk),
  dig: (it, self: RHash, args) => dig(it, self, args),
  "key?": (_it, self: RHash, args) => self.has(args[0] ?? null),
  "has_key?": (_it, self: RHash, args) => self.has(args[0] ?? null),
  "include?": (_it, self: RHash, args) => self.has(args[0] ?? null),
  "member?": (_it, self: RHash, args) => self.has(args[0] ?? null),
  "value?": (it, self: RHash, args) => self.entries().some(([, v]) => it.equal(v, args[0] ?? null)),
  "has_value?": (it, self: RHash, args) => self.entries().some(([, v]) => it.equal(v, args[0] ?? null)),
  key: (it, self: RHash, args) => self.entries().find(([, v]) => it.equal(v, args[0] ?? null))?.[0] ?? null,
  keys: (_it, self: RHash) => self.entries().map(([k]) => k),
  values: (_it, self: RHash) => self.entries().map(([, v]) => v),
  values_at: (_it, self: RHash, args) => args.map((k) => self.get(k)),
  fetch_values: (_it, self: RHash, args, blk) => args.map((k) => fetchKey(self, [k], blk)),
  length: (_it, self: RHash) => BigInt(self.size),
  size: (_it, self: RHash) => BigInt(self.size),
  "empty?": (_it, self: RHash) => self.size === 0,
  merge: (_it, self: RHash, args, blk) => merge(self, args, blk),
  update: (_it, self: RHash, args, blk) => {
    const m = merge(self, args, blk);
    for (const [k, v] of m.entries()) self.set(k, v);
    return self;
  },
  "merge!": (_it, self: RHash, args, blk) => {
    const m = merge(self, args, blk);
    for (const [k, v] of m.entries()) self.set(k, v);
    return self;
  },
  delete: (_it, self: RHash, args) => self.delete(args[0] ?? null),
  delete_if: (_it, self: RHash, _args, blk) => {
    for (const [k, v] of self.entries()) if (truthy(needBlock(blk, "delete_if").call([k, v]))) self.delete(k);
    return self;
  },
  "reject!": (_it, self: RHash, _args, blk) => {
    for (const [k, v] of self.entries()) if (truthy(needBlock(blk, "reject!").call([k, v]))) self.delete(k);
    return self;
  },
  "select!": (_it, self: RHash, _args, blk) => {
    for (const [k, v] of self.entries()) if (!truthy(needBlock(blk, "select!").call([k, v]))) self.delete(k);
    return self;
  },
  keep_if: (_it, self: RHash, _args, blk) => {
    for (const [k, v] of self.entries()) if (!truthy(needBlock(blk, "keep_if").call([k, v]))) self.delete(k);
    return self;
  },
  to_h: (_it, self: RHash, _args, blk) => {
    if (!blk) return self;
    return RHash.from(
      self.entries().map(([k, v]) => {
        const p = blk.call([k, v]);
        return [Array.isArray(p) ? (p[0] ?? null) : null, Array.isArray(p) ? (p[1] ?? null) : null];
      }),
    );
  },
  to_a: (_it, self: RHash) => self.entries(),
  to_s: (_it, self: RHash) => inspect(self),
  inspect: (_it, self: RHash) => inspect(self),
  invert: (_it, self: RHash) => RHash.from(self.entries().map(([k, v]) => [v, k])),
  transform_values: (_it, self: RHash, _args, blk) =>
    RHash.from(self.entries().map(([k, v]) => [k, needBlock(blk, "transform_values").call([v])])),
  transform_keys: (_it, self: RHash, _args, blk) =>
    RHash.from(self.entries().map(([k, v]) => [needBlock(blk, "transform_keys").call([k]), v])),
  slice: (_it, self: RHash, args) => RHash.from(args.filter((k) => self.has(k)).map((k) => [k, self.get(k)])),
  except: (_it, self: RHash, args) => {
    const drop = new Set(args.map(keyOf));
    return RHash.from(self.entries().filter(([k]) => !drop.has(keyOf(k))));
  },
  compact: (_it, self: RHash) => RHash.from(self.entries().filter(([, v]) => v !== null)),
  first: (_it, self: RHash, args) =>
    args.length ? self.entries().slice(0, Number(toInt(args[0] ?? null))) : (self.entries()[0] ?? null),
  sort: (_it, self: RHash, _args, blk) => sort(self.entries(), blk),
  "==": (_it, self: RHash, args) => requal(self, args[0] ?? null),
  default: (_it, self: RHash) => self.default,
  "default=": (_it, self: RHash, args) => {
    self.default = args[0] ?? null;
    return self.default;
  },
  count: (it, self: RHash, args, blk) =>
    blk
      ? BigInt(self.entries().filter(([k, v]) => truthy(blk.call([k, v]))).length)
      : (hashEnum.count as Method)(it, self as never, args, blk),
  "any?": (_it, self: RHash, _args, blk) =>
    blk ? self.entries().some(([k, v]) => truthy(blk.call([k, v]))) : self.size > 0,
  "all?": (_it, self: RHash, _args, blk) =>
    blk ? self.entries().every(([k, v]) => truthy(blk.call([k, v]))) : true,
  clear: (_it, self: RHash) => {
    self.map.clear();
    return self;
  },
  group_by: hashEnum.group_by as Method,
};

function rangeItems(r: RRange): RValue[] {
  return rangeToArray(r);
}

const RANGE: Table = {
  ...enumerable<RRange>(rangeItems, (_r, els) => els),
  each: (_it, self: RRange, _args, blk) => {
    if (!blk) return rangeItems(self);
    for (const x of rangeItems(self)) blk.call([x]);
    return self;
  },
  first: (_it, self: RRange, args) =>
    args.length ? rangeItems(self).slice(0, Number(toInt(args[0] ?? null))) : self.from,
  last: (_it, self: RRange, args) => {
    if (!args.length) return self.to;
    const els = rangeItems(self);
    return els.slice(Math.max(0, els.length - Number(toInt(args[0] ?? null))));
  },
  begin: (_it, self: RRange) => self.from,
  end: (_it, self: RRange) => self.to,
  min: (_it, self: RRange) => first(rangeItems(self)),
  max: (_it, self: RRange) => rangeItems(self).pop() ?? null,
  size: (_it, self: RRange) => BigInt(rangeItems(self).length),
  count: (_it, self: RRange) => BigInt(rangeItems(self).length),
  step: (_it, self: RRange, args, blk) => {
    const n = Number(toInt(args[0] ?? null));
    const els = rangeItems(self).filter((_x, i) => i % n === 0);
    if (!blk) return els;
    for (const x of els) blk.call([x]);
    return self;
  },
  "include?": (_it, self: RRange, args) => inRange(self, args[0] ?? null),
  "member?": (_it, self: RRange, args) => inRange(self, args[0] ?? null),
  "cover?": (_it, self: RRange, args) => inRange(self, args[0] ?? null),
  "===": (_it, self: RRange, args) => inRange(self, args[0] ?? null),
  "exclude_end?": (_it, self: RRange) => self.exclusive,
  to_s: (_it, self: RRange) => `${toS(self.from)}${self.exclusive ? "..." : ".."}${toS(self.to)}`,
};

function inRange(r: RRange, v: RValue): boolean {
  const lo = r.from === null ? -1 : compare(r.from, v);
  const hi = r.to === null ? -1 : compare(v, r.to);
  if (lo === null || hi === null) return false;
  return lo <= 0 && (r.exclusive ? hi < 0 : hi <= 0);
}

void RRegexp;
void RSymbol;

export const ARRAY_METHODS: Table = ARRAY;
export const HASH_METHODS: Table = HASH;
export const RANGE_METHODS: Table = RANGE;
