/**
 * The `mount` body, as 3.21's VerifyMountPromise keeps it: what is
 * mounted on the path against the promised source, then fstab edits, a
 * mount or an unmount through the mounts provider; and the end of a
 * storage section (fstab saved, `mount -va`).
 */
import { mkdirSync } from "node:fs";
import { type Outcome, combineOutcomes } from "../outcome.js";
import { splitCommand } from "../../eval/functions/exec.js";
import {
  MOUNT_COMMAND,
  UMOUNT_COMMAND,
  mountAll,
  mountFilesystem,
  unmountFilesystem,
} from "../../providers/mounts/index.js";
import type { PromiseEnvironment } from "../contract.js";
import type { StorageAttributes } from "./attributes.js";
import { agentMountView } from "./mount-view.js";
import { FSTAB_NAME, type StorageRun, type Verdicts, isRoot } from "./run-state.js";

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

/** The options as one string; `defaults` (3.21's default on Linux) when none are given. */
function mountOptions(a: StorageAttributes): string {
  return a.mount.options ? a.mount.options.join(",") : "defaults";
}

/** 3.21's VerifyInFstab: adds the entry unless one names the mount point; the verdict, if a change. */
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
export function verifyMountPromise(
  run: StorageRun,
  name: string,
  a: StorageAttributes,
  v: Verdicts,
): Outcome {
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

/** The end of a storage section: 3.21's CleanupNFS and its mount of everything in fstab. */
export function finishSection(run: StorageRun, env: PromiseEnvironment): void {
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
