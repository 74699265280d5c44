/**
 * The per-run cache of 3.21's `cached` functions (execresult, returnszero,
 * readtcp, host2ip...): within one evaluation context, a second call with
 * the same arguments returns the first successful result without running
 * anything. Failures are not cached, so a later call tries again.
 */
import type { EvalContext } from "../context.js";
import { type Value, valueToJson } from "../values.js";
import type { BuiltinFunction } from "./types.js";

const caches = new WeakMap<EvalContext, Map<string, Value>>();

function cacheKey(name: string, args: readonly Value[]): string {
  // Keyed by name and arguments. 3.21 keys by the arguments alone, so two
  // cached functions called with equal arguments can share a result there.
  return JSON.stringify([name, ...args.map(valueToJson)]);
}

/** Wraps a function so that its successful results are reused for the rest of the run. */
export function cachedPerRun(fn: BuiltinFunction): BuiltinFunction {
  return {
    ...fn,
    evaluate(args, fc) {
      const cache = caches.get(fc.ctx) ?? new Map<string, Value>();
      caches.set(fc.ctx, cache);
      const key = cacheKey(fn.name, args);
      const hit = cache.get(key);
      if (hit) return hit;
      const result = fn.evaluate(args, fc);
      if (result) cache.set(key, result);
      return result;
    },
  };
}

/** Forgets the cached results of a context (a new run over the same context). */
export function clearFunctionCache(ctx: EvalContext): void {
  caches.delete(ctx);
}
