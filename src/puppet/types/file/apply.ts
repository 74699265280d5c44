/**
 * One evaluation of a `file` resource, in Puppet 7.23's order: when
 * `ensure` is out of sync it alone is changed (one event; owner, group and
 * mode are then fixed silently); otherwise, when the file exists, each of
 * content, target, owner, group and mode is compared and changed in turn,
 * each change an event worded as Puppet's. A failed change is a failure
 * event and fails the resource; the other properties still run.
 */
import { existsSync, realpathSync } from "node:fs";
import { dirname } from "node:path";
import type { CatalogResource } from "../../../catalog/model.js";
import type { ResourceEvent, ResourceResult } from "../../../catalog/resource-type.js";
import { runCommand } from "../../../providers/commands/index.js";
import { runLog } from "../../run-settings.js";
import type { ApplyContext } from "../../../catalog/resource-type.js";
import { BackupError, performBackup } from "./backup.js";
import { type Desired, desiredState, SourceError } from "./desired.js";
import {
  type AccountDatabase,
  createSymlink,
  type FileState,
  inspectPath,
  makeDirectory,
  removePath,
  replaceContent,
  setMode,
  setOwner,
} from "../../../providers/files/index.js";
import { modeToInt } from "./mode.js";
import type { FileSpec } from "./params.js";
import {
  contentDrift,
  type Drift,
  ensureInSync,
  ensureOf,
  groupDrift,
  modeDrift,
  ownerDrift,
  show,
  targetDrift,
  wantedMode,
} from "./properties.js";

/** A change that could not be made; its text follows `change from X to Y failed: `. */
class ChangeFailed extends Error {
  /** The system error a `Could not set` failure wraps, as Puppet logs it a second time. */
  wrapped?: string;
}

/**
 * A file found absent appeared before it could be created (its creation
 * never replaces anything: replaceContent's `createOnly`). Nothing was
 * changed nor recorded: the resource is evaluated again, looking afresh.
 */
class Appeared extends Error {}

const STRERROR: Readonly<Record<string, string>> = {
  ENOENT: "No such file or directory",
  EACCES: "Permission denied",
  EPERM: "Operation not permitted",
  EISDIR: "Is a directory",
  ENOTDIR: "Not a directory",
  EEXIST: "File exists",
  ENOTEMPTY: "Directory not empty",
  EROFS: "Read-only file system",
  ENOSPC: "No space left on device",
};

/** A system error as Ruby words it (`No such file or directory - /x`), for Puppet's messages. */
function systemText(error: unknown, path: string): string {
  const code = (error as NodeJS.ErrnoException).code;
  const text = code ? STRERROR[code] : undefined;
  return text ? `${text} - ${path}` : (error as Error).message;
}

/**
 * Puppet writes a file's content through a lock file beside it
 * (`PATH` + Ruby's temporary name `YYYYMMDD-PID-RANDOM` + `.lock`); when
 * the directory is missing, Ruby's error names that lock file.
 */
function missingDirectoryText(path: string): string {
  const now = new Date();
  const day = `${now.getUTCFullYear()}${String(now.getUTCMonth() + 1).padStart(2, "0")}${String(now.getUTCDate()).padStart(2, "0")}`;
  const random = Math.floor(Math.random() * 0x100000000).toString(36);
  const lock = `${path}${day}-${process.pid}-${random}.lock`;
  return `No such file or directory - A directory component in ${lock} does not exist or is a dangling symbolic link`;
}

/** A failed acting step, worded as Puppet's `Could not set 'file' on ensure: ...`. */
function setFailed(value: string, error: unknown, path: string): ChangeFailed {
  const missingDir =
    value === "file" && (error as NodeJS.ErrnoException).code === "ENOENT" && !existsSync(dirname(path));
  const detail = missingDir ? missingDirectoryText(path) : systemText(error, path);
  const failed = new ChangeFailed(`Could not set '${value}' on ensure: ${detail}`);
  failed.wrapped = detail;
  return failed;
}

interface Evaluation {
  readonly spec: FileSpec;
  readonly desired: Desired;
  readonly context: ApplyContext;
  readonly accounts: AccountDatabase;
  readonly events: ResourceEvent[];
  /** ` (file: F, line: L)` of the resource's declaration, as Puppet appends it to some errors. */
  readonly where: string;
  /** The evaluation again after Appeared: every look is a real one, and a write replaces. */
  readonly again?: boolean;
}

/** The path owner, group and mode are set on: the link's target when links are followed. */
function actingPath(run: Evaluation): string {
  if (run.spec.links !== "follow") return run.spec.path;
  try {
    return realpathSync(run.spec.path);
  } catch {
    return run.spec.path;
  }
}

function state(run: Evaluation): FileState {
  return inspectPath(run.spec.path, { follow: run.spec.links === "follow" });
}

/**
 * Puppet's remove_existing: backs up, then removes what is in the way of
 * `wanted`. `known`: what the path holds, when the caller has just looked.
 */
function removeExisting(run: Evaluation, wanted: string, known?: FileState): boolean {
  const found = ensureOf(known ?? state(run));
  if (found === "absent") return false;
  if (run.spec.backup !== false) {
    if (found === "file" || found === "link" || (found === "directory" && run.spec.force))
      performBackup(run.spec, run.context);
    else run.context.logger.warning(`Could not back up file of type ${found}`);
  }
  if (wanted !== "link" && found === wanted) return false;
  if (found === "directory") {
    if (!run.spec.force) {
      run.context.logger.notice("Not removing directory; use 'force' to override");
      return false;
    }
    return unlinkOrFail(run, true);
  }
  if (["link", "file", "fifo", "socket"].includes(found)) return unlinkOrFail(run, false);
  throw new ChangeFailed(`Could not remove files of type ${found}`);
}

function unlinkOrFail(run: Evaluation, recursive: boolean): boolean {
  const removed = removePath(run.spec.path, { recursive });
  if (removed.status === "failed")
    throw new ChangeFailed(removed.cause?.message ?? removed.error ?? "remove failed");
  return true;
}

function check(result: { status: string; error?: string; cause?: NodeJS.ErrnoException }): void {
  if (result.status === "failed") throw new ChangeFailed(result.cause?.message ?? result.error ?? "failed");
}

/**
 * Owner, group and mode brought in line silently after the file was made
 * (Puppet's property_fix). `madeWithMode`: the file was just created with
 * exactly this mode (set on the open file before it was renamed in place).
 */
function propertyFix(run: Evaluation, madeWithMode?: number): void {
  // The path is looked at again only for a property the resource sets.
  const fresh = () => state(run);
  const { desired } = run;
  const owner = desired.owner === undefined ? undefined : ownerDrift(desired, fresh(), run.accounts, false);
  if (owner) check(setOwner(actingPath(run), { uid: owner.desired as number }));
  const group = desired.group === undefined ? undefined : groupDrift(desired, fresh(), run.accounts, false);
  if (group) check(setOwner(actingPath(run), { gid: group.desired as number }));
  if (desired.mode === undefined) return;
  // A numeric mode the new file was given is in sync: no second look at it.
  if (madeWithMode !== undefined && madeWithMode <= 0o777 && /^[0-7]+$/.test(desired.mode)) {
    if (modeToInt(desired.mode) === madeWithMode) return;
  }
  syncMode(run, fresh(), true);
}

function syncMode(run: Evaluation, found: FileState, silent: boolean): Drift | undefined {
  const drift = modeDrift(run.spec, run.desired, found, (m) => newMode(m, found).toString(8));
  if (drift && (silent || !run.context.noop))
    check(setMode(actingPath(run), newMode(drift.desired as string, found)));
  return drift;
}

function newMode(mode: string, found: FileState): number {
  const current = found.kind === "absent" ? 0o644 : found.mode;
  return modeToInt(wantedMode(mode, found), current, found.kind === "directory");
}

/** The check `validate_cmd` makes of the new content before it replaces the file. */
function validation(spec: FileSpec): ((temporary: string) => void) | undefined {
  const command = spec.validateCmd;
  if (command === undefined) return undefined;
  return (temporary) => {
    const line = command.split(spec.validateReplacement).join(temporary);
    const result = runCommand({ command: { shell: line }, output: "combined" });
    if (result.exitCode !== 0) {
      const status = result.exitCode ?? result.signal ?? result.error ?? "nothing";
      throw new ValidationFailed(
        `Execution of '${line}' returned ${status}: ${result.output.toString("utf8").trim()}`,
      );
    }
  };
}

/** A validate_cmd that refused the new content. */
class ValidationFailed extends Error {}

/**
 * Puppet's write: the content (or an empty file) replaced atomically, then
 * property_fix. `known`: the path was just found absent.
 */
function write(run: Evaluation, known?: FileState): void {
  removeExisting(run, "file", known);
  const mode = run.desired.mode ? modeToInt(run.desired.mode, 0o644) : undefined;
  const bytes = run.desired.content?.read() ?? new Uint8Array();
  const found = known ?? inspectPath(run.spec.path);
  // Found absent just before: created only if still nothing is there.
  const createOnly = known !== undefined && !run.again;
  try {
    const validate = run.desired.content ? validation(run.spec) : undefined;
    replaceContent(
      run.spec.path,
      bytes,
      found.kind === "file" ? { validate } : { mode: mode ?? 0o644, validate, createOnly },
      // What replaceContent would look up again: the file replaced, or none.
      found.kind === "file" ? found.stats : found.kind === "absent" ? null : undefined,
    );
  } catch (error) {
    if (error instanceof ValidationFailed) throw new ChangeFailed(error.message);
    const { code, syscall } = error as NodeJS.ErrnoException;
    if (createOnly && code === "EEXIST" && syscall === "link") throw new Appeared();
    throw setFailed("file", error, run.spec.path);
  }
  propertyFix(run, found.kind === "file" ? undefined : (mode ?? 0o644));
}

function makeDirectoryNow(run: Evaluation): void {
  const parent = dirname(run.spec.path);
  if (inspectPath(parent).kind === "absent")
    throw new ChangeFailed(`Cannot create ${run.spec.path}; parent directory ${parent} does not exist`);
  const mode = run.desired.mode ? modeToInt(run.desired.mode, 0o755, true) : 0o755;
  try {
    makeDirectory(run.spec.path, mode);
  } catch (error) {
    throw setFailed("directory", error, run.spec.path);
  }
  propertyFix(run);
}

function makeLink(run: Evaluation): void {
  const target = run.desired.target;
  if (target === undefined) throw new ChangeFailed("Cannot create a symlink without a target");
  removeExisting(run, target);
  if (inspectPath(run.spec.path).kind !== "absent") throw new ChangeFailed("Could not remove existing file");
  try {
    createSymlink(run.spec.path, target);
  } catch (error) {
    throw setFailed("link", error, run.spec.path);
  }
  propertyFix(run);
}

const ENSURE_EVENTS: Readonly<Record<string, string>> = {
  file: "file_created",
  present: "file_created",
  directory: "directory_created",
  link: "link_created",
  absent: "file_removed",
};

function ensureMessage(run: Evaluation, wanted: string, current: string): string {
  if ((wanted === "file" || wanted === "present") && run.desired.content) {
    return `defined content as '${run.desired.content.sum}'`;
  }
  if (current === "absent") return "created";
  if (wanted === "absent") return "removed";
  return `ensure changed ${show(current)} to ${show(wanted)}`;
}

function syncEnsure(run: Evaluation, wanted: string, found: FileState): void {
  // Puppet's ensure removes what is in the way, then its value's own step
  // (writing, linking) looks again: a directory kept without force is noted
  // twice. Nothing in the way (the path was just found absent, not through
  // a link followed): nothing to look at again.
  const known = found.kind === "absent" && run.spec.links !== "follow" ? found : undefined;
  removeExisting(run, wanted, known);
  if (wanted === "file" || wanted === "present") write(run, known);
  else if (wanted === "directory") makeDirectoryNow(run);
  else if (wanted === "link") makeLink(run);
}

/** The event of a drift, with its outcome. */
function driftEvent(drift: Drift, message: string, status: ResourceEvent["status"]): ResourceEvent {
  return {
    property: drift.property,
    previousValue: drift.previous,
    desiredValue: drift.desired,
    name: drift.event,
    message,
    status,
  };
}

function record(run: Evaluation, drift: Drift, act: () => void): void {
  if (run.context.noop) {
    run.events.push(driftEvent(drift, drift.noop, "noop"));
    return;
  }
  try {
    if (drift.fails !== undefined) throw new ChangeFailed(drift.fails);
    act();
    run.events.push(driftEvent(drift, drift.message, "success"));
  } catch (error) {
    if (!(error instanceof ChangeFailed || error instanceof BackupError)) throw error;
    const from = drift.noop.replace(
      /^current_value (.*), should be (.*) \(noop\)$/,
      "change from $1 to $2 failed: ",
    );
    // Puppet logs the exception as its own, then the failed event.
    const log = runLog(run.context);
    const wrapped = error instanceof ChangeFailed ? error.wrapped : undefined;
    const message = wrapped === undefined ? error.message : `${error.message}${run.where}`;
    log.error(message);
    if (wrapped !== undefined) log.error(`${message}\nWrapped exception:\n${wrapped}`);
    run.events.push(driftEvent(drift, `${from}${message}`, "failure"));
  }
}

/** The ensure step; true when ensure was out of sync (then nothing else is looked at). */
function applyEnsure(run: Evaluation, found: FileState): boolean {
  const wanted = run.desired.ensure;
  if (wanted === undefined) return false;
  const current = ensureOf(found);
  if (ensureInSync(run.spec, wanted, current)) return false;
  const drift: Drift = {
    property: "ensure",
    previous: current,
    desired: wanted,
    message: ensureMessage(run, wanted, current),
    noop: `current_value ${show(current)}, should be ${show(wanted)} (noop)`,
    event: ENSURE_EVENTS[wanted] ?? "file_changed",
  };
  record(run, drift, () => syncEnsure(run, wanted, found));
  return true;
}

/** Each property in Puppet's order, when the file exists and ensure was in sync. */
function applyProperties(run: Evaluation, initial: FileState): void {
  // Puppet reads every current value before changing any (a content change's
  // silent mode fix still leaves the mode event).
  const { spec, desired, accounts, context } = run;
  if (desired.ensure === "present" && desired.content && initial.kind !== "file")
    context.logger.warning(
      `Ensure set to :present but file type is ${ensureOf(initial)} so no content will be synced`,
    );
  // Each property in turn (no table of closures: this runs for every resource).
  const content = contentDrift(spec, desired, initial);
  if (content) record(run, content, () => write(run));
  const target = targetDrift(spec, desired, initial);
  if (target) record(run, target, () => makeLink(run));
  const owner = ownerDrift(desired, initial, accounts, context.noop);
  if (owner) record(run, owner, () => check(setOwner(actingPath(run), { uid: owner.desired as number })));
  const group = groupDrift(desired, initial, accounts, context.noop);
  if (group) record(run, group, () => check(setOwner(actingPath(run), { gid: group.desired as number })));
  const mode = modeDrift(spec, desired, initial, (m) => newMode(m, initial).toString(8));
  if (mode)
    record(run, mode, () => check(setMode(actingPath(run), newMode(mode.desired as string, state(run)))));
}

/** Evaluates one file resource; `accounts` resolves owner and group names. */
export function applyFile(
  resource: CatalogResource,
  spec: FileSpec,
  context: ApplyContext,
  accounts: AccountDatabase,
): ResourceResult {
  let desired: Desired;
  try {
    desired = desiredState(spec, context);
  } catch (error) {
    if (!(error instanceof SourceError)) throw error;
    return { events: [], failed: error.message, provider: "posix" };
  }
  const where = resource.file !== undefined ? ` (file: ${resource.file}, line: ${resource.line ?? 0})` : "";
  let run: Evaluation = { spec, desired, context, accounts, events: [], where };
  try {
    evaluate(run);
  } catch (error) {
    if (!(error instanceof Appeared)) throw error;
    run = { ...run, events: [], again: true };
    evaluate(run);
  }
  const failure = run.events.find((e) => e.status === "failure");
  return { events: run.events, failed: failure?.message, provider: "posix" };
}

function evaluate(run: Evaluation): void {
  // Looked at once: when ensure is in sync nothing changed it since. A
  // file to be written whose path the run's listing of its directory says
  // is absent is not looked at: its creation never replaces something that
  // appeared since (Appeared). (Not for a noop run, which writes nothing.)
  const { ensure } = run.desired;
  const found = inspectPath(run.spec.path, {
    follow: run.spec.links === "follow",
    listed: (ensure === "file" || ensure === "present") && !run.again && !run.context.noop,
  });
  if (!applyEnsure(run, found) && found.kind !== "absent") applyProperties(run, found);
}
