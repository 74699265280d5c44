/**
 * `storage` promises, as cf-agent 3.21 keeps them on Linux, on the mounts
 * provider (src/providers/mounts). For each path the promiser names:
 *
 * - `mount`: the file system mounted on the path is compared with
 *   `mount_server:mount_source`. Not mounted (or another one mounted):
 *   with `edit_fstab` an entry is added to /etc/fstab (and everything in it
 *   is mounted at the end of the storage section), otherwise the promise
 *   fails and the agent mounts it itself. With `unmount`, a mounted file
 *   system is unmounted and (with `edit_fstab`) its entries removed.
 * - `volume`: the directory must look used (`sensible_size` bytes in
 *   `sensible_count` entries), and the volume have `freespace` left
 *   (bytes, or a percentage); volumes of other hosts are passed over
 *   unless `check_foreign`.
 *
 * Messages, outcomes and classes are 3.21's, each verdict defining the
 * `classes` body's classes and counted at once as its cfPS does; a dry run
 * says what 3.21 says. Deliberately better than 3.21 (each pinned by a
 * scenario): a dry run creates no mount point; an unmount that prints
 * nothing is a repair (3.21 reads a closed stream and logs an error); an
 * fstab comment naming the mount point is not an entry to delete; an entry
 * added without `mount_type` gets type `auto`, not "(null)"; mount lines
 * after a cifs one do not crash the agent; nfs4 volumes are foreign too.
 * As in 3.21, `action_policy => "warn"` is not looked at here.
 */
import { mkdirSync, statSync } from "node:fs";
import { type LogLevel, type Logger, silentLogger } from "../../agent/logger.js";
import { type Outcome, combineOutcomes } from "../../agent/outcome.js";
import { applyOutcomeClasses } from "../../agent/outcome-classes.js";
import { splitCommand } from "../../eval/functions/exec.js";
import {
  DEFAULT_FSTAB,
  FstabEdits,
  MOUNT_COMMAND,
  type MountEntry,
  UMOUNT_COMMAND,
  diskUsage,
  isForeignMount,
  mountAll,
  mountFilesystem,
  readMountTable,
  scanDirectory,
  unmountFilesystem,
} from "../../providers/mounts/index.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "../contract.js";
import { expandPathPattern, isPathPattern } from "../files/pathtype.js";
import { logPromiseContext } from "../promise-context.js";
import { asText } from "../values.js";
import { CF_NOINT, type StorageAttributes, readStorageAttributes } from "./attributes.js";
import { agentMountView } from "./mount-view.js";

/** What a run keeps between storage promises: 3.21's mount list, fstab edits and mount-all flag. */
class StorageRun {
  /** The mount table, read by the first promise of a storage section. */
  table: MountEntry[] | undefined;
  readonly fstab = new FstabEdits(DEFAULT_FSTAB);
  /** Mount everything in fstab at the end of each storage section (`mountfilesystems`, or a mount missing). */
  mountAll: boolean;

  constructor(env: PromiseEnvironment) {
    const control = asText(env.controlValue?.("agent", "mountfilesystems"));
    this.mountAll = control === "true" || control === "yes" || control === "on";
    if (control !== undefined) env.log.verbose(`Setting mountfilesystems to '${this.mountAll}'`);
  }
}

/** One promise on one path: its verdicts, as 3.21's cfPS gives them. */
class Verdicts {
  constructor(
    readonly promise: ActivePromise,
    readonly env: PromiseEnvironment,
  ) {}

  record(level: LogLevel, outcome: Outcome, message: string): Outcome {
    if (level === "verbose" || level === "debug") logPromiseContext(this.promise, this.env);
    this.env.log.log(level, message);
    applyOutcomeClasses(this.promise, this.env, outcome);
    this.env.audit?.(outcome);
    return outcome;
  }
}

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/** cf-agent's fstab path in its messages. */
const FSTAB_NAME = DEFAULT_FSTAB;

/** 3.21's FileSystemMountedCorrectly: something is mounted on `name` (and it is the promised source). */
function mountedCorrectly(
  run: StorageRun,
  name: string,
  a: StorageAttributes,
  env: PromiseEnvironment,
): boolean {
  for (const entry of run.table ?? []) {
    const view = agentMountView(entry);
    if (view.mountOn !== name) continue;
    if (a.mount.source !== undefined && view.source !== a.mount.source) {
      env.log.info(
        `A different file system '${view.host}:${view.source}' is mounted on '${name}' than what is promised`,
      );
      return false;
    }
    env.log.verbose(`File system '${view.source}' seems to be mounted correctly`);
    return true;
  }
  if (!a.mount.unmount) {
    env.log.verbose(`File system '${name}' seems not to be mounted correctly`);
    run.mountAll = true;
  }
  return false;
}

function mountOptions(a: StorageAttributes): string {
  return a.mount.options ? a.mount.options.join(",") : "defaults";
}

/** 3.21's VerifyInFstab: adds the entry unless one names the mount point; the number of changes. */
function verifyInFstab(
  run: StorageRun,
  name: string,
  a: StorageAttributes,
  v: Verdicts,
): Outcome | undefined {
  const env = v.env;
  const error = run.fstab.load();
  if (error !== undefined) {
    env.log.error(`Couldn't open '${FSTAB_NAME}'`);
    return undefined;
  }
  env.log.verbose(`Verifying '${name}' in '${FSTAB_NAME}'`);
  const change = run.fstab.add({
    spec: `${a.mount.server}:${a.mount.source}`,
    file: name,
    vfstype: a.mount.type ?? "auto",
    options: mountOptions(a),
  });
  if (!change) return undefined;
  return v.record(
    "info",
    "repaired",
    `Adding file system '${a.mount.server}:${a.mount.source}' to '${FSTAB_NAME}'`,
  );
}

/** 3.21's VerifyNotInFstab: removes the entries for the mount point. */
function verifyNotInFstab(
  run: StorageRun,
  name: string,
  a: StorageAttributes,
  v: Verdicts,
): Outcome | undefined {
  if (run.fstab.load() !== undefined) {
    v.env.log.error(`Couldn't open '${FSTAB_NAME}'`);
    return undefined;
  }
  let outcome: Outcome | undefined;
  for (const _ of run.fstab.remove(name))
    outcome = v.record("info", "repaired", `Deleting file system mounted on '${a.mount.server ?? "(null)"}'`);
  return outcome;
}

/** 3.21's VerifyMount: runs mount unless in a dry run; busy interrupts, anything else is a repair. */
function verifyMount(name: string, a: StorageAttributes, v: Verdicts): Outcome {
  const opts = mountOptions(a);
  const type = a.mount.type;
  const command =
    type === "panfs" || type === "cifs"
      ? `${MOUNT_COMMAND} -t ${type} -o ${opts} ${a.mount.server}${a.mount.source} ${name}`
      : `${MOUNT_COMMAND} -o ${opts} ${a.mount.server}:${a.mount.source} ${name}`;
  const result = mountFilesystem(splitCommand(command), name, { dryRun: v.env.dryRun });
  if (result.status === "busy") {
    v.record("info", "interrupted", `The device under '${name}' cannot be mounted`);
    return "interrupted";
  }
  return v.record("info", "repaired", `Mounting '${name}' to keep promise`);
}

/** 3.21's VerifyUnmount (its outcome is not the promise's, as in 3.21). */
function verifyUnmount(name: string, v: Verdicts): void {
  const result = unmountFilesystem(name, { dryRun: v.env.dryRun }, UMOUNT_COMMAND);
  if (result.status === "busy") {
    v.record("info", "interrupted", `The device under '${name}' cannot be unmounted`);
    return;
  }
  v.record("info", "repaired", `Unmounting '${name}' to keep promise`);
}

/** Creates the mount point (3.21 does it even in a dry run; tend does not). */
function makeMountPoint(name: string, env: PromiseEnvironment): void {
  if (env.dryRun) return;
  try {
    mkdirSync(name, { recursive: true, mode: 0o700 });
  } catch (error) {
    env.log.debug(
      `Could not create parent directory '${name}/.' for mount promise (${(error as Error).message})`,
    );
  }
}

/** 3.21's VerifyMountPromise. */
function verifyMountPromise(run: StorageRun, name: string, a: StorageAttributes, v: Verdicts): Outcome {
  const env = v.env;
  env.log.verbose(`Verifying mounted file systems on '${name}'`);
  if (!isRoot()) return v.record("error", "interrupted", "Only root can mount filesystems");
  let result: Outcome = "kept";
  const update = (outcome: Outcome | undefined) => {
    if (outcome !== undefined) result = combineOutcomes(result, outcome);
  };
  if (!mountedCorrectly(run, name, a, env)) {
    let changed = false;
    if (!a.mount.unmount) {
      makeMountPoint(name, env);
      if (a.mount.editFstab) {
        const outcome = verifyInFstab(run, name, a, v);
        changed = outcome !== undefined;
        update(outcome);
      } else {
        update(
          v.record(
            "error",
            "failed",
            `Filesystem '${name}' was not mounted as promised, and no edits were promised in '${FSTAB_NAME}'`,
          ),
        );
        update(verifyMount(name, a, v));
      }
    } else if (a.mount.editFstab) {
      const outcome = verifyNotInFstab(run, name, a, v);
      changed = outcome !== undefined;
      update(outcome);
    }
    if (changed) run.mountAll = true;
  } else if (a.mount.unmount) {
    verifyUnmount(name, v);
    if (a.mount.editFstab) update(verifyNotInFstab(run, name, a, v));
  } else {
    update(v.record("info", "kept", `Filesystem '${name}' seems to be mounted as promised`));
  }
  return result;
}

/** 3.21's VerifyFileSystem: a directory must hold enough bytes in enough entries. */
function verifyFileSystem(name: string, a: StorageAttributes, v: Verdicts): Outcome {
  const env = v.env;
  env.log.verbose(`Checking required filesystem ${name}`);
  const scan = scanDirectory(name);
  if (scan.kind === "missing") return "kept";
  if (scan.kind === "unreadable") {
    env.log.error(`Can't open directory '${name}' which checking required/disk. (opendir: ${scan.error})`);
    return "kept";
  }
  if (scan.kind === "directory") {
    // 3.21 reads `.` and `..` too (first), and passes over them with the other ignored names.
    for (const ignored of [".", "..", ...scan.ignored])
      env.log.verbose(`Filename '${name}/${ignored}' is classified as ignorable, skipping`);
    for (const failure of scan.failures)
      env.log.error(`Can't stat volume '${failure.path}'. (lstat: ${failure.error})`);
    if (scan.bytes < a.volume.sensibleSize)
      return v.record(
        "error",
        "interrupted",
        `File system '${name}' is suspiciously small! (${scan.bytes} bytes)`,
      );
    if (scan.count < a.volume.sensibleCount)
      return v.record(
        "error",
        "interrupted",
        `Filesystem '${name}' has only ${scan.count} files/directories.`,
      );
  }
  return v.record("info", "kept", `Filesystem '${name}' content seems to be sensible as promised`);
}

/** 3.21's VerifyFreeSpace. */
function verifyFreeSpace(run: StorageRun, name: string, a: StorageAttributes, v: Verdicts): Outcome {
  const env = v.env;
  try {
    statSync(name);
  } catch (error) {
    env.log.error(`Couldn't stat '${name}' while checking diskspace. (stat: ${describe(error)})`);
    return "kept";
  }
  if (
    !a.volume.checkForeign &&
    isForeignMount(name, run.table ?? [], (e) => agentMountView(e).tag !== undefined)
  ) {
    env.log.info(`Filesystem '${name}' is mounted from a foreign system, so skipping it`);
    return "kept";
  }
  let usage: ReturnType<typeof diskUsage>;
  try {
    usage = diskUsage(name);
  } catch (error) {
    // 3.21 then takes the free space as infinite.
    env.log.error(`Couldn't get filesystem info for '${name}'. (statfs: ${describe(error)})`);
    return "kept";
  }
  const freespace = a.volume.freespace;
  if (freespace < 0) {
    const threshold = -freespace;
    if (usage.freePercent < threshold)
      return v.record(
        "error",
        "failed",
        `Free disk space is under ${threshold}% for volume containing '${name}', ${usage.freePercent}% free`,
      );
    return "kept";
  }
  if (usage.availableBytes < freespace)
    return v.record(
      "error",
      "failed",
      `Disk space under ${Math.trunc(freespace / 1024)} kB for volume containing '${name}' (${Math.trunc(usage.availableBytes / 1024)} kB free)`,
    );
  return "kept";
}

/** The system's text for an error, as strerror gives it (`No such file or directory`). */
function describe(error: unknown): string {
  const message = (error as Error).message;
  const match = /^[A-Z]+: ([^,]+),/.exec(message);
  if (!match?.[1]) return message;
  return match[1].charAt(0).toUpperCase() + match[1].slice(1);
}

/**
 * What 3.21 checks each time it meets the promise, before its lock (so in
 * every pass): an unmount naming a source or server, a mount naming
 * neither. False when the promise cannot be kept as written.
 */
function checkSpecification(a: StorageAttributes, log: Logger): boolean {
  if (a.mount.unmount) {
    if (a.mount.source !== undefined)
      log.verbose("An unmount promise indicates a mount-source information - probably an error");
    if (a.mount.server !== undefined)
      log.verbose("An unmount promise indicates a mount-server information - probably an error");
    return true;
  }
  if (a.haveMount && (a.mount.source === undefined || a.mount.server === undefined)) {
    log.error("Insufficient specification in mount promise - need source and server");
    return false;
  }
  return true;
}

/** 3.21's VerifyStoragePromise for one path, past its lock. */
function verifyStoragePromise(
  run: StorageRun,
  name: string,
  promise: ActivePromise,
  env: PromiseEnvironment,
): Outcome {
  const a = readStorageAttributes(promise, silentLogger);
  const v = new Verdicts(promise, env);
  if (!a.mount.unmount && a.haveMount && (a.mount.source === undefined || a.mount.server === undefined))
    return "kept";
  if (!run.table || run.table.length === 0) {
    try {
      run.table = readMountTable();
    } catch {
      env.log.error("Couldn't obtain a list of mounted filesystems - aborting");
      return "kept";
    }
    for (const entry of run.table) {
      const view = agentMountView(entry);
      if (view.local)
        env.log.verbose(`'${entry.source}' is a local absolute file name, setting host to localhost`);
    }
  }
  let result: Outcome = "kept";
  if (a.haveMount) result = combineOutcomes(result, verifyMountPromise(run, name, a, v));
  if (a.haveVolume) {
    result = combineOutcomes(result, verifyFileSystem(name, a, v));
    if (a.volume.freespace !== CF_NOINT) result = combineOutcomes(result, verifyFreeSpace(run, name, a, v));
    if (a.volume.scanArrivals) env.log.verbose("Scan arrival sequence . not yet implemented");
  }
  return result;
}

/** The paths a promiser names: itself, or (a pattern) the existing paths matching it. */
function promisedPaths(promiser: string, log?: Logger): string[] {
  if (!isPathPattern(promiser, undefined)) {
    log?.verbose(`Using literal pathtype for '${promiser}'`);
    return [promiser];
  }
  log?.verbose(`Using regex pathtype for '${promiser}' (see pathtype)`);
  // 3.21 passes over `.` and `..` of the directory it lists for the first pattern.
  const parts = promiser.split("/");
  const base =
    parts
      .slice(
        0,
        parts.findIndex((part) => isPathPattern(part, undefined)),
      )
      .join("/") || "/";
  if (log && scanDirectory(base).kind === "directory")
    for (const name of [".", ".."])
      log.verbose(`Filename '${base}/${name}' is classified as ignorable, skipping`);
  return expandPathPattern(promiser);
}

/** Each pass, acted or not: the paths and 3.21's checks of the attributes for each. */
function checkEveryPass(promise: ActivePromise, env: PromiseEnvironment): void {
  for (const _ of promisedPaths(promise.promiser, env.log))
    checkSpecification(readStorageAttributes(promise, env.log), env.log);
}

/** The end of a storage section: 3.21's CleanupNFS and its mount of everything in fstab. */
function finishSection(run: StorageRun, env: PromiseEnvironment): void {
  env.log.verbose(`Number of changes observed in '${FSTAB_NAME}' is ${run.fstab.edits}`);
  const saved = run.fstab.save(env.dryRun);
  if (saved.error !== undefined) env.log.error(`Failed to write '${FSTAB_NAME}'. (${saved.error})`);
  if (!env.dryRun && run.mountAll) {
    env.log.verbose("Mounting all filesystems");
    env.log.verbose("Attempting to mount all filesystems.");
    const command = `${MOUNT_COMMAND} -va`;
    for (const line of mountAll({ dryRun: false }).lines) {
      if (/already mounted|exceeded|determined|not supported/.test(line)) continue;
      if (line.includes("denied") || line.includes("RPC")) {
        env.log.error(`There was a mount error while trying to mount the filesystems (command '${command}')`);
        break;
      }
      if (line.includes("trying") && !line.includes("NFS version 2") && !line.includes("vers 3")) {
        env.log.error(
          `Attempting filesystems mount aborted because command '${command}' went into a retry loop`,
        );
        break;
      }
    }
  }
  // 3.21 reads the mount table again in the next storage section.
  run.table = undefined;
}

/** A `storage` promise type with its own run state (the registry makes one per run). */
export function createStoragePromiseType(): PromiseType {
  let run: StorageRun | undefined;
  const state = (env: PromiseEnvironment) => {
    run ??= new StorageRun(env);
    return run;
  };
  return {
    name: "storage",
    waitsForResolution: true,
    oncePerRun: true,
    auditsItself: true,
    everyPass: checkEveryPass,
    evaluate(promise, env) {
      const current = state(env);
      let outcome: Outcome = "skipped";
      for (const path of promisedPaths(promise.promiser))
        outcome = combineOutcomes(outcome, verifyStoragePromise(current, path, promise, env));
      // The verdicts defined the classes; a promise that gave none defines none (as in 3.21).
      applyOutcomeClasses(promise, env, "skipped");
      return outcome;
    },
    sectionFinished(env) {
      finishSection(state(env), env);
    },
  };
}
