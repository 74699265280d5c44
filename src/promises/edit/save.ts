/**
 * Saving an edited file as cf-agent 3.21 does, but crash-safe: the new
 * content is written to a temporary file beside the target (with the
 * target's mode and owner) and renamed over it, so the file is at every
 * moment its old content or its new one. Before the rename the old file
 * becomes the backup `edit_backup` asks for: `<file>.cf-before-edit`
 * (a hard link, or a copy), with a time stamp in its name, rotated
 * (`.cf-before-edit.1`, `.2`, ...), or none. A symbolic link is followed:
 * its target is edited.
 */
import { existsSync, statSync } from "node:fs";
import { copyFileSync, linkSync, renameSync, unlinkSync } from "../../system/safe-fs.js";
import { join } from "node:path";
import { canonify } from "../../eval/class-expression.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import type { RunSlot } from "../run-state.js";
import { asText } from "../values.js";
import { replaceContent } from "../../providers/files/content.js";
import { resolveLinkChain } from "../../providers/files/special.js";
import { errorText } from "../files/step.js";

export type BackupOption = "true" | "false" | "timestamp" | "rotate";

export interface SaveOptions {
  readonly backup: BackupOption;
  /** How many rotated backups to keep (`rotate`). */
  readonly rotate: number;
  /** A directory where backups go instead (`repository`). */
  readonly repository?: string;
}

/** cf-agent's ctime() text, canonified, as the time stamp of a backup. */
function stampOf(now: Date, started: Date): string {
  const text = now.toString();
  const [day, month, date, time, year] = [
    text.slice(0, 3),
    text.slice(4, 7),
    String(now.getDate()).padStart(2, " "),
    text.slice(16, 24),
    String(now.getFullYear()),
  ];
  // 3.21 names it without the canonified newline of ctime: "..._2026.cf-before-edit".
  return `_${Math.floor(started.getTime() / 1000)}_${canonify(`${day} ${month} ${date} ${time} ${year}`)}`;
}

/** Names already rotated or archived in a run (cf-agent does each once per run). */
const DONE_IN_RUN: RunSlot<Set<string>> = {
  name: "edit backups rotated or archived",
  create: () => new Set(),
};

/** Whether `key` was already done in this run; marks it done. */
function onceInRun(env: PromiseEnvironment, key: string): boolean {
  const done = env.runState.get(DONE_IN_RUN);
  if (done.has(key)) return true;
  done.add(key);
  return false;
}

function rotate(env: PromiseEnvironment, backup: string, count: number): void {
  if (onceInRun(env, `rotate:${backup}`)) return;
  for (let i = count - 1; i > 0; i--) {
    for (const suffix of ["", ".gz", ".Z", ".bz", ".bz2"]) {
      try {
        renameSync(`${backup}.${i}${suffix}`, `${backup}.${i + 1}${suffix}`);
      } catch {
        // Not there yet.
      }
    }
  }
  try {
    copyFileSync(backup, `${backup}.1`);
  } catch (error) {
    env.log.debug(`Copy failed in RotateFiles '${backup}' -> '${backup}.1' (${errorText(error)})`);
  }
}

/** Copies the backup into the repository; whether the local one may go. */
function archive(env: PromiseEnvironment, backup: string, repository: string): boolean {
  if (onceInRun(env, `archive:${backup}`)) {
    env.log.info(
      `The file '${backup}' has already been moved to the repository once. Multiple update will cause loss of backup.`,
    );
    return true;
  }
  const destination = join(repository, canonify(backup));
  try {
    copyFileSync(backup, destination);
    env.log.info(`Moved '${backup}' to repository location '${destination}'`);
    return true;
  } catch {
    env.log.info(`Failed to move '${backup}' to repository location '${destination}'`);
    return false;
  }
}

const STARTED = new Date();

/** Where backups go instead of beside the file: `repository`, else agent control's `default_repository`. */
export function repositoryOf(promise: ActivePromise, env: PromiseEnvironment): string | undefined {
  return asText(promise.value("repository")) ?? asText(env.controlValue?.("agent", "default_repository"));
}

/**
 * Replaces the file at `path` with `data`, keeping the backup asked for.
 * Returns false (after logging why) when it cannot; the file is then as it was.
 */
export function saveEditedFile(
  env: PromiseEnvironment,
  path: string,
  data: Uint8Array,
  options: SaveOptions,
): boolean {
  let target: string;
  try {
    target = resolveLinkChain(path);
  } catch (error) {
    env.log.error(`Can no longer access file '${path}', which needed editing. (lstat: ${errorText(error)})`);
    return false;
  }
  const stamp = options.backup === "timestamp" ? stampOf(new Date(), STARTED) : "";
  const backup = `${target}${stamp}.cf-before-edit`;
  try {
    const stats = statSync(target);
    if (existsSync(backup)) unlinkSync(backup);
    try {
      linkSync(target, backup);
    } catch {
      copyFileSync(target, backup);
    }
    if (options.backup === "rotate") {
      rotate(env, backup, options.rotate);
      unlinkSync(backup);
    } else if (options.backup === "false") unlinkSync(backup);
    else if (options.repository && archive(env, backup, options.repository)) unlinkSync(backup);
    // The edited file keeps the old one's ACLs, as 3.21 copies its extended attributes.
    replaceContent(target, data, { keepAcl: true }, stats);
    return true;
  } catch (error) {
    env.log.error(
      `Can't rename the edited file over '${target}' - so promised edits could not be moved into place. (${errorText(error)})`,
    );
    return false;
  }
}
