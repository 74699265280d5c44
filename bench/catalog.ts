/**
 * Benchmarks `tend puppet apply --catalog` beside Puppet 7 and cf-agent on
 * one desired state, all in one run:
 *
 *   node dist/bench/catalog.js [--sizes 1000,10000] [--quick] [--iterations N]
 *     [--puppet-iterations N] [--no-puppet-manifest] [--fs ext4|root]
 *     [--node PATH]... [--json]
 *
 * Where: by default every tool runs on a scratch, journaled ext4 made for
 * the run (a sparse image, loop-mounted in a private mount namespace: see
 * scratch-fs.ts), since this machine's root file system has no journal and
 * there the cost of creating a file depends on what was deleted in the last
 * minutes. `--fs root` runs on the file system of the temporary directory,
 * as before; so does a run that cannot mount (not root, no unshare, no loop
 * device), saying why. The output names the file system of every table.
 * `--node PATH` times tend under that Node too, as extra rows.
 *
 * The desired state: N files under a temporary directory, each a regular
 * file with one line of content and mode 0644. It is written as
 * - a Puppet manifest of N `file` resources (ensure => file, content, mode),
 *   compiled once with `puppet catalog compile` into a catalog (JSON);
 * - `tend puppet apply --catalog` on that catalog;
 * - `puppet apply --catalog` on the same catalog, and `puppet apply` of the
 *   manifest (compiling it again on every run, as a user does);
 * - `cf-agent -K` on a policy of N files promises: `create => "true"`,
 *   `content => "..."` (3.21's attribute for a file's whole content, the
 *   closest to Puppet's `content`; no edit_line bundle or template) and a
 *   perms body with mode 0644: the policy of bench/files.ts.
 * Every tool runs twice on the same tree: first run (the directory is empty,
 * every file is created) and steady state (everything already converged,
 * nothing changes). After each run the tree is checked (every file's
 * content and mode), so a tool that did not do the work cannot look fast.
 * Each first run gets a new empty directory and no tree is deleted until
 * the end (see FreshTrees in measure.ts: deleting the previous tree made
 * the next first run slower, by how much depending on the kernel), and
 * every timed run starts after `sync`. tend and cf-agent each run once on a
 * tree before the timing (a first and a steady run, untimed).
 *
 * Puppet runs in a scratch confdir (vardir, reports, state, ssl all inside
 * the temporary directory) with fixed facts (`--facts_terminus json`): it
 * never reads the machine's facts nor writes /var/lib/puppet. tend gets its
 * own scratch confdir. cf-agent runs with its own work directory
 * (CFENGINE_TEST_OVERRIDE_WORKDIR), as bench/files.ts runs it.
 *
 * Puppet's 10,000-file runs take tens of seconds each: `--quick` measures
 * 1,000 files only; `--puppet-iterations 0` times tend and cf-agent alone
 * (Puppet still compiles the catalog tend applies). The tools alternate within an iteration so a busy
 * moment of the machine hits all of them; rows give medians of wall time
 * and of CPU time (user + system of the process and its children, from
 * /proc: steadier on a shared machine). Tools that are absent are skipped
 * with the reason.
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { filesPolicy } from "./files.js";
import {
  type BenchAgent,
  benchAgent,
  CF_AGENT,
  childCpuMs,
  creationFloor,
  FreshTrees,
  median,
  settle,
  TEND,
} from "./measure.js";
import {
  describeFileSystem,
  MOUNT_FAILED,
  mountScratch,
  runInScratchExt4,
  scratchExt4Unavailable,
  unmountScratch,
} from "./scratch-fs.js";

const PUPPET = "puppet";
const NODE_NAME = "bench.example.com";

/** "tend", "tend (node v22.…)" for a `--node`, or a reference tool. */
export type Tool = string;
export type Phase = "first run" | "steady state";

export interface ToolTiming {
  readonly tool: Tool;
  readonly runs: number;
  /** Median wall time of a run. */
  readonly wallMs: number;
  /** Median CPU time (user + system) of a run, where /proc tells it. */
  readonly cpuMs: number | null;
}

export interface CatalogRow {
  readonly files: number;
  readonly phase: Phase;
  readonly timings: readonly ToolTiming[];
  /** tend over the other tool, by wall time and by CPU time. */
  readonly ratios: readonly {
    readonly tend: Tool;
    readonly against: Tool;
    readonly wall: number;
    readonly cpu: number | null;
  }[];
}

export interface CatalogResult {
  readonly rows: readonly CatalogRow[];
  /** `puppet catalog compile` of each size (wall and CPU, ms). */
  readonly compile: readonly {
    readonly files: number;
    readonly wallMs: number;
    readonly cpuMs: number | null;
  }[];
  /**
   * Creating the same files with bare open/write/close calls, in a fresh
   * directory beside each iteration's first runs: the kernel's part of a
   * first run (medians, ms).
   */
  readonly floor: readonly { readonly files: number; readonly wallMs: number; readonly cpuMs: number }[];
  readonly skipped: readonly string[];
  /** What the trees were on: type, device, journal (see scratch-fs.ts). */
  readonly fileSystem: string;
}

/** The goals of issue 13, tend over each tool. */
const GOALS: Partial<Record<Tool, number>> = {
  "puppet apply --catalog": 0.05,
  "puppet apply manifest": 0.05,
  "cf-agent": 0.5,
};

function fileContent(i: number): string {
  return `file ${i}\n`;
}

/** N `file` resources: a regular file with one line of content, mode 0644. */
export function fileManifest(dir: string, count: number): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++)
    lines.push(`file { '${dir}/f${i}': ensure => file, content => "file ${i}\\n", mode => '0644' }`);
  return `${lines.join("\n")}\n`;
}

/**
 * A scratch Puppet configuration under `root`: every directory Puppet
 * writes (vardir, logs, reports, ssl, the facts it reads) inside it.
 */
function scratchConfdir(root: string): string {
  const confdir = join(root, "etc");
  mkdirSync(confdir, { recursive: true });
  mkdirSync(join(root, "code", "environments", "production", "manifests"), { recursive: true });
  writeFileSync(
    join(confdir, "puppet.conf"),
    [
      "[main]",
      `vardir = ${root}/var`,
      `codedir = ${root}/code`,
      `logdir = ${root}/var/log`,
      `rundir = ${root}/var/run`,
      `publicdir = ${root}/var/public`,
      `ssldir = ${root}/etc/ssl`,
      `cadir = ${root}/etc/ca`,
      `vendormoduledir = ${root}/vendor_modules`,
      "basemodulepath = $codedir/modules:/usr/share/puppet/modules",
      "report = true",
      "reports = store",
      "",
    ].join("\n"),
  );
  // Fixed facts: facter never reads the machine.
  const facts = {
    name: NODE_NAME,
    values: {
      clientcert: NODE_NAME,
      fqdn: NODE_NAME,
      hostname: "bench",
      domain: "example.com",
      kernel: "Linux",
      osfamily: "Debian",
      os: { name: "Debian", family: "Debian", release: { full: "12.7", major: "12", minor: "7" } },
      networking: { fqdn: NODE_NAME, hostname: "bench", domain: "example.com", ip: "192.0.2.10" },
      identity: { user: "root", uid: 0, gid: 0, group: "root", privileged: true },
      path: "/usr/sbin:/usr/bin:/sbin:/bin",
    },
    timestamp: "2024-01-01T00:00:00+00:00",
    expiration: "2099-01-01T00:00:00+00:00",
  };
  for (const side of ["server_data", "client_data"]) {
    const dir = join(root, "var", side, "facts");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${NODE_NAME}.json`), JSON.stringify(facts));
  }
  return confdir;
}

function puppetArgs(confdir: string): string[] {
  return ["--confdir", confdir, "--facts_terminus", "json", "--certname", NODE_NAME, "--color", "false"];
}

interface Command {
  readonly tool: Tool;
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
}

interface Timed {
  readonly wall: number;
  readonly cpu: number | null;
}

/** One timed run; a failed run (exit status, or an error logged) throws. */
function timeCommand(c: Command): Timed {
  const cpuBefore = childCpuMs();
  const started = performance.now();
  const result = spawnSync(c.command, c.args, {
    env: { ...process.env, NO_COLOR: "1", ...c.env },
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024,
  });
  const wall = performance.now() - started;
  const cpuAfter = childCpuMs();
  const errorLine = /^(Error|error):/m.exec(`${result.stdout}\n${result.stderr}`);
  if (result.status !== 0 || errorLine)
    throw new Error(`${c.tool} exited ${result.status}: ${(result.stderr || result.stdout).slice(0, 600)}`);
  return { wall, cpu: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore };
}

/** Throws unless `dir` holds exactly the N files, each with its content and mode 0644. */
function verifyTree(dir: string, count: number, tool: Tool): void {
  const names = readdirSync(dir);
  if (names.length !== count) throw new Error(`${tool}: ${names.length} files in ${dir}, expected ${count}`);
  for (let i = 0; i < count; i++) {
    const path = join(dir, `f${i}`);
    const st = statSync(path);
    if (!st.isFile() || (st.mode & 0o7777) !== 0o644 || readFileSync(path, "utf8") !== fileContent(i))
      throw new Error(`${tool}: ${path} is not as desired (mode ${(st.mode & 0o7777).toString(8)})`);
  }
}

/** Why `tend puppet apply` cannot run here, or null when it can. */
function tendPuppetMissing(): string | null {
  const r = spawnSync(TEND, ["puppet", "apply", "--help"], { encoding: "utf8" });
  return r.status === 0
    ? null
    : `tend puppet apply is not available (${(r.stderr || r.stdout).trim().split("\n")[0]})`;
}

function puppetMissing(): string | null {
  const r = spawnSync(PUPPET, ["--version"], { encoding: "utf8" });
  return r.status === 0 ? null : "puppet is not installed (apt-get install puppet)";
}

function summarize(tool: Tool, runs: readonly Timed[]): ToolTiming {
  const cpus = runs.map((r) => r.cpu);
  return {
    tool,
    runs: runs.length,
    wallMs: median(runs.map((r) => r.wall)),
    cpuMs: cpus.every((c) => c !== null) ? median(cpus as number[]) : null,
  };
}

export interface CatalogOptions {
  readonly iterations: number;
  readonly puppetIterations: number;
  readonly puppetManifest: boolean;
  /**
   * The temporary directory goes away whole afterwards (a scratch file
   * system): the trees are left in it rather than deleted one by one.
   */
  readonly discardTemporaries?: boolean;
  /** Other Nodes to time tend under, as extra rows beside the one on PATH. */
  readonly nodes?: readonly { readonly path: string; readonly version: string }[];
}

function isTend(tool: Tool): boolean {
  return tool === "tend" || tool.startsWith("tend (");
}

/** Both phases for N files, every tool that is present. */
export function compareCatalog(
  count: number,
  options: CatalogOptions,
  skipped: string[],
  shared?: FreshTrees,
): {
  rows: CatalogRow[];
  compile: CatalogResult["compile"][number] | null;
  floor: CatalogResult["floor"][number] | null;
} {
  const trees = shared ?? new FreshTrees("catalog");
  const root = mkdtempSync(join(tmpdir(), "tend-bench-catalog-"));
  const target = join(root, "files");
  const agents: BenchAgent[] = [];
  try {
    const tools: { command: Command; iterations: number; first: Timed[]; steady: Timed[] }[] = [];
    let compile: CatalogResult["compile"][number] | null = null;
    const noPuppet = puppetMissing();
    const noTend = tendPuppetMissing();
    const catalog = join(root, "catalog.json");
    if (noPuppet) skipped.push(noPuppet);
    else {
      const puppetRoot = join(root, "puppet");
      const confdir = scratchConfdir(puppetRoot);
      const manifest = join(puppetRoot, "code", "environments", "production", "manifests", "site.pp");
      writeFileSync(manifest, fileManifest(target, count));
      const cpuBefore = childCpuMs();
      const started = performance.now();
      const compiled = spawnSync(
        PUPPET,
        [
          "catalog",
          "compile",
          NODE_NAME,
          "--confdir",
          confdir,
          "--facts_terminus",
          "json",
          "--render-as",
          "json",
          "--log_level",
          "err",
        ],
        { encoding: "utf8", maxBuffer: 512 * 1024 * 1024 },
      );
      const cpuAfter = childCpuMs();
      if (compiled.status !== 0)
        throw new Error(`puppet catalog compile failed: ${compiled.stderr.slice(0, 600)}`);
      writeFileSync(catalog, compiled.stdout);
      compile = {
        files: count,
        wallMs: performance.now() - started,
        cpuMs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
      };
      if (noTend) skipped.push(noTend);
      else {
        const tendConf = scratchConfdir(join(root, "tend"));
        const args = ["puppet", "apply", "--confdir", tendConf, "--catalog", catalog];
        tools.push({
          command: { tool: "tend", command: TEND, args },
          iterations: options.iterations,
          first: [],
          steady: [],
        });
        // The same runs under other Nodes: bin/tend runs the node first on PATH.
        for (const node of options.nodes ?? [])
          tools.push({
            command: {
              tool: `tend (node ${node.version})`,
              command: TEND,
              args,
              env: { PATH: `${dirname(node.path)}${delimiter}${process.env.PATH ?? ""}` },
            },
            iterations: options.iterations,
            first: [],
            steady: [],
          });
      }
      tools.push({
        command: {
          tool: "puppet apply --catalog",
          command: PUPPET,
          args: ["apply", ...puppetArgs(confdir), "--catalog", catalog],
        },
        iterations: options.puppetIterations,
        first: [],
        steady: [],
      });
      if (options.puppetManifest)
        tools.push({
          command: {
            tool: "puppet apply manifest",
            command: PUPPET,
            args: ["apply", ...puppetArgs(confdir), manifest],
          },
          iterations: options.puppetIterations,
          first: [],
          steady: [],
        });
    }
    if (!existsSync(CF_AGENT)) skipped.push("cf-agent is not installed (apt-get install cfengine3)");
    else {
      const policy = join(root, "files.cf");
      writeFileSync(policy, filesPolicy(target, count));
      const agent = benchAgent("catalog", "cf-agent", policy);
      agents.push(agent);
      tools.push({
        command: {
          tool: "cf-agent",
          command: agent.command,
          args: agent.args,
          env: { CFENGINE_TEST_OVERRIDE_WORKDIR: agent.workdir },
        },
        iterations: options.iterations,
        first: [],
        steady: [],
      });
    }
    // `--puppet-iterations 0`: Puppet compiles the catalog but its runs are not timed.
    for (let i = tools.length - 1; i >= 0; i--) if ((tools[i]?.iterations ?? 0) < 1) tools.splice(i, 1);
    const rounds = Math.max(...tools.map((t) => t.iterations), 0);
    // A first run and a steady run of tend and cf-agent, untimed (Puppet's
    // take tens of seconds): tend's code cache is made over its first runs
    // (bin/tend.js), and both then find what they load in the page cache,
    // as on a machine that runs them regularly.
    for (const t of tools) {
      if (!isTend(t.command.tool) && t.command.tool !== "cf-agent") continue;
      trees.renew(target);
      try {
        timeCommand(t.command);
        timeCommand(t.command);
      } catch {
        // Timed below, where a failure is reported.
      }
    }
    const failed = new Set<Tool>();
    const floors: { wallMs: number; cpuMs: number }[] = [];
    for (let i = 0; i < rounds; i++) {
      trees.renew(target);
      floors.push(creationFloor(target, count));
      for (const t of i % 2 === 0 ? tools : [...tools].reverse()) {
        if (i >= t.iterations || failed.has(t.command.tool)) continue;
        trees.renew(target);
        try {
          t.first.push(timeCommand(t.command));
          verifyTree(target, count, t.command.tool);
          settle();
          t.steady.push(timeCommand(t.command));
          verifyTree(target, count, t.command.tool);
        } catch (error) {
          // A tool that fails is left out, with the reason, rather than timed.
          failed.add(t.command.tool);
          skipped.push(`${count} files: ${(error as Error).message.trim()}`);
        }
      }
    }
    const measured = tools.filter((t) => !failed.has(t.command.tool));
    const rows = (["first run", "steady state"] as const).map((phase): CatalogRow => {
      const timings = measured.map((t) =>
        summarize(t.command.tool, phase === "first run" ? t.first : t.steady),
      );
      const ratios = timings
        .filter((t) => isTend(t.tool))
        .flatMap((tend) =>
          timings
            .filter((t) => !isTend(t.tool))
            .map((t) => ({
              tend: tend.tool,
              against: t.tool,
              wall: tend.wallMs / t.wallMs,
              cpu: tend.cpuMs !== null && t.cpuMs ? tend.cpuMs / t.cpuMs : null,
            })),
        );
      return { files: count, phase, timings, ratios };
    });
    const floor =
      floors.length === 0
        ? null
        : {
            files: count,
            wallMs: median(floors.map((f) => f.wallMs)),
            cpuMs: median(floors.map((f) => f.cpuMs)),
          };
    return { rows, compile, floor };
  } finally {
    // The tree goes with the others, deleted once every size is timed.
    if (!options.discardTemporaries) {
      if (shared && existsSync(target)) shared.renew(target);
      rmSync(root, { recursive: true, force: true });
      if (!shared) trees.dispose();
      for (const a of agents) rmSync(a.workdir, { recursive: true, force: true });
    }
  }
}

export function runCatalogBenchmarks(sizes: readonly number[], options: CatalogOptions): CatalogResult {
  const skipped: string[] = [];
  const rows: CatalogRow[] = [];
  const compile: CatalogResult["compile"][number][] = [];
  const floor: CatalogResult["floor"][number][] = [];
  const trees = new FreshTrees("catalog");
  try {
    for (const n of sizes) {
      const big = n >= 10000;
      const r = compareCatalog(
        n,
        {
          ...options,
          // tend and cf-agent as many times at every size: one first run of 10,000
          // files told little, its time depending on the kernel's state.
          iterations: options.iterations,
          puppetIterations: big ? Math.min(1, options.puppetIterations) : options.puppetIterations,
        },
        skipped,
        trees,
      );
      rows.push(...r.rows);
      if (r.compile) compile.push(r.compile);
      if (r.floor) floor.push(r.floor);
    }
  } finally {
    if (!options.discardTemporaries) trees.dispose();
  }
  return { rows, compile, floor, skipped: [...new Set(skipped)], fileSystem: describeFileSystem(tmpdir()) };
}

function ms(value: number | null): string {
  return value === null ? "?" : value.toFixed(0);
}

/** A `--node PATH` that runs, with its version; throws when it does not. */
function nodeAt(path: string): { path: string; version: string } {
  const r = spawnSync(path, ["--version"], { encoding: "utf8" });
  if (r.status !== 0)
    throw new Error(`--node ${path}: it does not run (${r.error?.message ?? r.stderr.trim()})`);
  return { path, version: r.stdout.trim() };
}

/** Inodes and bytes a scratch file system needs for every tree the benchmark leaves until its end. */
function scratchSize(sizes: readonly number[], options: CatalogOptions): { inodes: number; bytes: number } {
  const tends = 1 + (options.nodes?.length ?? 0);
  // Per size: a tree per timed first run and per untimed warm-up (tend's,
  // cf-agent's), per floor, per Puppet run, with room to spare.
  const trees = (options.iterations + 1) * (tends + 2) + 2 * options.puppetIterations + 4;
  const files = sizes.reduce((sum, n) => sum + n * trees, 0);
  const inodes = files + 200_000;
  // A one-line file takes a 4 kB block; Puppet's reports and state take more.
  const bytes = Math.max(4 * 2 ** 30, Math.ceil((files * 8192 + 2 ** 30) / 2 ** 20) * 2 ** 20);
  return { inodes, bytes };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: "string" },
      quick: { type: "boolean" },
      iterations: { type: "string" },
      "puppet-iterations": { type: "string" },
      "no-puppet-manifest": { type: "boolean" },
      json: { type: "boolean" },
      fs: { type: "string", default: "ext4" },
      node: { type: "string", multiple: true },
      "scratch-image": { type: "string" },
    },
  });
  const sizes = (values.sizes ?? (values.quick ? "1000" : "1000,10000")).split(",").map(Number);
  if (values.fs !== "ext4" && values.fs !== "root") {
    process.stderr.write(`catalog benchmarks: --fs ${values.fs}: expected ext4 or root\n`);
    process.exitCode = 2;
    return;
  }
  let options: CatalogOptions = {
    iterations: Number(values.iterations ?? 3),
    puppetIterations: Number(values["puppet-iterations"] ?? 1),
    puppetManifest: !values["no-puppet-manifest"],
    nodes: (values.node ?? []).map(nodeAt),
  };
  const notes: string[] = [];
  let mountpoint: string | undefined;
  if (values["scratch-image"] !== undefined) {
    // The inner run, in its own mount namespace (see scratch-fs.ts).
    const mounted = mountScratch(values["scratch-image"]);
    if ("reason" in mounted) {
      process.stderr.write(`catalog benchmarks: ${mounted.reason}\n`);
      process.exitCode = MOUNT_FAILED;
      return;
    }
    mountpoint = mounted.mountpoint;
    options = { ...options, discardTemporaries: true };
  } else if (values.fs === "ext4") {
    const why = scratchExt4Unavailable();
    if (why === null) {
      const script = fileURLToPath(import.meta.url);
      const { inodes, bytes } = scratchSize(sizes, options);
      const run = await runInScratchExt4(script, process.argv.slice(2), bytes, inodes);
      if (run.status !== null && run.status !== MOUNT_FAILED) {
        process.exitCode = run.status;
        return;
      }
      notes.push(
        `not on a scratch ext4 (${run.reason ?? "the image could not be mounted"}): on the file system of ${tmpdir()} instead`,
      );
    } else notes.push(`not on a scratch ext4 (${why}): on the file system of ${tmpdir()} instead`);
  }
  let result: CatalogResult;
  try {
    result = runCatalogBenchmarks(sizes, options);
  } finally {
    if (mountpoint !== undefined) unmountScratch(mountpoint);
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ ...result, notes }, null, 2)}\n`);
    return;
  }
  for (const note of notes) process.stdout.write(`catalog benchmarks: ${note}\n`);
  process.stdout.write(
    `catalog benchmarks: every tool ran on ${result.fileSystem}${mountpoint === undefined ? "" : " (a scratch image, loop-mounted in a private mount namespace)"}\n`,
  );
  for (const reason of result.skipped) process.stdout.write(`catalog benchmarks: skipped ${reason}\n`);
  for (const c of result.compile)
    process.stdout.write(
      `catalog, ${c.files} files: puppet catalog compile ${ms(c.wallMs)} ms (CPU ${ms(c.cpuMs)} ms), not in the rows below\n`,
    );
  for (const f of result.floor)
    process.stdout.write(
      `catalog, ${f.files} files: creating them with bare open/write/close takes ${ms(f.wallMs)} ms (CPU ${ms(f.cpuMs)} ms), the kernel's part of a first run\n`,
    );
  for (const r of result.rows) {
    const times = r.timings.map((t) => `${t.tool} ${ms(t.wallMs)} ms (CPU ${ms(t.cpuMs)})`).join(", ");
    process.stdout.write(`catalog, ${r.files} files, ${r.phase}, on ${result.fileSystem}: ${times}\n`);
    for (const q of r.ratios) {
      const goal = GOALS[q.against];
      process.stdout.write(
        `  ${q.tend} / ${q.against}: ${q.wall.toFixed(3)}× wall, ${q.cpu === null ? "?" : q.cpu.toFixed(3)}× CPU${goal === undefined ? "" : ` (goal ≤ ${goal}×)`}\n`,
      );
    }
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1])
  main().catch((error: unknown) => {
    process.stderr.write(`catalog benchmarks: ${(error as Error).message}\n`);
    process.exitCode = 1;
  });
