/**
 * A scratch, journaled ext4 file system for benchmarks that create many
 * files, so that what they measure is the tools and not this machine's root.
 *
 * Why: the root file system of the machine the benchmarks were written on
 * (ext4, also /tmp) has no journal. Without a journal the kernel's inode
 * allocator passes over every inode freed in the last minutes (ext4's
 * `recently_deleted()`), for every new file, so a run that creates 10,000
 * files took 3.3 s or 0.3 s depending on what had been deleted before it. A
 * journaled ext4, what nearly every real machine has, does not: there the
 * same creation took 0.3 s every time.
 *
 * How: the benchmark makes a sparse image file in a temporary directory,
 * `mkfs.ext4` on it, and runs itself again under `unshare -m` (a private
 * mount namespace) with `--scratch-image IMAGE`; that run mounts the image
 * on a loop device inside its namespace and points TMPDIR at it, so every
 * tree, work directory and scratch configuration of the benchmark lands
 * there. Nothing is mounted on the host: the mount goes with the namespace,
 * and the loop device (mount's autoclear) with the mount. The first process
 * removes the image when the run ends, however it ends, and detaches any
 * loop device still on it.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

/** Exit status of the inner run when it could not mount the image: run on the root instead. */
export const MOUNT_FAILED = 75;

function onPath(tool: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" }).status === 0;
}

/** Why a scratch ext4 cannot be mounted here, or null when it can. */
export function scratchExt4Unavailable(): string | null {
  if (process.platform !== "linux") return "this is not Linux";
  if (process.getuid?.() !== 0) return "not running as root (mounting needs it)";
  for (const tool of ["unshare", "mkfs.ext4", "mount", "losetup"])
    if (!onPath(tool)) return `${tool} is not installed`;
  const free = spawnSync("losetup", ["-f"], { encoding: "utf8" });
  if (free.status !== 0)
    return `there is no free loop device (losetup -f: ${(free.stderr || free.stdout).trim() || `exit ${free.status}`})`;
  return null;
}

/** Detaches every loop device still backed by `image` (normally none: mount's autoclear did it). */
function detachLoops(image: string): void {
  for (let attempt = 0; attempt < 20; attempt++) {
    const r = spawnSync("losetup", ["-n", "-O", "NAME", "-j", image], { encoding: "utf8" });
    const devices = r.status === 0 ? r.stdout.split("\n").filter((d) => d.trim() !== "") : [];
    if (devices.length === 0) return;
    for (const d of devices) spawnSync("losetup", ["-d", d.trim()], { stdio: "ignore" });
    // The kernel releases a device once its last user is gone: give it a moment.
    spawnSync("sleep", ["0.1"]);
  }
}

export interface ScratchRun {
  /** The inner run's exit status, or null when it could not be started (`reason` says why). */
  readonly status: number | null;
  readonly reason?: string;
}

/**
 * Makes a scratch ext4 image of `bytes` (sparse) with `inodes` inodes and
 * runs `script args --scratch-image IMAGE` under `unshare -m` with this
 * Node; the image and any loop device are gone when the promise settles.
 * SIGINT, SIGTERM and SIGHUP are passed on to the inner run, which ends,
 * and then the cleanup runs.
 */
export async function runInScratchExt4(
  script: string,
  args: readonly string[],
  bytes: number,
  inodes: number,
): Promise<ScratchRun> {
  const dir = mkdtempSync(join(tmpdir(), "tend-bench-ext4-"));
  const image = join(dir, "ext4.img");
  let child: ChildProcess | undefined;
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
  const forward = (signal: NodeJS.Signals): void => {
    child?.kill(signal);
  };
  for (const s of signals) process.on(s, forward);
  try {
    const fd = openSync(image, "w");
    try {
      // One byte at the end: a sparse file of the image's size.
      writeSync(fd, Buffer.alloc(1), 0, 1, bytes - 1);
    } finally {
      closeSync(fd);
    }
    // Inode tables and journal written now, not by the kernel's lazy init
    // thread in the background of the timed runs.
    const mkfs = spawnSync(
      "mkfs.ext4",
      ["-q", "-F", "-N", String(inodes), "-E", "lazy_itable_init=0,lazy_journal_init=0", image],
      { encoding: "utf8" },
    );
    if (mkfs.status !== 0)
      return { status: null, reason: `mkfs.ext4 failed: ${(mkfs.stderr || mkfs.stdout).trim()}` };
    const started = spawn(
      "unshare",
      [
        "-m",
        "--propagation",
        "private",
        "--",
        process.execPath,
        ...process.execArgv,
        script,
        ...args,
        "--scratch-image",
        image,
      ],
      { stdio: "inherit" },
    );
    child = started;
    const status = await new Promise<number | null>((resolve) => {
      started.on("error", () => resolve(null));
      started.on("exit", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
    });
    return status === null ? { status: null, reason: "unshare could not be started" } : { status };
  } finally {
    for (const s of signals) process.off(s, forward);
    detachLoops(image);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * In the inner run: mounts `image` on a loop device at a directory beside
 * it and points TMPDIR there. Returns the mount point, or why it failed.
 */
export function mountScratch(image: string): { mountpoint: string } | { reason: string } {
  const mountpoint = join(image, "..", "mnt");
  mkdirSync(mountpoint, { recursive: true });
  const r = spawnSync("mount", ["-o", "loop", image, mountpoint], { encoding: "utf8" });
  if (r.status !== 0) return { reason: `mount -o loop failed: ${(r.stderr || r.stdout).trim()}` };
  const tmp = join(mountpoint, "tmp");
  mkdirSync(tmp, { mode: 0o1777 });
  process.env.TMPDIR = tmp;
  return { mountpoint };
}

/** Unmounts the scratch file system (its namespace would, on exit; this frees the loop device now). */
export function unmountScratch(mountpoint: string): void {
  spawnSync("umount", [mountpoint], { stdio: "ignore" });
}

/**
 * What `path` lies on, for the benchmark's output: the file system type,
 * its device and, for ext2/3/4, whether it has a journal.
 */
export function describeFileSystem(path: string): string {
  const r = spawnSync("findmnt", ["-n", "-o", "SOURCE,FSTYPE", "-T", path], { encoding: "utf8" });
  if (r.status !== 0) return "an unknown file system";
  const [source = "?", type = "?"] = r.stdout.trim().split(/\s+/);
  let journal = "";
  if (/^ext[34]$/.test(type)) {
    // The kernel lists the journal of every mounted file system that has one
    // in /proc/fs/jbd2 ("vda-8"); reading the device's superblock may be denied.
    try {
      const device = basename(source);
      const journals = readdirSync("/proc/fs/jbd2");
      journal = journals.some((j) => j.startsWith(`${device}-`)) ? ", with a journal" : ", WITHOUT a journal";
    } catch {
      // No /proc/fs/jbd2: not said.
    }
  }
  return `${type} on ${source}${journal}`;
}
