/**
 * The node's report spool: `<workdir>/outputs/reports/spool/`, one file per
 * run, `<end time in ms, 13 digits>-<run id>.json`, so that names sort
 * oldest first. Each is written atomically (temporary file + rename), so a
 * run killed while spooling leaves the whole report or none of it. The
 * spool is bounded: past `maxReports` files the oldest go, and so do
 * files older than `maxAge`. Reports the hub refuses for good (malformed,
 * a conflicting run id) move to `refused/` next to it, where the newest
 * `maxReports` are kept for someone to look at.
 */
import { mkdirSync, readdirSync, renameSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomically } from "../system/atomic.js";
import type { Logger } from "../system/logger.js";
import type { NodeReport } from "./report.js";

export interface SpoolPaths {
  readonly spool: string;
  readonly refused: string;
}

export function spoolPaths(workdir: string): SpoolPaths {
  const base = join(workdir, "outputs", "reports");
  return { spool: join(base, "spool"), refused: join(base, "refused") };
}

export interface SpoolBounds {
  readonly maxReports: number;
  readonly maxAgeMs: number;
}

const NAME = /^(\d{13})-([0-9a-f-]{36})\.json$/;

/** One spooled report, by file. */
export interface SpoolEntry {
  readonly file: string;
  readonly runId: string;
  readonly ended: number;
}

/** The spooled reports, oldest first (temporary files of a write in progress are not listed). */
export function listSpool(dir: string): SpoolEntry[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: SpoolEntry[] = [];
  for (const name of names.sort()) {
    const match = NAME.exec(name);
    if (match) out.push({ file: join(dir, name), runId: match[2] as string, ended: Number(match[1]) });
  }
  return out;
}

/** Writes `report` into the spool (atomically, 0600), then applies the bounds. Returns the file. */
export function spoolReport(
  dir: string,
  report: NodeReport,
  bounds: SpoolBounds,
  logger: Logger,
  now = Date.now(),
): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const ended = Math.max(0, Math.min(Date.parse(report.ended) || now, 9_999_999_999_999));
  const file = join(dir, `${String(ended).padStart(13, "0")}-${report.runId}.json`);
  writeFileAtomically(file, JSON.stringify(report), 0o600);
  boundSpool(dir, bounds, logger, now);
  return file;
}

/** Drops spooled reports older than the age bound, then the oldest past the count bound. */
export function boundSpool(dir: string, bounds: SpoolBounds, logger: Logger, now = Date.now()): number {
  const entries = listSpool(dir);
  const excess = Math.max(0, entries.length - bounds.maxReports);
  let dropped = 0;
  entries.forEach((entry, i) => {
    const old = now - entry.ended > bounds.maxAgeMs;
    if (!old && i >= excess) return;
    if (removeQuietly(entry.file)) dropped++;
  });
  if (dropped > 0)
    logger.warning(
      `Dropped ${dropped} unsent run report(s) from ${dir} (spool bounds: ${bounds.maxReports} reports, ${Math.round(bounds.maxAgeMs / 86_400_000)} days)`,
    );
  return dropped;
}

/** Moves a report the hub refused for good out of the spool, keeping the newest `keep` refused ones. */
export function setAside(entry: SpoolEntry, paths: SpoolPaths, keep: number): void {
  mkdirSync(paths.refused, { recursive: true, mode: 0o700 });
  const name = entry.file.slice(entry.file.lastIndexOf("/") + 1);
  try {
    renameSync(entry.file, join(paths.refused, name));
  } catch {
    removeQuietly(entry.file);
  }
  const refused = listSpool(paths.refused);
  for (const old of refused.slice(0, Math.max(0, refused.length - keep))) removeQuietly(old.file);
}

export function removeQuietly(file: string): boolean {
  try {
    unlinkSync(file);
    return true;
  } catch {
    return false;
  }
}
