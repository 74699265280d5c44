/**
 * A sandbox for users scenarios: a temporary directory holding a copy of
 * /etc, an empty /home, /var/log and /var/mail, and work directories;
 * commands run in a private mount namespace (`unshare -m`) where those
 * copies are bound over the real directories, so the shadow tools (which
 * replace /etc/passwd and friends by rename) change only the copies. The
 * real machine never changes.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Binds the copies over the real directories, then runs "$@" ($0 is the sandbox). */
const ENTER = [
  'T="$0"',
  'mount --bind "$T/etc" /etc',
  'mount --bind "$T/home" /home',
  'mount --bind "$T/log" /var/log',
  'mount --bind "$T/mail" /var/mail',
  'mount --bind "$T/wd-cfa" /var/lib/cfengine3',
  'exec "$@"',
].join(" && ");

export interface SandboxRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Why sandboxes cannot be made here, or undefined when they can. */
export function sandboxUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return "needs root (mount namespaces and the shadow tools)";
  const probe = spawnSync("unshare", ["-m", "--propagation", "private", "true"], { encoding: "utf8" });
  if (probe.error || probe.status !== 0)
    return `unshare -m is not available: ${probe.error?.message ?? probe.stderr.trim()}`;
  for (const tool of ["/usr/sbin/useradd", "/usr/sbin/usermod", "/usr/sbin/userdel", "/usr/sbin/chpasswd"]) {
    if (spawnSync("test", ["-x", tool]).status !== 0) return `${tool} is absent`;
  }
  return undefined;
}

export class Sandbox {
  readonly dir: string;

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), "tend-users-"));
    const copy = spawnSync("cp", ["-a", "/etc", join(this.dir, "etc")], { encoding: "utf8" });
    if (copy.status !== 0) throw new Error(`cannot copy /etc: ${copy.stderr}`);
    for (const sub of ["home", "log", "mail", "wd-cfa", "wd-tend"]) mkdirSync(join(this.dir, sub));
    for (const file of ["lastlog", "faillog"]) writeFileSync(join(this.dir, "log", file), "");
  }

  /** Runs a program inside the sandbox's mount namespace. */
  run(argv: readonly string[], env?: NodeJS.ProcessEnv): SandboxRun {
    const run = spawnSync(
      "unshare",
      ["-m", "--propagation", "private", "sh", "-c", ENTER, this.dir, ...argv],
      {
        encoding: "utf8",
        env: env ?? process.env,
      },
    );
    return { status: run.status, stdout: run.stdout ?? "", stderr: run.stderr ?? "" };
  }

  /** Runs a program inside the sandbox's mount namespace, without blocking. */
  runAsync(argv: readonly string[]): Promise<SandboxRun> {
    return new Promise((resolve, reject) => {
      const child = spawn("unshare", [
        "-m",
        "--propagation",
        "private",
        "sh",
        "-c",
        ENTER,
        this.dir,
        ...argv,
      ]);
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
