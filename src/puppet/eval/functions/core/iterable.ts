/**
 * What Puppet can iterate and how: arrays by element, hashes by [key, value]
 * pair ("hash style"), strings by character, an Integer n as 0..n-1,
 * Iterators as produced, and types that can enumerate their instances
 * (`Integer[1,3]`, `Enum[a,b]`) through an `iterate()` method.
 * `break` in a lambda stops an iteration: the evaluator throws a
 * `BreakIteration` (or any error with `puppetBreak: true`) and the
 * iterating function returns what it has.
 */
import { FunctionArgumentError } from "../registry.js";
import { type PCallable, PHash, PIterator, type PValue } from "../../values.js";
import { typeElements } from "./spec.js";

export class BreakIteration extends Error {
  readonly puppetBreak = true;
  constructor() {
    super("break() from context where this is illegal");
  }
}

export function isBreak(e: unknown): boolean {
  return typeof e === "object" && e !== null && (e as { puppetBreak?: unknown }).puppetBreak === true;
}

export interface Iteration {
  /** True for hashes (and iterators over pairs): elements are [key, value]. */
  readonly hashStyle: boolean;
  readonly items: Iterable<PValue>;
}

/** The elements of an iterable value; throws Puppet's message for anything else. */
export function iterationOf(v: PValue, fn = "function"): Iteration {
  if (Array.isArray(v)) return { hashStyle: false, items: v };
  if (v instanceof PHash) return { hashStyle: true, items: pairs(v) };
  if (typeof v === "string") return { hashStyle: false, items: Array.from(v) };
  if (typeof v === "bigint") return { hashStyle: false, items: range(v) };
  if (v instanceof PIterator)
    return { hashStyle: false, items: { [Symbol.iterator]: () => v.produce()[Symbol.iterator]() } };
  const elements = typeElements(v);
  if (elements) return { hashStyle: false, items: elements };
  throw new FunctionArgumentError(`${fn}(): An Iterable was expected`);
}

function* pairs(h: PHash): Iterable<PValue> {
  for (const [k, v] of h) yield [k, v];
}

function* range(n: bigint): Iterable<PValue> {
  for (let i = 0n; i < n; i++) yield i;
}

/** Calls `f` for each element, stopping quietly on `break`. Returns false when broken off. */
export function forEach(items: Iterable<PValue>, f: (x: PValue, i: number) => void): boolean {
  let i = 0;
  try {
    for (const x of items) f(x, i++);
    return true;
  } catch (e) {
    if (isBreak(e)) return false;
    throw e;
  }
}

/** Calls a block with Ruby's yield semantics for one pair argument given to a 2-parameter block. */
export function yieldEntry(block: PCallable, entry: PValue): PValue {
  return block.call([entry]);
}

/** The arity Puppet uses to choose a dispatch: 2 when the block accepts 2 arguments. */
export function takesTwo(block: PCallable): boolean {
  return block.minArgs <= 2 && 2 <= block.maxArgs;
}
