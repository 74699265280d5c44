/**
 * The monitor daemons side by side (issue 15, must-show 4): `tend monitord`
 * and cf-monitord 3.21 run at the same time on the same host, each in its own
 * scratch work directory with the same policy (the Masterfiles Policy
 * Framework, as a real host has it), for ten minutes by default: four samples
 * each at 3.21's period of 2.5 minutes. Every few seconds the benchmark reads
 * each daemon's resident memory (all of it, and the anonymous part, which
 * leaves out the pages of the program's own file) and CPU time from /proc.
 *
 * The goal is tend's resident memory at most twice cf-monitord's and its CPU
 * time at most cf-monitord's. A Node process that does nothing is printed
 * beside them: that is the floor under any daemon written for Node. tend is
 * started as a user starts it, through the `tend` command, which gives the
 * monitor daemon V8 flags that trade compiling speed for memory.
 *
 *   node dist/bench/monitord.js [--minutes 10] [--json]
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { TEND } from "./measure.js";
import { MASTERFILES } from "./mpf.js";

const COMPILED_WORKDIR = "/var/lib/cfengine3";
const CF_MONITORD = "/usr/bin/cf-monitord";
const TICKS_PER_SECOND = 100;

interface Usage {
  /** Resident memory, kB. */
  readonly rss: number;
  /** The anonymous part of it (heap, stacks), kB. */
  readonly anon: number;
  /** User + system CPU, ms. */
  readonly cpuMs: number;
}

export interface DaemonUsage {
  readonly name: string;
  readonly samples: number;
  readonly peakRssKb: number;
  readonly meanRssKb: number;
  readonly lastRssKb: number;
  readonly lastAnonKb: number;
  readonly cpuMs: number;
  readonly envDataWrites: number;
}

export interface MonitordResult {
  readonly minutes: number;
  readonly tend: DaemonUsage;
  readonly cf: DaemonUsage | null;
  readonly nodeFloorRssKb: number | null;
  readonly skipped?: string;
}

function usageOf(pid: number): Usage | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0);
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return { rss: kb("VmRSS"), anon: kb("RssAnon"), cpuMs: (ticks * 1000) / TICKS_PER_SECOND };
  } catch {
    return undefined;
  }
}

function scratchHost(root: string, name: string, masterfiles: string): string {
  const dir = join(root, name);
  for (const sub of ["inputs", "state", "ppkeys", "outputs"]) mkdirSync(join(dir, sub), { recursive: true });
  for (const sub of ["", "state", "ppkeys"]) chmodSync(join(dir, sub), 0o700);
  cpSync(masterfiles, join(dir, "inputs"), { recursive: true });
  return dir;
}

class Watched {
  readonly samples: Usage[] = [];
  private writes = 0;
  private lastMtime = 0;
  constructor(
    readonly name: string,
    readonly child: ChildProcess,
    private readonly envData: string,
  ) {}

  sample(): void {
    const pid = this.child.pid;
    if (pid === undefined || this.child.exitCode !== null) return;
    const usage = usageOf(pid);
    if (usage) this.samples.push(usage);
    try {
      const mtime = statSync(this.envData).mtimeMs;
      if (mtime !== this.lastMtime) {
        this.lastMtime = mtime;
        this.writes++;
      }
    } catch {
      // not written yet
    }
  }

  result(): DaemonUsage {
    const rss = this.samples.map((s) => s.rss);
    const last = this.samples.at(-1);
    return {
      name: this.name,
      samples: this.samples.length,
      peakRssKb: Math.max(0, ...rss),
      meanRssKb: rss.length ? Math.round(rss.reduce((a, b) => a + b, 0) / rss.length) : 0,
      lastRssKb: last?.rss ?? 0,
      lastAnonKb: last?.anon ?? 0,
      cpuMs: last?.cpuMs ?? 0,
      envDataWrites: this.writes,
    };
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

/** The resident memory of a Node process that loads nothing and waits. */
async function nodeFloor(): Promise<number | null> {
  const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], { stdio: "ignore" });
  await new Promise((r) => setTimeout(r, 1500));
  const usage = child.pid === undefined ? undefined : usageOf(child.pid);
  await stop(child);
  return usage?.rss ?? null;
}

function whyNoReference(): string | undefined {
  if (!existsSync(CF_MONITORD)) return "cf-monitord is absent (apt-get install cfengine3)";
  if (spawnSync("unshare", ["--version"], { stdio: "ignore" }).status !== 0) return "unshare is absent";
  if (process.getuid?.() !== 0) return "cf-monitord runs in a private mount namespace, which needs root";
  return undefined;
}

export async function runMonitordBenchmark(options: {
  minutes: number;
  masterfiles: string;
  intervalMs?: number;
}): Promise<MonitordResult> {
  const root = mkdtempSync(join(tmpdir(), "tend-bench-monitord-"));
  const why = whyNoReference();
  const children: ChildProcess[] = [];
  try {
    const tendDir = scratchHost(root, "tend", options.masterfiles);
    const tendChild = spawn(TEND, ["monitord", "--no-fork", "-w", tendDir], {
      stdio: "ignore",
      env: { ...process.env, NO_COLOR: "1" },
    });
    children.push(tendChild);
    const watched = [new Watched("tend monitord", tendChild, join(tendDir, "state/env_data"))];
    if (!why) {
      const cfDir = scratchHost(root, "cf", options.masterfiles);
      const cfChild = spawn(
        "unshare",
        ["-m", "sh", "-c", `mount --bind "$0" ${COMPILED_WORKDIR} && exec "$@"`, cfDir, CF_MONITORD, "-F"],
        { stdio: "ignore" },
      );
      children.push(cfChild);
      watched.push(new Watched("cf-monitord 3.21", cfChild, join(cfDir, "state/env_data")));
    }
    const end = Date.now() + options.minutes * 60_000;
    const interval = options.intervalMs ?? 5000;
    while (Date.now() < end) {
      await new Promise((r) => setTimeout(r, Math.min(interval, Math.max(0, end - Date.now()))));
      for (const w of watched) w.sample();
    }
    const [tend, cf] = watched.map((w) => w.result());
    for (const child of children) await stop(child);
    return {
      minutes: options.minutes,
      tend: tend as DaemonUsage,
      cf: cf ?? null,
      nodeFloorRssKb: await nodeFloor(),
      ...(why ? { skipped: why } : {}),
    };
  } finally {
    for (const child of children) await stop(child);
    rmSync(root, { recursive: true, force: true });
  }
}

const mb = (kb: number): string => `${(kb / 1024).toFixed(1)} MB`;
const ratio = (a: number, b: number): string => (b > 0 ? `${(a / b).toFixed(2)}×` : "n/a");

function render(r: MonitordResult): string {
  const lines = [`monitord: ${r.minutes} min of sampling, the Masterfiles Policy Framework as policy`];
  const row = (u: DaemonUsage): string =>
    `  ${u.name.padEnd(18)} RSS peak ${mb(u.peakRssKb).padStart(8)}, mean ${mb(u.meanRssKb).padStart(8)}, ` +
    `last ${mb(u.lastRssKb).padStart(8)} (anonymous ${mb(u.lastAnonKb).padStart(8)}); ` +
    `CPU ${(u.cpuMs / 1000).toFixed(2)} s; env_data written ${u.envDataWrites}×`;
  lines.push(row(r.tend));
  if (r.cf) {
    lines.push(row(r.cf));
    lines.push(
      `  tend/cf-monitord: RSS mean ${ratio(r.tend.meanRssKb, r.cf.meanRssKb)} (goal ≤ 2×), ` +
        `anonymous ${ratio(r.tend.lastAnonKb, r.cf.lastAnonKb)}, CPU ${ratio(r.tend.cpuMs, r.cf.cpuMs)} (goal ≤ 1×)`,
    );
  } else {
    lines.push(`  cf-monitord: skipped, ${r.skipped}`);
  }
  if (r.nodeFloorRssKb !== null)
    lines.push(`  an idle \`node -e\` process: RSS ${mb(r.nodeFloorRssKb)} (the floor of any Node daemon)`);
  return lines.join("\n");
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      minutes: { type: "string" },
      quick: { type: "boolean" },
      masterfiles: { type: "string" },
      json: { type: "boolean" },
    },
  });
  const masterfiles = values.masterfiles ?? MASTERFILES.find((dir) => existsSync(join(dir, "promises.cf")));
  if (!masterfiles) {
    process.stdout.write("monitord benchmark: skipped, no masterfiles (apt-get install cfengine3)\n");
    return;
  }
  const minutes = Number(values.minutes ?? (values.quick ? 3 : 10));
  const result = await runMonitordBenchmark({ minutes, masterfiles });
  process.stdout.write(values.json ? `${JSON.stringify(result, null, 2)}\n` : `${render(result)}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
