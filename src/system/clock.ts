/**
 * Cheap time for the measurements a run makes of itself (how long a
 * resource or the whole run took): the monotonic clock in milliseconds,
 * as performance.now() gives it, without loading node:perf_hooks for it
 * (the `performance` global costs a few milliseconds to make, at every
 * start of a command that prints in a few tens).
 */
export function monotonicMs(): number {
  const [seconds, nanoseconds] = process.hrtime();
  return seconds * 1e3 + nanoseconds / 1e6;
}
