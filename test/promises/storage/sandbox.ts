/**
 * A sandbox for storage promises: a private mount namespace (`unshare -m
 * --propagation private`) in which a tmpfs "arena" holds the mount points,
 * a copy of /etc is bound over /etc (the whole directory: fstab is
 * replaced by a rename, which a single-file bind refuses with EBUSY), and
 * a stand-in NFS mount helper (overlaid on /usr/sbin) serves `host:/path`
 * as a small tmpfs, so `mount srv:/export /x` works as an NFS mount would.
 * The agent (cf-agent, or tend through its CLI) runs twice as a child of
 * the namespace; what it printed, the mounts under the sandbox, fstab and
 * the arena's tree are written out after each run. Nothing outside the
 * namespace changes: the namespace's mounts vanish with it, and loop
 * devices are attached with autoclear and detached at the end.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const TEND_CLI = fileURLToPath(new URL("../../../../bin/tend.js", import.meta.url));

/** A stand-in for mount.nfs: mounts a 1 MiB tmpfs named after the export, keeping the options tmpfs knows. */
const NFS_HELPER = `#!/bin/sh
# Stand-in NFS mount helper for the storage sandbox: host:/path becomes a small tmpfs.
src=$1; dir=$2; shift 2; opts=
while [ $# -gt 0 ]; do case $1 in -o) opts=$2; shift 2;; -t) shift 2;; *) shift;; esac; done
keep=size=1m
for o in $(echo "$opts" | tr , ' '); do
  case $o in ro|rw|noexec|nosuid|nodev|size=*|mode=*) keep="$keep,$o";; esac
done
exec mount -i -t tmpfs -o "$keep" "$src" "$dir"
`;

/** Runs in the namespace: $1 the root, $2 the number of runs, then the agent's command. */
const SANDBOX_SCRIPT = `set -u
R=$1; RUNS=$2; shift 2
mount -t tmpfs -o size=16m,mode=755 tend-arena "$R/arena" || exit 90
mount -t overlay tend-helpers -o "lowerdir=$R/helpers:/usr/sbin" /usr/sbin || exit 91
mount --bind "$R/etc" /etc || exit 92
if [ -d /var/lib/cfengine3 ]; then mount --bind "$R/wd-cfa" /var/lib/cfengine3 || exit 93; fi
cd "$R" || exit 94
. "$R/setup.sh" > "$R/out/setup.log" 2>&1 || { cat "$R/out/setup.log"; exit 95; }
i=1
while [ "$i" -le "$RUNS" ]; do
  "$@" > "$R/out/log.$i" 2>&1
  echo $? > "$R/out/rc.$i"
  cat /proc/self/mounts > "$R/out/mounts.$i"
  cat /etc/fstab > "$R/out/fstab.$i"
  (cd "$R/arena" && find . -mindepth 1 -maxdepth 2 -printf '%p %y %m\\n' | LC_ALL=C sort) > "$R/out/tree.$i"
  i=$((i + 1))
done
[ -f "$R/teardown.sh" ] && . "$R/teardown.sh" > /dev/null 2>&1
umount -R "$R/arena" 2> /dev/null
for d in $(losetup -n -O NAME -j "$R/disk.img" 2> /dev/null); do losetup -d "$d"; done
exit 0
`;

/** What one run left, with the sandbox's root written `R` and loop devices `/dev/loopN`. */
export interface RunView {
  readonly exit: number;
  /**
   * error, warning, notice and info lines (`level: message`), the verbose
   * lines of storage promises, and reports (`R: text`), in order.
   */
  readonly log: readonly string[];
  /** Mounts under the arena, as /proc/self/mounts shows them. */
  readonly mounts: readonly string[];
  readonly fstab: string;
  /** The arena's entries two levels deep: path, type, mode. */
  readonly tree: readonly string[];
}

export interface SandboxSpec {
  /**
   * sh run in the namespace before the agent, in the root: the arena is
   * `arena/`, a disk image `disk.img` (relative paths: the root's may hold
   * spaces).
   */
  readonly setup?: string;
  /** sh run once the runs are over (stop what setup started). */
  readonly teardown?: string;
  /** The sandbox's /etc/fstab ($R stands for the root). */
  readonly fstab?: string;
  /** The policy ($R stands for the root). */
  readonly policy: string;
  readonly runs: number;
}

export type Agent = "cf-agent" | "tend";

function normalize(text: string, root: string): string {
  return text
    .split(root)
    .join("R")
    .replace(/\/dev\/loop\d+/g, "/dev/loopN");
}

const LEVELS = /^\s*(error|warning|notice|info|verbose): (.*)$/;

/** The verbose lines of storage promises compared (not the agent's general ones, nor the host's mounts). */
const STORAGE_VERBOSE =
  /^(Verifying mounted file systems|File system '.*' seems (not )?to be mounted correctly|Verifying '|Number of changes observed|Mounting all filesystems|Attempting to mount all|Checking required filesystem|Scan arrival|Using (literal|regex) pathtype|An unmount promise indicates|Filename '.*' is classified as ignorable)/;

function logLines(text: string, root: string): string[] {
  const out: string[] = [];
  for (const line of normalize(text, root).split("\n")) {
    const entry = LEVELS.exec(line);
    // Where `.` and `..` come in a listing is the file system's business (ext4 hashes names).
    if (entry?.[1] === "verbose" && /^Filename '.*\/\.\.?' is classified/.test(entry[2] ?? "")) continue;
    if (entry && (entry[1] !== "verbose" || STORAGE_VERBOSE.test(entry[2] ?? "")))
      out.push(`${entry[1]}: ${entry[2]}`);
    else if (line.startsWith("R: ")) out.push(line);
    else if (/stack smashing|Aborted|Segmentation/.test(line)) out.push(`crash: ${line}`);
    // Anything else that reads as an error (a diagnostic, a stack trace) shows in a failed comparison.
    else if (/\berror\b|Error\b|^\s+at /.test(line)) out.push(`other: ${line}`);
  }
  return out;
}

function readRun(root: string, i: number): RunView {
  const out = (name: string) => readFileSync(join(root, "out", `${name}.${i}`), "utf8");
  const mounts = normalize(out("mounts"), root)
    .split("\n")
    .filter((line) => / R\/arena(\/| )/.test(line));
  return {
    exit: Number(out("rc").trim()),
    log: logLines(out("log"), root),
    mounts,
    fstab: normalize(out("fstab"), root),
    tree: out("tree").split("\n").filter(Boolean),
  };
}

function agentCommand(agent: Agent, root: string, flags: readonly string[]): string[] {
  const policy = join(root, "policy.cf");
  if (agent === "cf-agent") return ["cf-agent", ...flags, "-f", policy];
  return [process.execPath, TEND_CLI, "agent", ...flags, "-f", policy, "--workdir", join(root, "wd-tend")];
}

/** Builds a sandbox, runs the agent in it `spec.runs` times, and removes it; what each run left. */
export function runInSandbox(agent: Agent, spec: SandboxSpec, flags: readonly string[]): RunView[] {
  const root = mkdtempSync(join(tmpdir(), "tend-storage-"));
  try {
    for (const dir of ["arena", "helpers", "wd-cfa", "wd-tend", "out"]) mkdirSync(join(root, dir));
    cpSync("/etc", join(root, "etc"), { recursive: true, verbatimSymlinks: true });
    const fill = (text: string) => text.split("$R").join(root);
    writeFileSync(join(root, "etc", "fstab"), fill(spec.fstab ?? "# sandbox fstab\n"));
    writeFileSync(join(root, "helpers", "mount.nfs"), NFS_HELPER);
    chmodSync(join(root, "helpers", "mount.nfs"), 0o755);
    writeFileSync(join(root, "setup.sh"), `${spec.setup ?? ""}\n`);
    if (spec.teardown) writeFileSync(join(root, "teardown.sh"), `${spec.teardown}\n`);
    writeFileSync(join(root, "policy.cf"), fill(spec.policy));
    writeFileSync(join(root, "sandbox.sh"), SANDBOX_SCRIPT);
    const run = spawnSync(
      "unshare",
      [
        "-m",
        "--propagation",
        "private",
        "sh",
        join(root, "sandbox.sh"),
        root,
        String(spec.runs),
        ...agentCommand(agent, root, flags),
      ],
      { encoding: "utf8", env: { ...process.env, LC_ALL: "C" } },
    );
    if (run.status !== 0) throw new Error(`sandbox failed (${run.status}): ${run.stdout}${run.stderr}`);
    const views: RunView[] = [];
    for (let i = 1; i <= spec.runs; i++) views.push(readRun(root, i));
    return views;
  } finally {
    // TEND_STORAGE_KEEP=1 keeps the sandbox's files (out/log.N: what the agent printed) to debug a scenario.
    if (process.env.TEND_STORAGE_KEEP === "1") process.stderr.write(`kept ${root}\n`);
    else rmSync(root, { recursive: true, force: true });
  }
}

/** Why the sandbox cannot be built here, or undefined when it can. */
export function sandboxUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return "the storage sandbox needs root (mount namespaces, tmpfs)";
  // Both agents split mount command lines and fstab entries at blanks.
  if (/\s/.test(tmpdir()))
    return "TMPDIR holds a blank: mount points under it cannot go into fstab or a mount command";
  if (spawnSync("unshare", ["--version"]).status !== 0) return "unshare is not installed";
  const dir = mkdtempSync(join(tmpdir(), "tend-storage-probe-"));
  const probe = spawnSync(
    "unshare",
    ["-m", "--propagation", "private", "sh", "-c", 'mount -t tmpfs tend-probe "$0" && umount "$0"', dir],
    { encoding: "utf8" },
  );
  rmSync(dir, { recursive: true, force: true });
  if (probe.status !== 0) return `mount namespaces are not available here (${probe.stderr.trim()})`;
  if (!existsSync("/usr/sbin")) return "no /usr/sbin to overlay the NFS helper on";
  return undefined;
}

/** Why loop devices cannot be used here, or undefined when they can. */
export function loopUnavailable(): string | undefined {
  if (spawnSync("losetup", ["-f"]).status !== 0) return "no free loop device (losetup -f failed)";
  if (spawnSync("mkfs.ext4", ["-V"]).status !== 0) return "mkfs.ext4 is not installed";
  return undefined;
}

/** The mount table outside any sandbox, to check the test left it as it was. */
export function hostMounts(): string {
  return readFileSync("/proc/self/mounts", "utf8");
}
