/**
 * `rename` bodies: `newname` moves the object (a relative name stays in
 * its directory); `disable` renames it with `disable_suffix` (default
 * `.cfdisabled`) and `disable_mode` (default: its mode), deleting a symlink
 * instead; `rotate => n` keeps n numbered copies and empties the file.
 */
import {
  type Stats,
  chmodSync,
  copyFileSync,
  existsSync,
  renameSync,
  truncateSync,
  unlinkSync,
} from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { parseCfInt } from "../../eval/numbers.js";
import { asBoolean, asText } from "../values.js";
import { formatMode, parseModeString } from "./modes.js";
import { errorText, type FileStep } from "./step.js";

function renameValue(step: FileStep, name: string): string | undefined {
  return asText(step.promise.bodyValue("rename", name));
}

export function verifyRename(step: FileStep, stats: Stats): void {
  const newname = renameValue(step, "newname");
  const rotate = parseCfInt(renameValue(step, "rotate") ?? "") ?? 0;
  if (newname !== undefined)
    renameTo(step, isAbsolute(newname) ? newname : join(dirname(step.path), newname));
  else if (asBoolean(step.promise.bodyValue("rename", "disable"), false)) disable(step, stats);
  else if (rotate > 0 && stats.isFile()) rotateFile(step, rotate);
}

function renameTo(step: FileStep, target: string): void {
  const { path } = step;
  if (existsSync(target)) {
    step.unchanged(`File '${path}' already has the new name '${target}'`);
    return;
  }
  if (!step.makingChanges(`rename file '${path}' to '${target}'`)) return;
  try {
    renameSync(path, target);
    step.changed(`Renamed file '${path}' to '${target}'`);
  } catch (error) {
    step.failed(`Error occurred while renaming '${path}'. (rename: ${errorText(error)})`);
  }
}

function disable(step: FileStep, stats: Stats): void {
  const { path } = step;
  if (stats.isSymbolicLink()) {
    if (!step.makingChanges(`disable link '${path}'`)) return;
    try {
      unlinkSync(path);
      step.changed(`Disabled symbolic link '${path}' by deleting it`);
    } catch (error) {
      step.failed(`Unable to unlink '${path}'. (unlink: ${errorText(error)})`);
    }
    return;
  }
  const suffix = renameValue(step, "disable_suffix") ?? ".cfdisabled";
  const target = `${path}${suffix.startsWith(".") ? suffix : `.${suffix}`}`;
  const masks = parseModeString(renameValue(step, "disable_mode") ?? "");
  const mode = masks ? masks.plus & ~masks.minus : stats.mode & 0o7777;
  step.env.log.warning(`File object '${path}' exists, contrary to promise`);
  if (!step.makingChanges(`rename file '${path}' to '${target}'`)) return;
  try {
    chmodSync(path, mode);
    step.changed(`Changed permissions of '${path}' to 'mode ${formatMode(mode)}'`);
    renameSync(path, target);
    step.changed(`Disabled file '${path}' by renaming to '${target}' with mode ${formatMode(mode)}`);
  } catch (error) {
    step.failed(`Error occurred while renaming '${path}'. (rename: ${errorText(error)})`);
  }
}

/** `path.1` is the newest copy; the file itself is emptied in place. */
function rotateFile(step: FileStep, count: number): void {
  const { path } = step;
  if (!step.makingChanges(`rotate file '${path}' in ${count} fifo`)) return;
  try {
    for (let i = count - 1; i >= 1; i--) {
      if (existsSync(`${path}.${i}`)) renameSync(`${path}.${i}`, `${path}.${i + 1}`);
    }
    copyFileSync(path, `${path}.1`);
    truncateSync(path, 0);
    step.changed(`Rotated file '${path}' in ${count} fifo`);
  } catch (error) {
    step.failed(`Failed to rotate file '${path}'. (${errorText(error)})`);
  }
}
