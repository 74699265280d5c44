/**
 * Hiera's merge strategies (first, unique, hash, deep) as Puppet 7 runs
 * them: the same reduction over lookup variants (one found value is
 * "merged" alone, several are folded pairwise) and the deep_merge gem's
 * rules for `deep` (lower-priority keys and elements first, `nil` never
 * overrides, `knockout_prefix`, `merge_hash_arrays`, `sort_merged_arrays`).
 * Equality is Ruby's (`eql?`): `"a"` and `"A"` differ, so do 1 and 1.0.
 */
import { NOT_FOUND } from "../eval/compile-api.js";
import { PHash, type PValue, rubyEqlKey } from "../eval/values.js";
import { HieraError, rubyTypeName } from "./errors.js";
import { checkMergeValue } from "./merge-types.js";
import { rubyToS } from "./ruby-text.js";

export type Found = PValue | typeof NOT_FOUND;

export type StrategyName =
  | "first"
  | "default"
  | "unique"
  | "hash"
  | "deep"
  | "unconstrained_deep"
  | "reverse_deep";

export interface DeepOptions {
  readonly knockoutPrefix?: string;
  readonly mergeHashArrays: boolean;
  readonly sortMergedArrays: boolean;
}

/** A merge strategy with its options, made by `mergeStrategy`. */
export class MergeStrategy {
  constructor(
    readonly name: StrategyName,
    readonly deep: DeepOptions = { mergeHashArrays: false, sortMergedArrays: false },
  ) {}

  /** Looks each variant up in order and merges what is found; NOT_FOUND when nothing is. */
  lookup<T>(variants: readonly T[], each: (variant: T) => Found): Found {
    if (this.name === "first" || this.name === "default") {
      for (const v of variants) {
        const found = each(v);
        if (found !== NOT_FOUND) return found;
      }
      return NOT_FOUND;
    }
    if (variants.length === 0) return NOT_FOUND;
    if (variants.length === 1) {
      const found = each(variants[0] as T);
      return found === NOT_FOUND ? NOT_FOUND : this.mergeSingle(found);
    }
    let memo: Found = NOT_FOUND;
    for (const v of variants) {
      const found = each(v);
      if (found === NOT_FOUND) continue;
      memo = memo === NOT_FOUND ? this.convertValue(found) : this.merge(memo, found);
    }
    return memo;
  }

  /** Merges `higher` (found first) with `lower`. */
  merge(higher: PValue, lower: PValue): PValue {
    checkMergeValue(this.name, "The first element of the merge", higher);
    checkMergeValue(this.name, "The second element of the merge", lower);
    switch (this.name) {
      case "first":
      case "default":
        return higher;
      case "hash":
        return mergeHashes(higher as PHash, lower as PHash);
      case "unique":
        return union(this.convertValue(higher) as PValue[], this.convertValue(lower) as PValue[]);
      case "reverse_deep":
        return deepMerge(lower, deepClone(higher), this.deep);
      default:
        return deepMerge(higher, deepClone(lower), this.deep);
    }
  }

  private convertValue(v: PValue): PValue {
    if (this.name !== "unique") return v;
    return Array.isArray(v) ? flatten(v) : [v];
  }

  private mergeSingle(v: PValue): PValue {
    return this.name === "unique" && Array.isArray(v) ? union(v, []) : v;
  }
}

const STRATEGIES: readonly string[] = [
  "first",
  "default",
  "unique",
  "hash",
  "deep",
  "unconstrained_deep",
  "reverse_deep",
];
const FIRST = new MergeStrategy("first");
const DEFAULT = new MergeStrategy("default");

/** The strategy `merge` names: undef, a name, or a hash with `strategy` and options. */
export function mergeStrategy(merge: PValue | MergeStrategy): MergeStrategy {
  if (merge instanceof MergeStrategy) return merge;
  if (merge === undefined) return DEFAULT;
  let name: PValue = merge;
  let options: PHash | undefined;
  if (merge instanceof PHash) {
    name = merge.get("strategy");
    if (name === undefined)
      throw new HieraError(
        "The hash given as 'merge' must contain the name of a strategy in string form for the key 'strategy'",
      );
    options = merge.size > 1 ? merge : undefined;
  }
  if (typeof name !== "string" || !STRATEGIES.includes(name))
    throw new HieraError(`Unknown merge strategy: '${rubyToS(name)}'`);
  if (!options)
    return name === "first" ? FIRST : name === "default" ? DEFAULT : new MergeStrategy(name as StrategyName);
  return new MergeStrategy(name as StrategyName, deepOptions(name, options));
}

function deepOptions(name: string, options: PHash): DeepOptions {
  const allowed = name.endsWith("deep")
    ? ["strategy", "knockout_prefix", "merge_debug", "merge_hash_arrays", "sort_merged_arrays"]
    : ["strategy"];
  for (const k of options.keys()) {
    if (!allowed.includes(String(k)) && name !== "unconstrained_deep" && name !== "reverse_deep")
      throw new HieraError(`The merge options has wrong type, unrecognized key '${String(k)}'`);
  }
  const ko = options.get("knockout_prefix");
  if (ko !== undefined && typeof ko !== "string")
    throw new HieraError(
      `The merge options entry 'knockout_prefix' expects a value of type Undef or String, got ${rubyTypeName(ko)}`,
    );
  if (ko === "") throw new HieraError("knockout_prefix cannot be an empty string in deep_merge!");
  return {
    knockoutPrefix: ko,
    mergeHashArrays: options.get("merge_hash_arrays") === true,
    sortMergedArrays: options.get("sort_merged_arrays") === true,
  };
}

function mergeHashes(higher: PHash, lower: PHash): PHash {
  const result = lower.clone();
  for (const [k, v] of higher) result.set(k, v);
  return result;
}

function flatten(a: readonly PValue[]): PValue[] {
  const out: PValue[] = [];
  for (const v of a) {
    if (Array.isArray(v)) out.push(...flatten(v));
    else out.push(v);
  }
  return out;
}

/** Ruby's `a | b`: the elements of both, each once, first occurrence kept. */
export function union(a: readonly PValue[], b: readonly PValue[]): PValue[] {
  const seen = new Set<string>();
  const out: PValue[] = [];
  for (const v of [...a, ...b]) {
    const k = rubyEqlKey(v);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(v);
  }
  return out;
}

function deepClone(v: PValue): PValue {
  if (Array.isArray(v)) return v.map(deepClone);
  if (v instanceof PHash) {
    const h = new PHash();
    for (const [k, x] of v) h.set(k, deepClone(x));
    return h;
  }
  return v;
}

/** deep_merge's `deep_merge!(source, dest)`: `dest` is owned (a fresh clone) and may be changed. */
function deepMerge(source: PValue, dest: PValue, opts: DeepOptions): PValue {
  if (source === undefined) return dest;
  if (dest === undefined || dest === false) return source;
  if (source instanceof PHash) return deepMergeHash(source, dest, opts);
  if (Array.isArray(source)) return deepMergeArray(source, dest, opts);
  return overwriteUnmergeables(source, opts);
}

function deepMergeHash(source: PHash, dest: PValue, opts: DeepOptions): PValue {
  let target = dest;
  for (const [k, sv] of source) {
    if (target instanceof PHash) {
      const dv = target.get(k);
      const existing = dv !== undefined && dv !== false;
      target.set(k, deepMerge(sv, existing ? dv : deepClone(sv), opts));
    } else {
      target = deepClone(overwriteUnmergeables(source, opts));
    }
  }
  return target;
}

function deepMergeArray(source: readonly PValue[], dest: PValue, opts: DeepOptions): PValue {
  const ko = opts.knockoutPrefix;
  let src = [...source];
  let target = dest;
  if (ko !== undefined && src.includes(ko)) {
    target = clearOrNil(target);
    src = src.filter((x) => x !== ko);
  }
  if (!Array.isArray(target)) return overwriteUnmergeables(src, opts);
  let list: PValue[] = target;
  if (ko !== undefined) {
    src = src.filter((item) => {
      if (typeof item !== "string" || !item.startsWith(ko)) return true;
      const bare = item.slice(ko.length);
      list = list.filter((x) => x !== bare && x !== item);
      return false;
    });
  }
  if (opts.mergeHashArrays && src.every((x) => x instanceof PHash) && list.every((x) => x instanceof PHash)) {
    const merged = list.map((d, i) => deepMerge(src[i] ?? new PHash(), d, opts));
    list = [...merged, ...src.slice(list.length)];
  } else list = union(list, src);
  return opts.sortMergedArrays ? sortRuby(list) : list;
}

function clearOrNil(v: PValue): PValue {
  if (Array.isArray(v)) return [];
  if (v instanceof PHash) return new PHash();
  if (typeof v === "string") return "";
  return undefined;
}

function overwriteUnmergeables(source: PValue, opts: DeepOptions): PValue {
  const ko = opts.knockoutPrefix;
  if (ko === undefined) return source;
  if (typeof source === "string") return source.startsWith(ko) ? "" : source;
  if (Array.isArray(source)) return source.filter((x) => !(typeof x === "string" && x.startsWith(ko)));
  return source;
}

/** Ruby's `sort!`: strings bytewise, numbers by value, mixed kinds an error. */
function sortRuby(list: PValue[]): PValue[] {
  const kind = (x: PValue) =>
    typeof x === "string" ? "s" : typeof x === "bigint" || typeof x === "number" ? "n" : "x";
  const first = list[0];
  const odd = list.find((x) => kind(x) !== kind(first) || kind(x) === "x");
  if (list.length > 1 && odd !== undefined)
    throw new HieraError(
      `comparison of ${rubyTypeName(first)} with ${rubyTypeName(odd === first ? list[1] : odd)} failed`,
    );
  return [...list].sort((a, b) => {
    if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
    return Number(a) - Number(b);
  });
}
