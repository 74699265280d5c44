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
import type { Logger } from "../../system/logger.js";
import { silentLogger } from "../../system/logger.js";
import { type Outcome, combineOutcomes } from "../outcome.js";
import { applyOutcomeClasses } from "../outcome-classes.js";
import { readMountTable, scanDirectory } from "../../providers/mounts/index.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "../contract.js";
import { expandPathPattern, isPathPattern } from "../files/pathtype.js";
import { CF_NOINT, type StorageAttributes, readStorageAttributes } from "./attributes.js";
import { finishSection, verifyMountPromise } from "./mount.js";
import { agentMountView } from "./mount-view.js";
import { StorageRun, Verdicts } from "./run-state.js";
import { verifyFileSystem, verifyFreeSpace } from "./volume.js";

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
