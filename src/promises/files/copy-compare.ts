/**
 * Whether a copy is out of date (`compare` of copy_from), as cf-agent 3.21
 * decides it: by modification time (`mtime`), by change or modification
 * time (`ctime` and the default), by content (`digest`, `hash`, `binary`:
 * regular files only, else by time), or by any of these (`atime`).
 */
import type { Stats } from "node:fs";
import type { Comparator } from "./attributes.js";
import type { CopySource } from "./copy-source.js";
import type { FileStep } from "./step.js";

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
  from: CopySource,
): boolean {
  const contentsDiffer = from.differs;
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
