/**
 * Benchmarks tend against CFEngine 3.21 on the real Masterfiles Policy
 * Framework, as Debian's cfengine3 installs it, both tools in one run:
 *
 *   node dist/bench/mpf.js [--iterations N] [--masterfiles DIR] [--json]
 *
 * Rows (whole process each: wall time, CPU time and maximum resident memory):
 * - `tend check -f promises.cf` against `cf-promises -f promises.cf`, and the
 *   same on update.cf;
 * - `tend agent -K -f promises.cf` against `cf-agent -K -f promises.cf`, in a
 *   fresh work directory (first run) and again in the same one (second run,
 *   with the state, locks and files the first left), and the same on update.cf;
 * - an empty policy under both agents.
 *
 * Every iteration makes a fresh work directory per tool (CFENGINE_TEST_OVERRIDE_WORKDIR):
 * keys made by cf-key, `bin/cf-promises` (a link; no other CFEngine program, so
 * the MPF cannot start cf-execd, cf-serverd or cf-monitord from it) and a copy
 * of the masterfiles in `masterfiles/`, from which the policy is run. The two
 * tools alternate within an iteration; each row gives medians.
 *
 * How the machine is kept safe. Run as root, the MPF acts on the system:
 * processes promises restart CFEngine's daemons, the update policy writes
 * links and systemd units, the package inventory runs apt, the watchdog can
 * write a cron file. So the whole benchmark re-runs itself inside new mount,
 * PID and network namespaces (`unshare -m -p -f -n --mount-proc`), where it
 * first puts an overlay over each of /etc, /usr, /var, /root, /home, /opt and
 * /srv (their writes land in a tmpfs that disappears with the namespace), a
 * tmpfs over /run (no D-Bus or systemd socket to reach; it holds the overlays' writes), and binds an empty
 * scratch directory over /var/lib/cfengine3 (Debian's work directory). The
 * PID namespace ends every process started in it when the benchmark ends, and
 * the network namespace has no route out. At the end it lists what the runs
 * wrote under the overlays (nothing, on Debian 3.21's MPF), so a change of the
 * MPF that writes outside the work directory shows up instead of passing
 * unseen. Needs root, unshare, overlayfs and /usr/bin/time (for the resident
 * memory); skipped with the reason otherwise.
 */
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { CF_AGENT, median, TEND } from "./measure.js";

const CF_PROMISES = "/usr/bin/cf-promises";
const TIME = "/usr/bin/time";
/** Where Debian's cfengine3 puts the MPF: the package's copy, then the one in the work directory. */
export const MASTERFILES = ["/usr/share/cfengine3/masterfiles", "/var/lib/cfengine3/masterfiles"];
const OVERLAID = ["/etc", "/usr", "/var", "/root", "/home", "/opt", "/srv"];

/** One run of one tool, from wait4's resource usage as /usr/bin/time reports it. */
interface Measured {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly maxRssKb: number;
}

interface Row {
  readonly name: string;
  readonly tend: Measured;
  readonly reference: Measured;
  readonly referenceName: string;
  readonly wallRatio: number;
  readonly cpuRatio: number;
  readonly rssRatio: number;
}

function run(command: string, args: readonly string[]): { status: number | null; stderr: string } {
  const r = spawnSync(command, args, { encoding: "utf8", stdio: ["ignore", "ignore", "pipe"] });
  return { status: r.status, stderr: r.stderr ?? "" };
}

/** Runs a tool once under /usr/bin/time; a failure to run (not an exit status) throws. */
function measure(argv: readonly string[], workdir: string, cwd: string, report: string): Measured {
  const started = performance.now();
  const r = spawnSync(TIME, ["-o", report, "-f", "%e %U %S %M %x", ...argv], {
    cwd,
    env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: workdir, NO_COLOR: "1" },
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  const wallMs = performance.now() - started;
  const fields = readFileSync(report, "utf8").trim().split("\n").at(-1)?.split(" ") ?? [];
  const [, user, system, rss, status] = fields.map(Number);
  if (r.error || user === undefined || system === undefined || rss === undefined)
    throw new Error(`${argv.join(" ")}: ${r.error?.message ?? r.stderr.slice(0, 400)}`);
  // The MPF's runs end in errors here under both tools (no server to update
  // from, no package module interpreter); only a crash would mislead.
  if (status === undefined || status > 1)
    throw new Error(`${argv.join(" ")} exited ${status}: ${r.stderr.slice(0, 400)}`);
  return { wallMs, cpuMs: (user + system) * 1000, maxRssKb: rss };
}

function medianOf(runs: readonly Measured[]): Measured {
  return {
    wallMs: median(runs.map((r) => r.wallMs)),
    cpuMs: median(runs.map((r) => r.cpuMs)),
    maxRssKb: median(runs.map((r) => r.maxRssKb)),
  };
}

/** A fresh work directory as the benchmark's header says; `forCf` adds keys made by cf-key. */
function freshWorkdir(scratch: string, label: string, masterfiles: string, template: string): string {
  const dir = mkdtempSync(join(scratch, `${label}-`));
  cpSync(template, dir, { recursive: true, verbatimSymlinks: true });
  cpSync(masterfiles, join(dir, "masterfiles"), { recursive: true, verbatimSymlinks: true });
  return dir;
}

function makeTemplate(scratch: string): string {
  const dir = join(scratch, "template");
  mkdirSync(join(dir, "bin"), { recursive: true });
  symlinkSync(CF_PROMISES, join(dir, "bin", "cf-promises"));
  const keys = spawnSync("cf-key", [], {
    env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: dir },
    stdio: "ignore",
  });
  if (keys.status !== 0) throw new Error("cf-key failed");
  return dir;
}

type Tool = "tend" | "cf";

function benchmark(masterfiles: string, iterations: number): Row[] {
  const scratch = mkdtempSync(join(tmpdir(), "tend-bench-mpf-"));
  try {
    const template = makeTemplate(scratch);
    const report = join(scratch, "time.out");
    const empty = join(scratch, "empty.cf");
    writeFileSync(empty, "bundle agent main { }\n");
    const samples = new Map<string, { tend: Measured[]; cf: Measured[] }>();
    const names: string[] = [];
    const record = (name: string, tool: Tool, m: Measured) => {
      let s = samples.get(name);
      if (!s) {
        s = { tend: [], cf: [] };
        samples.set(name, s);
        names.push(name);
      }
      s[tool].push(m);
    };
    const check = (tool: Tool, policy: string) =>
      tool === "tend" ? [TEND, "check", "-f", policy] : [CF_PROMISES, "-f", policy];
    const agent = (tool: Tool, policy: string) =>
      tool === "tend" ? [TEND, "agent", "-K", "-f", policy] : [CF_AGENT, "-K", "-f", policy];
    // One untimed round first: page cache, tend's code cache.
    for (let i = -1; i < iterations; i++) {
      const keep = i >= 0;
      // Alternate which tool goes first, so that neither always follows the other.
      const order: Tool[] = i % 2 === 0 ? ["tend", "cf"] : ["cf", "tend"];
      for (const tool of order) {
        const w = freshWorkdir(scratch, `${tool}-check`, masterfiles, template);
        const mf = join(w, "masterfiles");
        for (const file of ["promises.cf", "update.cf"]) {
          const m = measure(check(tool, join(mf, file)), w, mf, report);
          if (keep) record(`check ${file}`, tool, m);
        }
        rmSync(w, { recursive: true, force: true });
      }
      for (const file of ["promises.cf", "update.cf"]) {
        for (const tool of order) {
          const w = freshWorkdir(scratch, `${tool}-agent`, masterfiles, template);
          const mf = join(w, "masterfiles");
          const first = measure(agent(tool, join(mf, file)), w, mf, report);
          const second = measure(agent(tool, join(mf, file)), w, mf, report);
          if (keep) {
            record(`agent -K ${file}, first run`, tool, first);
            record(`agent -K ${file}, second run`, tool, second);
          }
          rmSync(w, { recursive: true, force: true });
        }
      }
      for (const tool of order) {
        const w = freshWorkdir(scratch, `${tool}-empty`, masterfiles, template);
        const m = measure(agent(tool, empty), w, scratch, report);
        if (keep) record("agent -K empty policy", tool, m);
        rmSync(w, { recursive: true, force: true });
      }
    }
    return names.map((name) => {
      const s = samples.get(name) as { tend: Measured[]; cf: Measured[] };
      const tend = medianOf(s.tend);
      const reference = medianOf(s.cf);
      return {
        name,
        tend,
        reference,
        referenceName: name.startsWith("check") ? "cf-promises" : "cf-agent",
        wallRatio: tend.wallMs / reference.wallMs,
        cpuRatio: tend.cpuMs / reference.cpuMs,
        rssRatio: tend.maxRssKb / reference.maxRssKb,
      };
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Why the benchmark cannot run here, or undefined. */
function missing(): string | undefined {
  if (process.platform !== "linux") return "needs Linux namespaces";
  if (process.getuid?.() !== 0)
    return "needs root (for the namespaces and overlays that keep the machine safe)";
  for (const tool of [CF_AGENT, CF_PROMISES, "/usr/bin/cf-key", TIME, "/usr/bin/unshare", "/usr/bin/mount"])
    if (!existsSync(tool)) return `${tool} is not installed`;
  return undefined;
}

/** Inside the namespaces: overlays and binds as the header says; returns the upper directories. */
function sandbox(): Map<string, string> {
  const upper = new Map<string, string>();
  const mount = (...args: string[]) => {
    const r = run("/usr/bin/mount", args);
    if (r.status !== 0) throw new Error(`mount ${args.join(" ")}: ${r.stderr.trim()}`);
  };
  mount("--make-rprivate", "/");
  // The overlays' upper directories live in this tmpfs, seen only in the namespace.
  mount("-t", "tmpfs", "tmpfs", "/run");
  const base = "/run/tend-bench-mpf";
  for (const dir of OVERLAID) {
    if (!existsSync(dir)) continue;
    const u = join(base, dir.slice(1), "upper");
    const w = join(base, dir.slice(1), "work");
    mkdirSync(u, { recursive: true });
    mkdirSync(w, { recursive: true });
    mount("-t", "overlay", "overlay", "-o", `lowerdir=${dir},upperdir=${u},workdir=${w}`, dir);
    upper.set(dir, u);
  }
  const workdir = join(base, "cfengine3");
  mkdirSync(workdir);
  if (existsSync("/var/lib/cfengine3")) mount("--bind", workdir, "/var/lib/cfengine3");
  return upper;
}

/** What the runs wrote under the overlays: files and directories, by their real path. */
function written(upper: Map<string, string>): string[] {
  const out: string[] = [];
  const walk = (root: string, dir: string, at: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      out.push(join(at, relative(root, path)));
      if (entry.isDirectory()) walk(root, path, at);
    }
  };
  for (const [dir, u] of upper) walk(u, u, dir);
  return out;
}

function describe(m: Measured): string {
  return `${m.wallMs.toFixed(0)} ms (CPU ${m.cpuMs.toFixed(0)} ms, ${(m.maxRssKb / 1024).toFixed(0)} MB)`;
}

function inside(iterations: number, masterfiles: string, json: boolean): void {
  // Copied first: the bind over /var/lib/cfengine3 would hide the one there.
  const copy = mkdtempSync(join(tmpdir(), "tend-bench-mpf-masterfiles-"));
  let rows: Row[];
  let changed: string[];
  try {
    cpSync(masterfiles, copy, { recursive: true, verbatimSymlinks: true });
    const upper = sandbox();
    rows = benchmark(copy, iterations);
    changed = written(upper);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ masterfiles, iterations, rows, writtenOutside: changed }, null, 2)}\n`,
    );
    return;
  }
  process.stdout.write(
    `MPF ${masterfiles}, medians of ${iterations} alternated runs (wall, CPU user+sys, max RSS):\n`,
  );
  for (const r of rows) {
    process.stdout.write(
      `${r.name}: tend ${describe(r.tend)}, ${r.referenceName} ${describe(r.reference)}; ` +
        `ratio wall ${r.wallRatio.toFixed(2)}×, CPU ${r.cpuRatio.toFixed(2)}×, RSS ${r.rssRatio.toFixed(2)}×\n`,
    );
  }
  if (changed.length > 0)
    process.stdout.write(
      `warning: the runs wrote outside their work directories (kept away from the machine by the overlays):\n  ${changed.join("\n  ")}\n`,
    );
}

function main(): void {
  const { values } = parseArgs({
    options: {
      iterations: { type: "string" },
      masterfiles: { type: "string" },
      json: { type: "boolean" },
      inside: { type: "boolean" },
    },
  });
  const iterations = Number(values.iterations ?? 5);
  const masterfiles = values.masterfiles ?? MASTERFILES.find((dir) => existsSync(join(dir, "promises.cf")));
  const why = masterfiles === undefined ? "no masterfiles found (apt-get install cfengine3)" : missing();
  if (why !== undefined || masterfiles === undefined) {
    process.stdout.write(`MPF benchmark skipped: ${why}\n`);
    return;
  }
  if (values.inside) {
    inside(iterations, masterfiles, values.json === true);
    return;
  }
  const script = fileURLToPath(import.meta.url);
  const argv = [
    process.execPath,
    script,
    "--inside",
    "--iterations",
    String(iterations),
    "--masterfiles",
    masterfiles,
  ];
  if (values.json) argv.push("--json");
  const r = spawnSync("/usr/bin/unshare", ["-m", "-p", "-f", "-n", "--mount-proc", ...argv], {
    stdio: "inherit",
  });
  if (r.status !== 0) process.exitCode = r.status ?? 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
