/**
 * The `volume` body, as 3.21's VerifyFileSystem and VerifyFreeSpace keep
 * it: a directory that looks used, and free space left on its volume
 * unless it is another host's.
 */
import { statSync } from "node:fs";
import type { Outcome } from "../outcome.js";
import { diskUsage, isForeignMount, scanDirectory } from "../../providers/mounts/index.js";
import type { StorageAttributes } from "./attributes.js";
import { agentMountView } from "./mount-view.js";
import type { StorageRun, Verdicts } from "./run-state.js";

/** 3.21's VerifyFileSystem: a directory must hold enough bytes in enough entries. */
export function verifyFileSystem(name: string, a: StorageAttributes, v: Verdicts): Outcome {
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
export function verifyFreeSpace(run: StorageRun, name: string, a: StorageAttributes, v: Verdicts): Outcome {
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
