/**
 * The changes chroot of `--simulate` (3.21's simulate mode): files promises
 * act on a copy of each object they touch, under
 * `$(sys.statedir)/<pid>.changes/`, and the real files are never changed.
 * The chroot remembers which objects were changed, kept or renamed, in
 * order, so the run can end with a manifest or a diff (see audit.ts).
 *
 * A path maps into the chroot by prefixing the root (`/etc/motd` →
 * `<root>/etc/motd`). Before a promise acts on a path, `prepare` mirrors it
 * as 3.21's PrepareChangesChroot does: the existing directories above it
 * with their modes and owners, then the object itself (a file's content, a
 * directory's whole tree, a link and what it points to; an absolute link
 * target is pointed into the chroot).
 */
import {
  chmodSync,
  copyFileSync,
  lchownSync,
  readdirSync,
  readlinkSync,
  rmSync,
  type Stats,
  symlinkSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { lstatOrUndefined, realpathOrUndefined, statOrUndefined } from "../../providers/files/inspect.js";
import { makeDirectoriesSync } from "../../system/make-directories.js";

/** `--simulate=`: what the run shows at its end. */
export type SimulateMode = "manifest" | "manifest-full" | "diff";

export const SIMULATE_MODES: readonly SimulateMode[] = ["manifest", "manifest-full", "diff"];

export class ChangesChroot {
  /** Objects changed, in the order their promises repaired them (real paths). */
  readonly changed: string[] = [];
  /** Objects evaluated and found as promised (recorded with `manifest-full` only). */
  readonly evaluated: string[] = [];
  /** Renames made, as [old name, new name] (real paths). */
  readonly renames: [string, string][] = [];

  /** `root`: the chroot directory, absolute, without a trailing slash. */
  constructor(
    readonly root: string,
    readonly mode: SimulateMode,
  ) {}

  /** Where `path` (absolute, or resolved from the working directory) lives in the chroot. */
  toChroot(path: string): string {
    if (this.isInside(path)) return path;
    // Not normalised: a trailing `/.` means something to files promises.
    return this.root + (path.startsWith("/") ? path : resolve(path));
  }

  /** The real path a chroot path stands for (other paths are returned as they are). */
  toNormal(path: string): string {
    return this.isInside(path) ? path.slice(this.root.length) : path;
  }

  /** Text with every chroot path shown as the real path it stands for (for log lines). */
  hide(text: string): string {
    return text.includes(this.root) ? text.split(`${this.root}/`).join("/") : text;
  }

  private isInside(path: string): boolean {
    return path.startsWith(`${this.root}/`);
  }

  /** Mirrors `path` into the chroot, once (see the module comment). Never throws. */
  prepare(path: string): void {
    const real = resolve(this.toNormal(path));
    const chrooted = this.toChroot(real);
    if (lstatOrUndefined(chrooted)) return;
    this.mirrorParents(real);
    const stats = lstatOrUndefined(real);
    if (stats) this.mirror(real, chrooted, stats);
  }

  recordChanged(path: string): void {
    this.changed.push(this.toNormal(path));
  }

  recordEvaluated(path: string): void {
    if (this.mode === "manifest-full") this.evaluated.push(this.toNormal(path));
  }

  recordRename(from: string, to: string): void {
    this.renames.push([this.toNormal(from), this.toNormal(to)]);
  }

  /** Deletes the chroot and everything in it. Never throws. */
  remove(): void {
    try {
      rmSync(this.root, { recursive: true, force: true });
    } catch {
      // Nothing more can be done; the directory is under the state directory.
    }
  }

  /** The directories above `real` that exist, made in the chroot with their modes and owners. */
  private mirrorParents(real: string): void {
    mkdirQuietly(this.root, 0o700);
    const parts = real.split("/").filter(Boolean);
    let current = "";
    for (const part of parts.slice(0, -1)) {
      current += `/${part}`;
      const stats = statOrUndefined(current);
      if (!stats?.isDirectory()) return;
      const chrooted = this.root + current;
      if (!lstatOrUndefined(chrooted)) {
        mkdirQuietly(chrooted, stats.mode & 0o7777);
        copyOwnership(chrooted, stats);
      }
    }
  }

  private mirror(real: string, chrooted: string, stats: Stats): void {
    if (stats.isSymbolicLink()) {
      this.mirrorLink(real, chrooted);
      return;
    }
    if (stats.isDirectory()) {
      mkdirQuietly(chrooted, stats.mode & 0o7777);
      for (const name of readdirOrEmpty(real)) this.prepare(join(real, name));
    } else if (stats.isFile()) {
      try {
        copyFileSync(real, chrooted);
      } catch {
        return;
      }
    } else {
      // Devices, pipes and sockets are not copied (3.21 leaves them out too, in effect).
      return;
    }
    copyOwnership(chrooted, stats);
  }

  /** A link is copied as a link; an absolute target is pointed into the chroot and mirrored too. */
  private mirrorLink(real: string, chrooted: string): void {
    let target: string;
    try {
      target = readlinkSync(real);
    } catch {
      return;
    }
    const absolute = target.startsWith("/");
    try {
      symlinkSync(absolute ? this.toChroot(target) : target, chrooted);
    } catch {
      return;
    }
    if (absolute) this.prepare(target);
    else {
      const resolved = realpathOrUndefined(real) ?? resolve(dirname(real), target);
      this.prepare(resolved);
    }
  }
}

function readdirOrEmpty(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

function mkdirQuietly(path: string, mode: number): void {
  try {
    makeDirectoriesSync(path, mode);
    chmodSync(path, mode);
  } catch {
    // The promise that needs it reports the problem.
  }
}

/** The copy gets the original's mode and owner (as 3.21's CopyFilePermissionsDisk). */
function copyOwnership(path: string, stats: Stats): void {
  try {
    chmodSync(path, stats.mode & 0o7777);
    lchownSync(path, stats.uid, stats.gid);
  } catch {
    // Not being root, the copy keeps the caller's owner.
  }
}
