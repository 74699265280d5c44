/**
 * A sandbox for users scenarios: a temporary directory holding a copy of
 * /etc, an empty /home, /var/log, /var/mail and /var/spool/cron (when the
 * machine has it), and work directories;
 * commands run in a private mount namespace (`unshare -m`) where those
 * copies are bound over the real directories, so the shadow tools (which
 * replace /etc/passwd and friends by rename) change only the copies. The
 * real machine never changes.
 *
 * Inside, the sandbox is first bound at /mnt, so it stays reachable
 * whatever TMPDIR is (even under /home): paths handed to commands are the
 * inside ones (`inside()`). A program under one of the covered
 * directories (a checkout under /home) is bound there too (`reachable()`).
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

/** Where the sandbox is seen from inside its namespace. */
const INSIDE = "/mnt";

/** The directories the sandbox's copies cover, and the copy of each. */
const COVERED: readonly [string, string][] = [
  ["/etc", "etc"],
  ["/home", "home"],
  ["/var/log", "log"],
  ["/var/mail", "mail"],
  ["/var/lib/cfengine3", "wd-cfa"],
  ["/var/spool/cron", "spool"],
];

export interface SandboxRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Why sandboxes cannot be made here, or undefined when they can. */
export function sandboxUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return "needs root (mount namespaces and the shadow tools)";
  if (spawnSync("test", ["-d", INSIDE]).status !== 0)
    return `${INSIDE} is absent (the sandbox is bound there)`;
  const probe = spawnSync("unshare", ["-m", "--propagation", "private", "true"], { encoding: "utf8" });
  if (probe.error || probe.status !== 0)
    return `unshare -m is not available: ${probe.error?.message ?? probe.stderr.trim()}`;
  for (const tool of ["/usr/sbin/useradd", "/usr/sbin/usermod", "/usr/sbin/userdel", "/usr/sbin/chpasswd"]) {
    if (spawnSync("test", ["-x", tool]).status !== 0) return `${tool} is absent`;
  }
  return undefined;
}

/** The directory covered by the sandbox that holds `path`, if any. */
function coveredBy(path: string): string | undefined {
  return COVERED.map(([dir]) => dir).find((dir) => path === dir || path.startsWith(`${dir}/`));
}

export class Sandbox {
  readonly dir: string;
  /** Directories bound inside before the covering binds: [outside, name under /mnt]. */
  private readonly kept: [string, string][] = [];

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), "tend-users-"));
    const copy = spawnSync("cp", ["-a", "/etc", join(this.dir, "etc")], { encoding: "utf8" });
    if (copy.status !== 0) throw new Error(`cannot copy /etc: ${copy.stderr}`);
    for (const sub of ["home", "log", "mail", "wd-cfa", "wd-tend", "spool"]) mkdirSync(join(this.dir, sub));
    for (const file of ["lastlog", "faillog"]) writeFileSync(join(this.dir, "log", file), "");
  }

  /** A path of the sandbox as commands inside it see it. */
  inside(...parts: string[]): string {
    return join(INSIDE, ...parts);
  }

  /**
   * `path` as commands inside can reach it: itself, or, under a covered
   * directory, through a bind of `root` (the directory holding it) at /mnt.
   */
  reachable(path: string, root: string): string {
    const real = realpathSync(root);
    if (coveredBy(real) === undefined) return path;
    const name = `keep-${this.kept.length}`;
    mkdirSync(join(this.dir, name));
    this.kept.push([real, name]);
    return join(INSIDE, name, relative(real, realpathSync(path)));
  }

  /** A message with the sandbox's paths (inside or out) as `T`. */
  relative(text: string): string {
    return text.split(this.dir).join("T").split(`${INSIDE}/`).join("T/");
  }

  /** The script that binds everything, then runs "$@" ($0 is the sandbox). */
  private enter(): string {
    const steps = [`mount --bind "$0" ${INSIDE}`];
    for (const [outside, name] of this.kept) steps.push(`mount --bind '${outside}' ${INSIDE}/${name}`);
    for (const [dir, copy] of COVERED)
      steps.push(`{ [ ! -d ${dir} ] || mount --bind ${INSIDE}/${copy} ${dir}; }`);
    steps.push('exec "$@"');
    return steps.join(" && ");
  }

  private argv(command: readonly string[]): string[] {
    return ["-m", "--propagation", "private", "sh", "-c", this.enter(), this.dir, ...command];
  }

  /** Runs a program inside the sandbox's mount namespace. */
  run(command: readonly string[]): SandboxRun {
    const run = spawnSync("unshare", this.argv(command), { encoding: "utf8" });
    return { status: run.status, stdout: run.stdout ?? "", stderr: run.stderr ?? "" };
  }

  /** Runs a program inside the sandbox's mount namespace, without blocking. */
  runAsync(command: readonly string[]): Promise<SandboxRun> {
    return new Promise((resolve, reject) => {
      const child = spawn("unshare", this.argv(command));
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk;
      });
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
      });
      child.on("error", reject);
      child.on("close", (status) => resolve({ status, stdout, stderr }));
    });
  }

  /** Runs a shell script inside the sandbox (to prepare accounts); throws if it fails. */
  shell(script: string): void {
    const run = this.run(["sh", "-ec", script]);
    if (run.status !== 0) throw new Error(`sandbox setup failed: ${run.stderr}`);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
