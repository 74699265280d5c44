/**
 * What every benchmark needs to put tend and cf-agent side by side: a work
 * directory each agent can run in, the time of one run, CPU time of the
 * finished runs, and medians.
 */
import { spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * How a benchmark starts tend: as a user does, through the `tend` command
 * (bin/tend), which runs the node it finds on PATH. The benchmark's own node
 * goes first on PATH, so that running a benchmark under another Node times
 * tend under that Node.
 */
export const TEND = fileURLToPath(new URL("../../bin/tend", import.meta.url));
process.env.PATH = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`;

/**
 * Why bin/tend would not run the bundle a user runs, if so: it is missing,
 * or older than the compiled sources (`tsc` ran without the bundle step,
 * as `npm run conformance` does), and bin/tend.js then runs dist/src's
 * modules, ~70 ms slower per start on a 1,000-file catalog. A benchmark
 * would time that without a word.
 */
export function bundleProblem(root: string): string | undefined {
  const bundle = statSync(join(root, "dist", "bundle", "tend.cjs"), { throwIfNoEntry: false });
  const sources = statSync(join(root, "dist", "src", "cli", "main.js"), { throwIfNoEntry: false });
  if (bundle === undefined) return "dist/bundle/tend.cjs is missing";
  if (sources !== undefined && sources.mtimeMs > bundle.mtimeMs)
    return "dist/bundle is older than dist/src (tsc ran without the bundle step)";
  return undefined;
}

const stale = bundleProblem(fileURLToPath(new URL("../..", import.meta.url)));
if (stale !== undefined)
  process.stderr.write(
    `bench: ${stale}: tend runs its modules, not the bundle, and is timed slower than it is; run \`node scripts/bundle.js\` first\n`,
  );

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * CPU time (user + system, ms) of this process's finished children, from
 * /proc/self/stat; null where there is no /proc. Unlike wall time it does not
 * grow when other work competes for the machine. Linux counts it in ticks of
 * 10 ms: take the difference over many runs.
 */
export function childCpuMs(): number | null {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // cutime and cstime are fields 16 and 17; `fields` starts at field 3.
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return null;
  }
}

/**
 * A fresh work directory (CFENGINE_TEST_OVERRIDE_WORKDIR) named after the
 * benchmark; for cf-agent, with cf-promises in its bin/ and keys made, so
 * that it starts as quickly as it can.
 */
export function benchWorkdir(label: string, forCfAgent: boolean): string {
  const workdir = mkdtempSync(join(tmpdir(), `tend-bench-${label}-`));
  if (forCfAgent) {
    mkdirSync(join(workdir, "bin"), { recursive: true });
    symlinkSync("/usr/bin/cf-promises", join(workdir, "bin", "cf-promises"));
    spawnSync("cf-key", [], {
      env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: workdir },
      stdio: "ignore",
    });
  }
  return workdir;
}

/**
 * Wall time (ms) of one agent run. A failed run throws, since timing a
 * failure would mislead; with `quiet`, so does a run that logged anything.
 */
export function timeAgent(
  command: string,
  args: readonly string[],
  workdir: string,
  cwd: string,
  quiet = false,
): number {
  const started = performance.now();
  const result = spawnSync(command, args, {
    cwd,
    env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: workdir },
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const elapsed = performance.now() - started;
  if (result.status !== 0 || (quiet && result.stderr.trim() !== ""))
    throw new Error(`${command} exited ${result.status}: ${result.stderr.slice(0, 400)}`);
  return elapsed;
}

export const CF_AGENT = "/usr/bin/cf-agent";

/** One of the two agents a benchmark runs on one policy, with its own work directory. */
export interface BenchAgent {
  readonly name: "tend" | "cf-agent";
  readonly command: string;
  readonly args: readonly string[];
  readonly workdir: string;
}

/** `tend agent -Kf policy` or `cf-agent -Kf policy`, each in a fresh work directory named after `label`. */
export function benchAgent(label: string, name: BenchAgent["name"], policy: string): BenchAgent {
  const workdir = benchWorkdir(`${label}-${name}`, name === "cf-agent");
  if (name === "tend") return { name, command: TEND, args: ["agent", "-Kf", policy], workdir };
  return { name, command: CF_AGENT, args: ["-Kf", policy], workdir };
}

/** One timed run: wall time, CPU time of the run where /proc tells it, and its output. */
export interface TimedRun {
  readonly wall: number;
  readonly cpu: number | null;
  readonly stdout: string;
}

/** Runs an agent once in `cwd` (this process's by default); a failed run throws. */
export function timeRun(agent: BenchAgent, cwd?: string): TimedRun {
  const cpuBefore = childCpuMs();
  const started = performance.now();
  const result = spawnSync(agent.command, agent.args, {
    cwd,
    env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: agent.workdir, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  const wall = performance.now() - started;
  const cpuAfter = childCpuMs();
  if (result.status !== 0)
    throw new Error(`${agent.name} exited ${result.status}: ${result.stderr.slice(0, 400)}`);
  return {
    wall,
    cpu: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
    stdout: result.stdout,
  };
}

/** The median CPU time of runs, when every run has one. */
export function medianCpu(runs: readonly TimedRun[]): number | null {
  return runs.every((r) => r.cpu !== null) ? median(runs.map((r) => r.cpu as number)) : null;
}

/**
 * Fresh empty directories for first runs, the same for every tool.
 *
 * Creating a file costs the kernel more after many files were deleted: on
 * ext4 without a journal (this machine's root) each new inode is searched
 * for past every inode freed in the last minute or so, so a first run right
 * after `rm -rf` of the previous tree of 10,000 files took several times
 * longer, and how much longer depended on what was deleted when. So a tree
 * is never deleted during a benchmark: `renew` moves the previous one aside
 * (one rename) and makes an empty directory at the same path; `dispose`
 * deletes them all once the timing is over. Each timed run starts after
 * `sync`, so no tool pays for writing back what the one before wrote.
 */
export class FreshTrees {
  private readonly graveyard: string;
  private moved = 0;

  constructor(label: string) {
    this.graveyard = mkdtempSync(join(tmpdir(), `tend-bench-${label}-old-`));
  }

  /** Makes `dir` a new empty directory; what was there is kept aside until `dispose`. */
  renew(dir: string): void {
    if (existsSync(dir)) {
      try {
        renameSync(dir, join(this.graveyard, String(this.moved++)));
      } catch {
        // Another file system: then it is deleted after all.
        rmSync(dir, { recursive: true, force: true });
      }
    }
    mkdirSync(dir, { recursive: true });
    settle();
  }

  dispose(): void {
    rmSync(this.graveyard, { recursive: true, force: true });
  }
}

/** Writes back what earlier runs left dirty, so that the next timed run does not pay for it. */
export function settle(): void {
  spawnSync("sync", [], { stdio: "ignore" });
}

/**
 * What creating `count` one-line files in the empty directory `dir` costs
 * with nothing but open, write and close, from this process: the part of a
 * first run that is the kernel's, whatever the tool (wall and CPU ms).
 */
export function creationFloor(dir: string, count: number): { wallMs: number; cpuMs: number } {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const fd = openSync(join(dir, `f${i}`), "wx", 0o644);
    writeSync(fd, `file ${i}\n`);
    closeSync(fd);
  }
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}
