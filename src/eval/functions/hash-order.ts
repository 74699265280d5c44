/**
 * The orders of 3.21's hash tables (libntech's Map), for the functions
 * whose results list what such a table holds in the table's order:
 * classesmatching() and friends (classes and string sets).
 *
 * A Map keeps up to 14 entries in an array (insertion order), then turns
 * into a HashMap of 128 buckets that doubles when more than 3/4 full; each
 * bucket is a list that new entries are put in front of, and a resize walks
 * the old buckets in order, moving each entry to the front of its new
 * bucket. Iteration walks the buckets in order.
 */
import { finishHash, mixBytes } from "../one-at-a-time.js";

/** libntech's `StringHash` ("one at a time", seed 0), before masking. */
export function stringHash(text: string): number {
  return finishHash(mixBytes(0, text));
}

const TINY_LIMIT = 14;
const INITIAL_BUCKETS = 128;

/**
 * The order a Map iterates keys inserted in the given order (repeated keys
 * keep their first place), replayed exactly.
 */
export function mapOrder(keys: Iterable<string>, hash: (key: string) => number = stringHash): string[] {
  const array: string[] = [];
  let buckets: string[][] | undefined;
  let load = 0;
  const insert = (key: string) => {
    if (!buckets) return;
    const bucket = buckets[hash(key) & (buckets.length - 1)];
    if (bucket.includes(key)) return;
    bucket.unshift(key);
    load++;
    if (load > Math.floor(buckets.length * 0.75)) buckets = resize(buckets, hash);
  };
  for (const key of keys) {
    if (buckets) insert(key);
    else if (array.includes(key)) continue;
    else if (array.length < TINY_LIMIT) array.push(key);
    else {
      buckets = Array.from({ length: INITIAL_BUCKETS }, () => []);
      for (const old of array) insert(old);
      insert(key);
    }
  }
  return buckets ? buckets.flat() : array;
}

function resize(buckets: string[][], hash: (key: string) => number): string[][] {
  const next: string[][] = Array.from({ length: buckets.length * 2 }, () => []);
  for (const bucket of buckets) {
    for (const key of bucket) next[hash(key) & (next.length - 1)].unshift(key);
  }
  return next;
}

/**
 * An approximation of the order of a long-lived table holding `keys` (in
 * the order they were added): by bucket for the table's present size,
 * newest first within a bucket.
 */
export function tableOrder(keys: readonly string[], hash: (key: string) => number = stringHash): string[] {
  if (keys.length <= TINY_LIMIT) return [...keys];
  let size = INITIAL_BUCKETS;
  while (keys.length > Math.floor(size * 0.75)) size *= 2;
  return keys
    .map((key, position) => ({ key, bucket: hash(key) & (size - 1), position }))
    .sort((a, b) => a.bucket - b.bucket || b.position - a.position)
    .map((entry) => entry.key);
}
