/**
 * Whether a copy is out of date (`compare` of copy_from), as cf-agent 3.21
 * decides it: by modification time (`mtime`), by change or modification
 * time (`ctime` and the default), by content (`digest`, `hash`, `binary`:
 * regular files only, else by time), or by any of these (`atime`).
 */
import { closeSync, openSync, readSync, type Stats } from "node:fs";
import type { Comparator } from "./attributes.js";
import type { FileStep } from "./step.js";

const CHUNK = 64 * 1024;

/**
 * Whether two files differ in content (sizes first, then bytes). A file
 * that cannot be read counts as different, so a copy is attempted and its
 * error reported.
 */
export function contentsDiffer(a: string, b: string, aStats: Stats, bStats: Stats): boolean {
  if (aStats.size !== bStats.size) return true;
  let fa = -1;
  let fb = -1;
  try {
    fa = openSync(a, "r");
    fb = openSync(b, "r");
    const ba = Buffer.allocUnsafe(CHUNK);
    const bb = Buffer.allocUnsafe(CHUNK);
    for (;;) {
      const na = readSync(fa, ba, 0, CHUNK, null);
      const nb = readSync(fb, bb, 0, CHUNK, null);
      if (na !== nb || !ba.subarray(0, na).equals(bb.subarray(0, nb))) return true;
      if (na === 0) return false;
    }
  } catch {
    return true;
  } finally {
    if (fa >= 0) closeSync(fa);
    if (fb >= 0) closeSync(fb);
  }
}

function seconds(time: number): number {
  return Math.floor(time / 1000);
}

function olderByTime(source: Stats, dest: Stats): boolean {
  return seconds(dest.ctimeMs) < seconds(source.ctimeMs) || seconds(dest.mtimeMs) < seconds(source.mtimeMs);
}

/** Whether `dest` must be copied again from `source` (both stat'ed). */
export function isOutOfDate(
  step: FileStep,
  compare: Comparator,
  source: string,
  dest: string,
  ss: Stats,
  ds: Stats,
): boolean {
  const regular = ss.isFile() && ds.isFile();
  switch (compare) {
    case "digest":
    case "hash":
    case "binary": {
      if (!regular) {
        const kind = compare === "binary" ? "Byte" : "Checksum";
        step.unchanged(`${kind} comparison replaced by ctime: files not regular`);
      }
      const stale = regular ? contentsDiffer(source, dest, ss, ds) : olderByTime(ss, ds);
      if (stale && compare === "binary")
        step.unchanged(`Image file ${dest} has a wrong binary checksum, should be copy of '${source}'`);
      else if (stale)
        step.unchanged(`Image file '${dest}' has a wrong digest/checksum, should be copy of '${source}'`);
      return stale;
    }
    case "mtime": {
      const stale = seconds(ds.mtimeMs) < seconds(ss.mtimeMs);
      if (stale) step.unchanged(`Image file '${dest}' out of date, should be copy of '${source}'`);
      return stale;
    }
    case "atime": {
      const stale = olderByTime(ss, ds) || contentsDiffer(source, dest, ss, ds);
      if (stale) step.unchanged(`Image file '${dest}' seems out of date, should be copy of '${source}'`);
      return stale;
    }
    default: {
      const stale = olderByTime(ss, ds);
      if (stale) step.unchanged(`Image file '${dest}' out of date, should be copy of '${source}'`);
      return stale;
    }
  }
}
