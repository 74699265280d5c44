/**
 * Chef's two merges of attribute trees, read from Chef::Node::Attribute:
 *
 * - `deepMerge` joins the components *within* the default levels (cookbook
 *   default, environment default, role default, force_default) and within
 *   the override levels, and accumulates role attributes: hashes are merged
 *   key by key, two arrays are joined as a set union (Ruby's `|`: the lower
 *   one's elements first, then the higher one's not already there), anything
 *   else is replaced by the higher value (a `null` too).
 * - `hashOnlyMerge` joins default, normal, override and automatic: hashes
 *   merged key by key, everything else, arrays included, replaced.
 *
 * Neither mutates its arguments; results share unchanged subtrees.
 */
import type { AttributeValue } from "./model.js";

type Tree = { readonly [key: string]: AttributeValue };

export function isTree(value: unknown): value is Tree {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `higher` merged onto `lower`, arrays joined as a union. */
export function deepMerge(lower: AttributeValue | undefined, higher: AttributeValue): AttributeValue {
  if (isTree(lower) && isTree(higher)) return mergeTrees(lower, higher, deepMerge);
  if (Array.isArray(lower) && Array.isArray(higher)) return union(lower, higher);
  return higher;
}

/** `higher` merged onto `lower`, hashes only: arrays and scalars replaced. */
export function hashOnlyMerge(lower: AttributeValue | undefined, higher: AttributeValue): AttributeValue {
  if (isTree(lower) && isTree(higher)) return mergeTrees(lower, higher, hashOnlyMerge);
  return higher;
}

function mergeTrees(
  lower: Tree,
  higher: Tree,
  merge: (l: AttributeValue | undefined, h: AttributeValue) => AttributeValue,
): Tree {
  const out: { [key: string]: AttributeValue } = { ...lower };
  for (const key of Object.keys(higher)) {
    const value = higher[key] as AttributeValue;
    out[key] = Object.hasOwn(lower, key) ? merge(lower[key], value) : value;
  }
  return out;
}

/** Ruby's `a | b`: elements of a then of b, each once (structural equality). */
function union(lower: readonly AttributeValue[], higher: readonly AttributeValue[]): AttributeValue[] {
  const seen = new Set<string>();
  const out: AttributeValue[] = [];
  for (const value of [...lower, ...higher]) {
    const key = canonical(value);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(value);
  }
  return out;
}

/** A key equal for equal values: objects with their keys sorted, as Ruby's Hash#eql? ignores order. */
function canonical(value: AttributeValue): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isTree(value))
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k] as AttributeValue)}`)
      .join(",")}}`;
  return JSON.stringify(value);
}
