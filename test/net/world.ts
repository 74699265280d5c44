/**
 * A contained "world" for policies that act on the whole machine, as the
 * Masterfiles Policy Framework does: a process in new mount, PID and network
 * namespaces, inside which hosts (hosts.ts) run.
 *
 * What it contains, and how:
 * - /etc, /usr, /var, /root, /home, /opt and /srv are overlays whose writes
 *   land in a tmpfs on /run (the real directories are only read; `writes()`
 *   lists what landed there); /run itself is that tmpfs, so no systemd or
 *   D-Bus socket is reachable (the MPF sees no systemd and manages no units);
 * - the lab's directory is bound back over itself, so the hosts' work
 *   directories are the real ones, visible to the test;
 * - the network namespace has only lo, brought up: every server listens
 *   there (the MPF's cf-serverd on 5308 meets no other), nothing reaches out
 *   (apt, which the MPF's package inventory runs, finds no network);
 * - the PID namespace holds every process started inside: processes
 *   promises see and signal only those, and when the world's first process
 *   ends (`close()`), the kernel ends them all, daemons included.
 * Inside it, each host still runs in its own mount namespace with its work
 * directory bound over /var/lib/cfengine3.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Host, type RunResult, runArgv } from "./hosts.js";

const OVERLAID = ["etc", "usr", "var", "root", "home", "opt", "srv"];

/** The first process of the world: sets it up, says ready, then reaps orphans until killed. */
const WORLD_SCRIPT = `set -e
R=$1
mount --make-rprivate /
mount -t tmpfs tmpfs /run
mkdir /run/lab && mount --bind "$R" /run/lab
for d in ${OVERLAID.join(" ")}; do
  [ -d "/$d" ] || continue
  mkdir -p "/run/ovl/$d/up" "/run/ovl/$d/work"
  mount -t overlay overlay -o "lowerdir=/$d,upperdir=/run/ovl/$d/up,workdir=/run/ovl/$d/work" "/$d"
done
mount --bind /run/lab "$R"
ip link set lo up
echo ready > "$R/.world-ready-$2"
if command -v python3 >/dev/null 2>&1; then
  exec python3 -c '
import os, time
while True:
    try:
        os.wait()
    except ChildProcessError:
        time.sleep(0.5)
'
fi
exec sleep infinity
`;

/** Why a world cannot be made here, or undefined. */
export function whyNoWorld(): string | undefined {
  if (process.getuid?.() !== 0) return "needs root (mount, PID and network namespaces)";
  for (const tool of ["unshare", "nsenter", "ip"])
    if (spawnSync(tool, ["--version"], { stdio: "ignore" }).error) return `${tool} is absent`;
  return undefined;
}

let worldCount = 0;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class World {
  private constructor(
    readonly root: string,
    private readonly holder: ReturnType<typeof spawn>,
    /** The world's first process, as seen from outside. */
    readonly pid: number,
  ) {}

  /** Makes a world around the lab directory `root`; throws with the reason when it cannot. */
  static async create(root: string): Promise<World> {
    const holder = spawn(
      "unshare",
      [
        "-m",
        "-n",
        "-p",
        "-f",
        "--kill-child",
        "--mount-proc",
        "sh",
        "-c",
        WORLD_SCRIPT,
        "world",
        root,
        String(++worldCount),
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    holder.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const ready = join(root, `.world-ready-${worldCount}`);
    for (let i = 0; i < 300 && !existsSync(ready); i++) {
      if (holder.exitCode !== null) throw new Error(`the world could not be made: ${stderr}`);
      await sleep(100);
    }
    if (!existsSync(ready)) throw new Error(`the world did not come up: ${stderr}`);
    const children = readFileSync(`/proc/${holder.pid}/task/${holder.pid}/children`, "utf8").trim();
    const pid = Number(children.split(/\s+/)[0]);
    if (!Number.isInteger(pid) || pid <= 0) throw new Error("cannot find the world's first process");
    return new World(root, holder, pid);
  }

  /** The argv that runs `argv` inside the world, in `host`'s mount namespace, as that host. */
  argvFor(host: Host, argv: readonly string[]): string[] {
    return [
      "nsenter",
      "-t",
      String(this.pid),
      "-m",
      "-n",
      "-p",
      "unshare",
      "-m",
      "sh",
      "-c",
      'mount --bind "$0" /var/lib/cfengine3 && exec "$@"',
      host.dir,
      ...argv,
    ];
  }

  /** Runs `argv` as `host` inside the world (a finished process). */
  run(host: Host, argv: readonly string[], timeoutMs = 600_000): RunResult {
    return runArgv(this.argvFor(host, argv), host.env(), { timeoutMs });
  }

  /** Runs a plain command in the world (no host). */
  exec(argv: readonly string[]): RunResult {
    return runArgv(["nsenter", "-t", String(this.pid), "-m", "-n", "-p", ...argv], process.env, {
      timeoutMs: 60_000,
    });
  }

  /** Whether something listens on TCP `port` in the world. */
  listening(port: number): boolean {
    const r = this.exec(["ss", "-Hltn", `sport = :${port}`]);
    return r.status === 0 && r.stdout.trim() !== "";
  }

  /** Waits until something listens on `port` in the world; false after `timeoutMs`. */
  async waitListening(port: number, timeoutMs = 30_000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.listening(port)) return true;
      await sleep(250);
    }
    return false;
  }

  /** The processes running in the world (`ps` lines). */
  processes(): string[] {
    return this.exec(["ps", "-eo", "args"]).stdout.split("\n").slice(1).filter(Boolean);
  }

  /** Files written under the overlays (what the hosts changed outside their work directories). */
  writes(): string[] {
    const r = this.exec(["sh", "-c", "cd /run/ovl && find . -mindepth 3 -path './*/up/*' | sort"]);
    return r.stdout
      .split("\n")
      .filter(Boolean)
      .map((p) => p.replace(/^\.\/([^/]+)\/up/, "/$1"));
  }

  /** Ends the world: every process in it ends with its first one. */
  async close(): Promise<void> {
    if (this.holder.exitCode !== null) return;
    const gone = new Promise<void>((resolve) => this.holder.once("exit", () => resolve()));
    this.holder.kill("SIGKILL");
    await gone;
  }
}
