/**
 * The order in which 3.21 visits variables when it walks its variable
 * table: getindices() and getvalues() of a classic array, variablesmatching()
 * and the other functions that scan all variables.
 *
 * 3.21 keeps every bundle's variables in one hash table (libntech's HashMap:
 * 128 buckets to start with, doubled whenever more than 3/4 full, each
 * bucket a list new entries are put in front of) keyed by `VarRefHash`, and
 * walks it bucket by bucket. tend emulates that order from the hash and the
 * bucket count the table would have (EvalContext.tableSize); entries that
 * share a bucket come newest first. (Resizes that reorder colliding entries
 * are not replayed.)
 */
import type { EvalContext } from "../context.js";
import { finishHash, mixBytes as mix } from "../one-at-a-time.js";
import { parseVarRef } from "../var-ref.js";

const INDEX_SEPARATOR = "]";

/** 3.21's `VarRefHash` of a qualified reference `ns:scope.name[i]...`. */
export function variableHash(ns: string, scope: string, name: string, indices: readonly string[]): number {
  let h = mix(mix(0, ns), scope);
  h = mix(h, name);
  for (const index of indices) h = mix(mix(h, INDEX_SEPARATOR), index);
  return finishHash(h);
}

/**
 * Hashes of table entries already computed, by `ns:scope` and lval: the
 * functions that scan every variable would otherwise hash the whole table
 * at each call. The hash depends on nothing else.
 */
const entryHashes = new Map<string, number>();
const MAX_REMEMBERED = 200_000;

function entryHash(scopeKey: string, lval: string): number {
  const key = `${scopeKey}\u0000${lval}`;
  const known = entryHashes.get(key);
  if (known !== undefined) return known;
  const colon = scopeKey.indexOf(":");
  const ref = parseVarRef(lval);
  const hash = variableHash(scopeKey.slice(0, colon), scopeKey.slice(colon + 1), ref.name, ref.indices);
  if (entryHashes.size >= MAX_REMEMBERED) entryHashes.clear();
  entryHashes.set(key, hash);
  return hash;
}

/** A variable as the table holds it: `ns:scope` and the stored lval (`x[a][b]`). */
export interface TableEntry {
  readonly scopeKey: string;
  readonly lval: string;
}

/**
 * Sorts entries (given in the order they were defined) into the order 3.21
 * walks its variable table.
 */
export function inVariableTableOrder<T extends TableEntry>(ctx: EvalContext, entries: readonly T[]): T[] {
  if (entries.length < 2) return [...entries];
  const mask = ctx.tableSize.buckets - 1;
  const keyed = entries.map((entry, position) => ({
    entry,
    bucket: entryHash(entry.scopeKey, entry.lval) & mask,
    position,
  }));
  keyed.sort((a, b) => a.bucket - b.bucket || b.position - a.position);
  return keyed.map((k) => k.entry);
}
