/**
 * Cheap time for the measurements a run makes of itself (how long a
 * resource or the whole run took): the monotonic clock in milliseconds,
 * as performance.now() gives it, without loading node:perf_hooks for it
 * (the `performance` global costs a few milliseconds to make, at every
 * start of a command that prints in a few tens).
 */
export function monotonicMs(): number {
  // Read by index: destructuring runs the array iterator, an object per
  // call in code not optimised yet (twice per resource of a catalog run).
  const time = process.hrtime();
  return (time[0] as number) * 1e3 + (time[1] as number) / 1e6;
}
