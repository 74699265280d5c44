/** stdlib's 3.x functions over arrays and hashes, with stdlib's own checks and messages. */
import { succ } from "../../../erb/ruby-values.js";
import type { PuppetFunction } from "../registry.js";
import { PHash, type PValue, rubyEqlKey } from "../../values.js";
import { fail, flattenDeep, legacy, noMethod, rubyClass, rubyEq, rubyInspect, rubyToS } from "./support.js";
import { str2boolValue } from "./strings.js";

const isArr = Array.isArray as (v: PValue) => v is PValue[];
const isHash = (v: PValue): v is PHash => v instanceof PHash;

/** Ruby's `Array(x)`. */
function rubyArray(v: PValue): PValue[] {
  if (v === undefined) return [];
  if (isArr(v)) return v;
  if (isHash(v)) return [...v].map(([k, x]) => [k, x]);
  return [v];
}

function minus(a: PValue[], b: PValue[]): PValue[] {
  const keys = new Set(b.map(rubyEqlKey));
  return a.filter((x) => !keys.has(rubyEqlKey(x)));
}

function uniq(a: PValue[]): PValue[] {
  const seen = new Set<string>();
  return a.filter((x) => {
    const k = rubyEqlKey(x);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

export const any2array: PuppetFunction = legacy((_ctx, args) => {
  if (args.length === 0) return [];
  if (args.length !== 1) return args;
  const a = args[0];
  if (isArr(a)) return a;
  if (a === "") return [];
  if (isHash(a)) return [...a].flat();
  return args;
});

export const concat: PuppetFunction = legacy((_ctx, args) => {
  if (args.length < 2) fail(`concat(): Wrong number of arguments given (${args.length} for < 2)`);
  const a = args[0];
  if (!isArr(a)) fail("concat(): Requires array to work with");
  const out = [...a];
  for (const x of args.slice(1)) out.push(...(isArr(x) ? x : [x as PValue]));
  return out;
});

export const count: PuppetFunction = legacy((_ctx, args) => {
  if (args.length > 2) fail(`count(): Wrong number of arguments given ${args.length} for 1 or 2.`);
  const [collection, item] = args;
  const items = isHash(collection)
    ? [...collection].map(([k, v]) => [k, v] as PValue)
    : isArr(collection)
      ? collection
      : noMethod("count", collection);
  if (item !== undefined && item !== false) return BigInt(items.filter((x) => rubyEq(x, item)).length);
  return BigInt(items.filter((x) => x !== undefined && x !== "").length);
});

export const delete_: PuppetFunction = legacy((_ctx, args) => {
  if (args.length !== 2) fail(`delete(): Wrong number of arguments given ${args.length} for 2`);
  let c = args[0];
  for (const item of rubyArray(args[1])) {
    if (isArr(c)) c = c.filter((x) => !rubyEq(x, item));
    else if (isHash(c)) {
      const h = c.clone();
      h.delete(item);
      c = h;
    } else if (typeof c === "string") {
      if (typeof item !== "string") fail(`wrong argument type ${rubyClass(item)} (expected Regexp)`);
      c = c.split(item).join("");
    } else
      fail(
        `delete(): First argument must be an Array, String, or Hash. Given an argument of class ${rubyClass(c)}.`,
      );
  }
  return c;
});

export const delete_at: PuppetFunction = legacy((_ctx, args) => {
  if (args.length < 2) fail(`delete_at(): Wrong number of arguments given (${args.length} for 2)`);
  const a = args[0];
  if (!isArr(a)) fail("delete_at(): Requires array to work with");
  const index = args[1];
  if (typeof index === "string" && !/^\d+$/m.test(index))
    fail("delete_at(): You must provide non-negative numeric index");
  const i = Number(toI(index));
  if (i > a.length - 1) fail("delete_at(): Given index exceeds size of array given");
  const out = [...a];
  out.splice(i < 0 ? a.length + i : i, 1);
  return out;
});

function toI(v: PValue): bigint {
  if (typeof v === "bigint") return v;
  if (typeof v === "number") return BigInt(Math.trunc(v));
  if (typeof v === "string") {
    const m = /^\s*([-+]?\d+(?:_\d+)*)/.exec(v);
    return m ? BigInt((m[1] as string).replace(/_/g, "")) : 0n;
  }
  return noMethod("to_i", v);
}

export const delete_regex: PuppetFunction = legacy((_ctx, args) => {
  if (args.length !== 2) fail(`delete_regex(): Wrong number of arguments given ${args.length} for 2`);
  let c = args[0];
  for (const item of rubyArray(args[1])) {
    const re = new RegExp(`\\b${rubyToS(item)}\\b`, "m");
    if (isArr(c)) c = c.filter((x) => !(typeof x === "string" && re.test(x)));
    else if (isHash(c)) c = PHash.from([...c].filter(([k]) => !(typeof k === "string" && re.test(k))));
    else if (typeof c === "string") noMethod("reject!", c);
    else
      fail(
        `delete_regex(): First argument must be an Array, Hash, or String. Given an argument of class ${rubyClass(c)}.`,
      );
  }
  return c;
});

export const delete_undef_values: PuppetFunction = legacy((_ctx, args) => {
  if (args.length === 0) fail(`delete_undef_values(): Wrong number of arguments given (${args.length})`);
  const a = args[0];
  if (isHash(a)) return PHash.from([...a].filter(([, v]) => v !== undefined));
  if (isArr(a)) return a.filter((v) => v !== undefined);
  return fail(`delete_undef_values(): expected an array or hash, got ${rubyToS(a)} type  ${rubyClass(a)} `);
});

export const delete_values: PuppetFunction = legacy((_ctx, args) => {
  if (args.length !== 2) fail(`delete_values(): Wrong number of arguments given (${args.length} of 2)`);
  const [h, item] = args;
  if (!isHash(h))
    fail(`delete_values(): First argument must be a Hash. Given an argument of class ${rubyClass(h)}.`);
  return PHash.from([...h].filter(([, v]) => !rubyEq(item, v)));
});

export const difference: PuppetFunction = legacy((_ctx, args) => {
  if (args.length !== 2) fail(`difference(): Wrong number of arguments given (${args.length} for 2)`);
  const [a, b] = args;
  if (!isArr(a) || !isArr(b)) fail("difference(): Requires 2 arrays");
  return minus(a, b);
});

export const intersection: PuppetFunction = legacy((_ctx, args) => {
  if (args.length !== 2) fail(`intersection(): Wrong number of arguments given (${args.length} for 2)`);
  const [a, b] = args;
  if (!isArr(a) || !isArr(b))
    fail(`intersection(): Requires 2 arrays, got ${rubyClass(a)} and ${rubyClass(b)}`);
  const keys = new Set(b.map(rubyEqlKey));
  return uniq(a.filter((x) => keys.has(rubyEqlKey(x))));
});

export const union: PuppetFunction = legacy((_ctx, args) => {
  if (args.length < 2) fail(`union(): Wrong number of arguments given (${args.length} for < 2)`);
  for (const a of args) if (!isArr(a)) fail("union(): Every parameter must be an array");
  return uniq((args as PValue[][]).flat());
});

export const member: PuppetFunction = legacy((_ctx, args) => {
  if (args.length < 2) fail(`member(): Wrong number of arguments given (${args.length} for 2)`);
  const a = args[0];
  if (!isArr(a)) fail("member(): Requires array to work with");
  const x = args[1];
  if (!(typeof x === "string" || typeof x === "bigint" || isArr(x)))
    fail("member(): Item to search for must be a string, fixnum, or array");
  const item = isArr(x) ? x : [x];
  if (item.length === 0) fail("member(): You must provide item to search for within array given");
  return minus(item, a).length === 0;
});

export const deep_merge: PuppetFunction = legacy((_ctx, args) => {
  if (args.length < 2) fail(`deep_merge(): wrong number of arguments (${args.length}; must be at least 2)`);
  let result = new PHash();
  for (const a of args) {
    if (a === "") continue;
    if (!isHash(a)) fail(`deep_merge: unexpected argument type ${rubyClass(a)}, only expects hash arguments`);
    result = deepMerge(result, a);
  }
  return result;
});

function deepMerge(a: PHash, b: PHash): PHash {
  const out = a.clone();
  for (const [k, v] of b) {
    const old = out.get(k);
    out.set(k, old instanceof PHash && v instanceof PHash && out.has(k) ? deepMerge(old, v) : v);
  }
  return out;
}

export const pick: PuppetFunction = legacy((_ctx, args) => {
  const rest = args.filter((a) => a !== undefined && a !== "");
  if (rest.length === 0 || rubyToS(rest[0]) === "") fail("pick(): must receive at least one non empty value");
  return rest[0];
});

export const pick_default: PuppetFunction = legacy((_ctx, args) => {
  if (args.length === 0) fail("Must receive at least one argument.");
  const rest = args.slice(0, -1).filter((a) => a !== undefined && a !== "");
  rest.push(args[args.length - 1]);
  return rest[0];
});

function affix(name: "prefix" | "suffix"): PuppetFunction {
  return legacy((_ctx, args) => {
    if (args.length === 0) fail(`${name}(): Wrong number of arguments given (${args.length} for 1)`);
    const e = args[0];
    if (!isArr(e) && !isHash(e))
      fail(`${name}(): expected first argument to be an Array or a Hash, got ${rubyInspect(e)}`);
    const fix = args[1] !== undefined && args[1] !== false ? args[1] : undefined;
    if (fix !== undefined && typeof fix !== "string")
      fail(`${name}(): expected second argument to be a String, got ${rubyInspect(fix)}`);
    const apply = (s: string): string => (fix === undefined ? s : name === "prefix" ? fix + s : s + fix);
    if (isArr(e)) return e.map((x) => apply(rubyToS(x)));
    return PHash.from([...e].map(([k, v]) => [apply(rubyToS(k)), v] as const));
  });
}
export const prefix = affix("prefix");
export const suffix = affix("suffix");

export const range: PuppetFunction = legacy((_ctx, args) => {
  if (args.length === 0) fail("range(): Wrong number of arguments given (0 for 1)");
  let start: PValue;
  let stop: PValue;
  let step = 1n;
  let exclusive = false;
  if (args.length > 1) {
    [start, stop] = args;
    if (args[2] !== undefined) {
      step = toI(args[2]);
      if (step < 0n) step = -step;
    }
    if (step === 0n) fail("range(): 3rd arg (step size) must be a non zero integer (e.g. 1 or -1)");
  } else {
    const value = args[0];
    if (typeof value !== "string") noMethod("match", value);
    const m = /^(\w+)(\.\.\.?|-)(\w+)$/m.exec(value);
    if (m) {
      [, start, , stop] = m as unknown as [string, string, string, string];
      exclusive = m[2] === "...";
    } else if (/^.+$/m.test(value)) fail(`range(): Unable to compute range from the value: ${value}`);
    else fail(`range(): Unknown range format: ${value}`);
  }
  if (/^\d+$/m.test(rubyToS(start))) return intRange(toI(start), toI(stop), step, exclusive);
  return stringRange(rubyToS(start), rubyToS(stop), step, exclusive);
});

function intRange(a: bigint, b: bigint, step: bigint, exclusive: boolean): PValue[] {
  const out: PValue[] = [];
  for (let i = a; exclusive ? i < b : i <= b; i += step) {
    out.push(i);
    if (out.length >= 1_000_000) break;
  }
  return out;
}

/** Ruby's String range stepped: String#upto's sequence, every `step`-th. */
function stringRange(a: string, b: string, step: bigint, exclusive: boolean): PValue[] {
  const all: string[] = [];
  if (a.length > b.length || (a > b && a.length === b.length)) return [];
  let s = a;
  for (let n = 0; n < 1_000_000; n++) {
    if (s === b) {
      if (!exclusive) all.push(s);
      break;
    }
    if (s.length > b.length) break;
    all.push(s);
    s = succ(s);
  }
  return all.filter((_x, i) => BigInt(i) % step === 0n);
}

export const reverse: PuppetFunction = legacy((_ctx, args) => {
  if (args.length === 0) fail(`reverse(): Wrong number of arguments given (${args.length} for 1)`);
  const v = args[0];
  if (isArr(v)) return [...v].reverse();
  if (typeof v === "string") return [...v].reverse().join("");
  return fail("reverse(): Requires either array or string to work with");
});

export const values_at: PuppetFunction = legacy((_ctx, args) => {
  if (args.length < 2) fail(`values_at(): Wrong number of arguments given (${args.length} for 2)`);
  const a = args[0];
  if (!isArr(a)) fail("values_at(): Requires array to work with");
  const indices = flattenDeep([args[1]]);
  if (indices.length === 0) fail("values_at(): You must provide at least one positive index to collect");
  const list: number[] = [];
  for (const raw of indices) {
    const i = rubyToS(raw);
    const m = /^(\d+)(\.\.\.?|-)(\d+)$/m.exec(i);
    if (m) {
      const start = Number(m[1]);
      const stop = Number(m[3]);
      if (start > stop)
        fail("values_at(): Stop index in given indices range is smaller than the start index");
      if (stop > a.length - 1) fail("values_at(): Stop index in given indices range exceeds array size");
      const end = m[2] === "..." ? stop - 1 : stop;
      for (let x = start; x <= end; x++) list.push(x);
    } else {
      if (!/^\d+$/m.test(i)) fail("values_at(): Unknown format of given index");
      const n = Number(i);
      if (n > a.length - 1) fail("values_at(): Given index exceeds array size");
      list.push(n);
    }
  }
  return list.map((n) => a[n]).filter((x) => x !== undefined);
});

export const zip: PuppetFunction = legacy((_ctx, args) => {
  if (args.length < 2) fail(`zip(): Wrong number of arguments given (${args.length} for 2)`);
  const [a, b] = args;
  if (!isArr(a) || !isArr(b)) fail("zip(): Requires array to work with");
  const flat = args[2] !== undefined && args[2] !== false ? str2boolValue(args[2]) : false;
  const out: PValue[] = a.map((x, i) => [x, b[i]]);
  return flat ? flattenDeep(out) : out;
});

export const join_keys_to_values: PuppetFunction = legacy((_ctx, args) => {
  if (args.length !== 2)
    fail(`join_keys_to_values(): Takes exactly two arguments, but ${args.length} given.`);
  const [h, sep] = args;
  if (!isHash(h))
    fail(`join_keys_to_values(): The first argument must be a hash, but a ${rubyClass(h)} was given.`);
  if (typeof sep !== "string")
    fail(`join_keys_to_values(): The second argument must be a string, but a ${rubyClass(sep)} was given.`);
  return [...h].flatMap(([k, v]) => {
    if (isArr(v)) return v.map((x) => rubyToS(k) + sep + rubyToS(x));
    if (rubyToS(v) === "undef") return [rubyToS(k)];
    return [rubyToS(k) + sep + rubyToS(v)];
  });
});

function grepper(name: string, keep: boolean): PuppetFunction {
  return legacy((_ctx, args) => {
    if (args.length !== 2) fail(`${name}(): Wrong number of arguments given ${args.length} for 2`);
    const [a, p] = args;
    const re = new RegExp(rubyToS(p), "m");
    const items: PValue[] = isArr(a)
      ? a
      : isHash(a)
        ? [...a].map(([k, v]) => [k, v] as PValue)
        : [a as PValue];
    return items.filter((x) => (typeof x === "string" && re.test(x)) === keep);
  });
}
export const grep = grepper("grep", true);
export const reject = grepper("reject", false);

export const squeeze: PuppetFunction = legacy((_ctx, args) => {
  if (args.length !== 2 && args.length !== 1)
    fail(`squeeze(): Wrong number of arguments given ${args.length} for 2 or 1`);
  const [item, set] = args;
  const sq = (s: PValue): string => {
    if (typeof s !== "string") return noMethod("squeeze", s);
    const chars = set === undefined || set === false ? null : new Set([...rubyToS(set)]);
    let out = "";
    for (const c of s) if (!(out.endsWith(c) && (!chars || chars.has(c)))) out += c;
    return out;
  };
  return isArr(item) ? item.map(sq) : sq(item);
});

export const swapcase: PuppetFunction = legacy((_ctx, args) => {
  if (args.length === 0) fail(`swapcase(): Wrong number of arguments given (${args.length} for 1)`);
  const v = args[0];
  const sw = (s: string): string =>
    [...s].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join("");
  if (isArr(v)) return v.map((x) => (typeof x === "string" ? sw(x) : x));
  if (typeof v === "string") return sw(v);
  return fail("swapcase(): Requires either array or string to work with");
});

export const shuffle: PuppetFunction = legacy((_ctx, args) => {
  if (args.length === 0) fail(`shuffle(): Wrong number of arguments given (${args.length} for 1)`);
  const v = args[0];
  if (!isArr(v) && typeof v !== "string") fail("shuffle(): Requires either array or string to work with");
  const items: PValue[] = typeof v === "string" ? [...v] : [...v];
  for (let i = 0; i < items.length; i++) {
    const j = i + Math.floor(Math.random() * (items.length - i));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return typeof v === "string" ? items.join("") : items;
});

export const clamp: PuppetFunction = legacy((_ctx, args) => {
  const flat = flattenDeep(args);
  if (flat.length !== 3) fail("clamp(): Wrong number of arguments, need three to clamp");
  for (const v of flat) {
    if (typeof v === "string" && !/^\d+$/m.test(v)) fail(`clamp(): Required explicit numeric (${v}:String)`);
    if (isHash(v)) fail(`clamp(): The Hash type is not allowed (${rubyToS(v)})`);
  }
  const nums = flat.map(toI).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  return nums[1] as bigint;
});
