/**
 * Keeps a long-running server's memory flat. What made tend serverd's
 * resident memory climb under the fuzzer (58 to 126 MB) was no leak: after
 * a full collection its live heap stays at ~10 MB however many connections
 * it has served. It was V8's sizing of a heap that allocates fast: the
 * young generation grown from 1 to 16 MB semi-spaces, and the old
 * generation left to fill with promoted garbage up to a limit that rises
 * with it before anything is collected. The launcher (bin/tend) caps the
 * young generation for serverd; this collects the old generation once it
 * has grown by `slackBytes` past what was live after the last collection,
 * checked every `everyMs`. A full collection of a ~10 MB heap takes a few
 * milliseconds, so this costs next to nothing.
 */
import v8 from "node:v8";
import vm from "node:vm";

/** The full collection, when V8 lets it be had (--expose-gc, set at run time if need be). */
function collector(): (() => void) | undefined {
  const global = globalThis as { gc?: () => void };
  if (typeof global.gc === "function") return global.gc;
  try {
    v8.setFlagsFromString("--expose-gc");
    const gc: unknown = vm.runInNewContext("gc");
    return typeof gc === "function" ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}

export interface MemoryKeeper {
  stop(): void;
}

/** Starts collecting as described above; `stop()` ends it. */
export function keepMemoryFlat(options: { everyMs?: number; slackBytes?: number } = {}): MemoryKeeper {
  const gc = collector();
  if (!gc) return { stop: () => {} };
  const slack = options.slackBytes ?? 8 * 1024 * 1024;
  let live = v8.getHeapStatistics().used_heap_size;
  const timer = setInterval(() => {
    if (v8.getHeapStatistics().used_heap_size < live + slack) return;
    gc();
    live = v8.getHeapStatistics().used_heap_size;
  }, options.everyMs ?? 5000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
