/**
 * Files promises under `--simulate` (3.21's simulate mode): the promise acts
 * for real, but on copies in the changes chroot (see
 * agent/simulate/changes-chroot.ts), so the real files never change.
 *
 * - The environment is the run's, except that it is no dry run.
 * - Each path is mirrored into the chroot before the promise acts on it.
 * - A local copy source already in the chroot (made earlier in the run) is
 *   copied from there; a link source and an absolute new name of a rename
 *   are in the chroot; so is the repository for backups.
 * - At the end of each path, a repaired object is recorded as changed and,
 *   with `manifest-full`, an object found as promised as evaluated.
 */
import { existsSync } from "node:fs";
import type { Outcome } from "../outcome.js";
import type { ChangesChroot } from "../simulate/changes-chroot.js";
import type { PromiseEnvironment } from "../contract.js";
import type { FilesAttributes } from "./attributes.js";

/** The run's environment, acting (no dry run): every path it is given is in the chroot. */
export function actingEnvironment(env: PromiseEnvironment): PromiseEnvironment {
  return new Proxy(env, {
    get(target, property) {
      if (property === "dryRun") return false;
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The attributes with the paths they name (other than the promiser) moved into the chroot. */
export function chrootAttributes(attrs: FilesAttributes, chroot: ChangesChroot): FilesAttributes {
  const copySource = attrs.copy.source;
  const linkSource = attrs.link.source;
  const newname = attrs.rename.newname;
  return {
    ...attrs,
    copy:
      copySource?.startsWith("/") && existsSync(chroot.toChroot(copySource))
        ? { ...attrs.copy, source: chroot.toChroot(copySource) }
        : attrs.copy,
    link: linkSource?.startsWith("/") ? { ...attrs.link, source: chrooted(chroot, linkSource) } : attrs.link,
    rename: newname?.startsWith("/") ? { ...attrs.rename, newname: chrooted(chroot, newname) } : attrs.rename,
  };
}

/** `path` mirrored into the chroot, and its chroot path. */
export function chrooted(chroot: ChangesChroot, path: string): string {
  chroot.prepare(path);
  return chroot.toChroot(path);
}

/** What the end of a path's promise records: changed objects, and (manifest-full) kept ones. */
export function recordInChroot(
  env: PromiseEnvironment,
  path: string,
  outcome: Outcome,
  renaming: boolean,
): void {
  const chroot = env.changesChroot;
  // Renames are recorded as they are made, and shown apart.
  if (!chroot || renaming) return;
  if (outcome === "repaired") chroot.recordChanged(path);
  else if (outcome === "kept") chroot.recordEvaluated(path);
}

/** A leaf of a depth search: evaluated (manifest-full), and changed once the promise has repaired anything. */
export function recordLeafInChroot(
  env: PromiseEnvironment,
  path: string,
  outcomeSoFar: Outcome,
  renaming: boolean,
): void {
  const chroot = env.changesChroot;
  if (!chroot || renaming) return;
  chroot.recordEvaluated(path);
  if (outcomeSoFar === "repaired") chroot.recordChanged(path);
}
