/**
 * `changes` bodies: watching files for changes of content (`hash`,
 * `report_changes => "content"`) and of their stat fields (`"stats"`),
 * against the changes database in the work directory, with cf-agent
 * 3.21's messages and its `file_changes.log`. `update_hashes` decides
 * whether a change found is recorded as the new state; the first sight of
 * a file is always recorded. `report_diffs` is an Enterprise feature:
 * accepted and ignored, as cf-agent community does.
 */
import { createHash } from "node:crypto";
import { type Stats, readFileSync } from "node:fs";
import { canonify } from "../../eval/class-expression.js";
import type { ChangeAttributes } from "./attributes.js";
import { type FileState, type RecordedStats, changesDatabase, logFileChange } from "./changes-db.js";
import { ctimeText } from "./run-state.js";
import type { FileStep } from "./step.js";
import { asText } from "../values.js";

/** The promise's id in the change log: its handle, else `promise_<file>_<line>`. */
export function promiseId(step: FileStep): string {
  const own = step.promise.raw("handle") === undefined ? undefined : step.promise.text("handle");
  if (own !== undefined) return canonify(own);
  const file = step.promise.bundle.file;
  const line = asText(step.env.ctx.currentFrame().thisVars.get("promise_linenumber")) ?? "0";
  return `promise_${canonify(file.slice(file.lastIndexOf("/") + 1))}_${line}`;
}

function record(step: FileStep, file: string, state: FileState, message: string): boolean {
  return logFileChange(step.env, promiseId(step), file, state, message);
}

function digestOf(file: string, method: string): string | undefined {
  try {
    return createHash(method).update(readFileSync(file)).digest("hex");
  } catch {
    return undefined;
  }
}

/**
 * Compares the file's `method` hash with the database. Returns whether it
 * counts as changed (a first sight counts only as recorded).
 */
function checkHash(step: FileStep, file: string, method: string, change: ChangeAttributes): boolean {
  const digest = digestOf(file, method) ?? "";
  const db = changesDatabase(step.env);
  const stored = db.hash(method, file);
  if (stored === digest) {
    step.kept(`File hash for ${file} is correct`);
    return false;
  }
  if (stored !== undefined) step.env.log.info(`Hash '${method}' for '${file}' changed!`);
  if (!step.makingChanges(`record change of hash for file '${file}'`)) return true;
  if (stored !== undefined && !change.update) {
    step.failed(`Hash for file '${file}' changed, but not updating the records`);
    return true;
  }
  const prefix = method === "md5" ? "MD5=" : "SHA=";
  step.changed(
    `${stored === undefined ? "Stored" : "Updated"} ${method} hash for '${file}' (${prefix}${digest})`,
  );
  db.setHash(method, file, digest);
  return stored !== undefined;
}

/** Content changes of a regular file (`report_changes` content or all). */
export function verifyFileIntegrity(step: FileStep, file: string, change: ChangeAttributes): void {
  if (change.reportChanges !== "content" && change.reportChanges !== "all") return;
  // "best" is md5 then sha1, the second only when the first found nothing.
  const methods = change.hash === "best" ? ["md5", "sha1"] : [change.hash];
  let changed = false;
  for (const method of methods) changed = changed || checkHash(step, file, method, change);
  if (changed && step.makingChanges(`record integrity changes in '${file}'`)) {
    step.env.defineClass("checksum_alerts", "namespace", 10);
    if (record(step, file, "C", "Content changed")) step.changed(`Recorded integrity changes in '${file}'`);
    else step.failed(`Failed to record integrity changes in '${file}'`);
  }
  if (change.reportDiffs)
    step.unchanged(`Reporting of differences in '${file}' is not available (Enterprise only)`);
}

function recordedStats(stats: Stats): RecordedStats {
  return {
    mode: stats.mode,
    uid: stats.uid,
    gid: stats.gid,
    dev: stats.dev,
    ino: stats.ino,
    mtime: Math.floor(stats.mtimeMs / 1000),
  };
}

const octal = (mode: number) => mode.toString(8).padStart(4, "0");
const clock = (seconds: number) => ctimeText(new Date(seconds * 1000)).slice(0, 24);

/** One stat field found changed: noticed, logged, recorded. */
function statChange(step: FileStep, file: string, notice: string, entry: string, what: string): void {
  step.env.log.notice(notice);
  if (!step.makingChanges(`record ${what} changes in '${file}'`)) return;
  if (record(step, file, "S", entry)) step.changed(`Recorded ${what} changes in '${file}'`);
  else step.failed(`Failed to record ${what} changes in '${file}'`);
}

/** Stat changes (`report_changes` stats or all): mode, owner, group, device, inode, mtime. */
export function verifyFileChanges(
  step: FileStep,
  file: string,
  stats: Stats,
  change: ChangeAttributes,
): void {
  if (change.reportChanges !== "stats" && change.reportChanges !== "all") return;
  const db = changesDatabase(step.env);
  const now = recordedStats(stats);
  const old = db.stats(file);
  if (!old) {
    if (!step.makingChanges(`write stat information for '${file}' to database`)) return;
    db.setStats(file, now);
    step.changed(`Wrote stat information for '${file}' to database`);
    return;
  }
  const same = (["mode", "uid", "gid", "dev", "ino", "mtime"] as const).every((k) => old[k] === now[k]);
  if (same) {
    step.kept(`No stat information change for '${file}'`);
    return;
  }
  reportStatChanges(step, file, old, now);
  if (!change.update || !step.makingChanges(`write stat information for '${file}' to database`)) return;
  db.setStats(file, now);
  step.changed(`Wrote stat information changes for '${file}' to database`);
}

function reportStatChanges(step: FileStep, file: string, old: RecordedStats, now: RecordedStats): void {
  if (old.mode !== now.mode) {
    const [a, b] = [octal(old.mode), octal(now.mode)];
    statChange(
      step,
      file,
      `Permissions for '${file}' changed ${a} -> ${b}`,
      `Permission: ${a} -> ${b}`,
      "permissions",
    );
  }
  if (old.uid !== now.uid)
    statChange(
      step,
      file,
      `Owner for '${file}' changed ${old.uid} -> ${now.uid}`,
      `Owner: ${old.uid} -> ${now.uid}`,
      "ownership",
    );
  if (old.gid !== now.gid)
    statChange(
      step,
      file,
      `Group for '${file}' changed ${old.gid} -> ${now.gid}`,
      `Group: ${old.gid} -> ${now.gid}`,
      "group",
    );
  if (old.dev !== now.dev)
    statChange(
      step,
      file,
      `Device for '${file}' changed ${old.dev} -> ${now.dev}`,
      `Device: ${old.dev} -> ${now.dev}`,
      "device",
    );
  if (old.ino !== now.ino) step.env.log.notice(`inode for '${file}' changed ${old.ino} -> ${now.ino}`);
  if (old.mtime !== now.mtime) {
    const [a, b] = [clock(old.mtime), clock(now.mtime)];
    statChange(
      step,
      file,
      `Last modified time for '${file}' changed '${a}' -> '${b}'`,
      `Modified time: ${a} -> ${b}`,
      "mtime",
    );
  }
}

/** A file seen for the first time in a watched directory. */
export function logNewFile(step: FileStep, path: string): void {
  step.env.log.notice(`New file '${path}' found`);
  record(step, path, "N", "New file found");
}

/**
 * After a depth search of `dir`: files gone since the last run are
 * reported and forgotten, and the directory's names are recorded.
 */
export function checkDirectoryChanges(
  step: FileStep,
  dir: string,
  selected: readonly string[],
  recorded: readonly string[],
  update: boolean,
): void {
  const db = changesDatabase(step.env);
  const seen = [...selected].sort();
  const known = new Set(recorded);
  const present = new Set(seen);
  if (seen.some((name) => !known.has(name))) step.update("repaired");
  for (const name of recorded) {
    if (present.has(name)) continue;
    const path = `${dir}/${name}`;
    step.env.log.notice(`File '${path}' no longer exists`);
    if (step.makingChanges(`record removal of '${path}'`)) {
      if (record(step, path, "R", "File removed")) step.changed(`Removal of '${path}' recorded`);
      else step.failed(`Failed to record removal of '${path}'`);
    }
    db.forget(path);
  }
  if (!step.makingChanges(`record directory listing for '${dir}'`)) return;
  if (update) {
    if (db.setDirectory(dir, seen)) step.changed(`Recorded directory listing for '${dir}'`);
    return;
  }
  // 3.21 records a listing it may not update as a change, and fails the promise.
  step.changed(`Failed to record directory listing for '${dir}'`);
  step.update("failed");
}

/** Saves the database after a promise; a failure is an error of the promise. */
export function saveChanges(step: FileStep): void {
  if (!changesDatabase(step.env).save()) step.failed("Could not write the changes database");
}
