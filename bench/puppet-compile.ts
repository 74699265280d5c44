/**
 * Benchmarks `tend puppet catalog compile` beside Puppet 7.23's `puppet
 * catalog compile`, in one run:
 *
 *   node dist/bench/puppet-compile.js [--iterations N] [--only NAME,...] [--node PATH,...] [--json]
 *
 * Cases: each test node of the modules (test/fixtures/puppet-compile:
 * ntp, motd, concat, sudo with stdlib, on Debian 12 facts) and a generated
 * environment of 10,000 resources in 100 classes (file resources with
 * content, mode and a `require` on the class's first file; one node
 * including every class). Both tools run as a user runs them: one process
 * per compile, `… catalog compile NODE --confdir C --facts_terminus json
 * --environment E --render-as json --log_level err`, in the same scratch
 * confdir. Rows give medians of wall time and of CPU time (the process and
 * its children, from /proc), the ratios tend/Puppet, whether the two
 * catalogs are the same once normalised, and tend's own compile time in
 * this process (src/puppet/env's compileNodeCatalog: no Node start-up), cold
 * and warm, as CPU time (what a busy machine disturbs least) and wall time. Goals (issue 16): ≤ 0.05× Puppet's wall time; the ntp node in
 * under 50 ms of tend's own time. A case tend cannot compile yet prints
 * "tend fails" with its message; Puppet's rows are skipped with the reason
 * when Puppet is absent. `--node PATH` (repeatable, or a comma list) times
 * tend under other Node binaries too, as `tend` runs when that `node` is
 * first on PATH: one more row each, beside the same Puppet time. Each row
 * names the Node version tend ran on.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { compareCatalogs, formatDifference } from "../src/puppet/catalog-compare.js";
import { childCpuMs, median, TEND } from "./measure.js";

const FIXTURES = fileURLToPath(new URL("../../test/fixtures/puppet-compile/", import.meta.url)).replace(
  /\/$/,
  "",
);

interface Case {
  readonly name: string;
  readonly environment: string;
  readonly node: string;
  readonly confdir: string;
}

interface Timed {
  readonly wall: number;
  readonly cpu: number | null;
  readonly ok: boolean;
  readonly stdout: string;
  readonly message: string;
}

/** A Node binary tend is timed under: its path (undefined: the `node` on PATH) and version. */
export interface NodeBinary {
  readonly path: string | undefined;
  readonly version: string;
}

type TendTimes = { readonly wallMs: number; readonly cpuMs: number | null } | { readonly fails: string };

export interface CompileRow {
  readonly name: string;
  readonly resources: number | null;
  /** Under the `node` on PATH (`node` says which). */
  readonly node: string;
  readonly tend: TendTimes;
  /** Under the other Node binaries asked for (`--node`), in order. */
  readonly otherNodes: readonly {
    readonly node: string;
    readonly tend: TendTimes;
    readonly ratio: { readonly wall: number; readonly cpu: number | null } | null;
  }[];
  readonly puppet:
    | { readonly wallMs: number; readonly cpuMs: number | null }
    | { readonly fails: string }
    | null;
  readonly ratio: { readonly wall: number; readonly cpu: number | null } | null;
  /** tend's compile in this process (CPU ms, and wall ms): the first, and the median of the rest. */
  readonly inProcess:
    | {
        readonly coldMs: number;
        readonly warmMs: number;
        readonly coldWallMs: number;
        readonly warmWallMs: number;
      }
    | { readonly fails: string };
  /** The catalogs compared once normalised: "same", the first difference, or null when one failed. */
  readonly sameCatalog: string | null;
}

/** A scratch confdir whose code directory is `codedir` (environments/, modules/), with fact files. */
function scratchConfdir(root: string, codedir: string, facts: Record<string, string>): string {
  const confdir = join(root, "etc");
  const factsDir = join(root, "var", "server_data", "facts");
  mkdirSync(confdir, { recursive: true });
  mkdirSync(factsDir, { recursive: true });
  for (const [node, text] of Object.entries(facts)) writeFileSync(join(factsDir, `${node}.json`), text);
  writeFileSync(
    join(confdir, "puppet.conf"),
    [
      "[main]",
      `vardir = ${root}/var`,
      `codedir = ${codedir}`,
      "environmentpath = $codedir/environments",
      "basemodulepath = $codedir/modules",
      `logdir = ${root}/var/log`,
      `rundir = ${root}/var/run`,
      `publicdir = ${root}/var/public`,
      `ssldir = ${root}/etc/ssl`,
      `vendormoduledir = ${root}/vendor_modules`,
      `cadir = ${root}/etc/ca`,
      "",
    ].join("\n"),
  );
  return confdir;
}

/** The generated environment: `classes` classes of `per` file resources each, one node including them all. */
export function generateEnvironment(codedir: string, classes: number, per: number): void {
  const manifests = join(codedir, "modules", "gen", "manifests");
  mkdirSync(manifests, { recursive: true });
  mkdirSync(join(codedir, "environments", "generated", "manifests"), { recursive: true });
  const names: string[] = [];
  for (let c = 0; c < classes; c++) {
    const name = `c${String(c).padStart(3, "0")}`;
    names.push(`gen::${name}`);
    const lines = [`class gen::${name} (String $owner = 'root') {`];
    for (let r = 0; r < per; r++) {
      const path = `/srv/gen/${name}/f${String(r).padStart(3, "0")}`;
      lines.push(`  file { '${path}':`);
      lines.push("    ensure  => file,");
      lines.push(`    content => "${name} ${r} on \${facts['networking']['fqdn']}\\n",`);
      lines.push("    owner   => $owner,");
      lines.push(`    mode    => '${r % 2 === 0 ? "0644" : "0640"}',`);
      if (r > 0) lines.push(`    require => File['/srv/gen/${name}/f000'],`);
      lines.push("  }");
    }
    lines.push("}", "");
    writeFileSync(join(manifests, `${name}.pp`), lines.join("\n"));
  }
  writeFileSync(
    join(manifests, "init.pp"),
    `class gen {\n${names.map((n) => `  include ${n}\n`).join("")}}\n`,
  );
  writeFileSync(
    join(codedir, "environments", "generated", "manifests", "site.pp"),
    "node 'gen.example.com' {\n  include gen\n}\n",
  );
}

/** A fact file for `node` made from another node's (names, domain and fqdn replaced). */
function renamedFacts(text: string, node: string): string {
  const doc = JSON.parse(text) as { name: string; values: Record<string, unknown> };
  const [host, ...rest] = node.split(".");
  const domain = rest.join(".");
  const v = doc.values;
  Object.assign(v, { clientcert: node, fqdn: node, hostname: host, domain });
  const net = v.networking as Record<string, unknown> | undefined;
  if (net) Object.assign(net, { fqdn: node, hostname: host, domain });
  return JSON.stringify({ ...doc, name: node });
}

function compileArgs(c: Case): string[] {
  return [
    "catalog",
    "compile",
    c.node,
    "--confdir",
    c.confdir,
    "--facts_terminus",
    "json",
    "--environment",
    c.environment,
    "--render-as",
    "json",
    "--log_level",
    "err",
  ];
}

function timeCompile(command: string, args: readonly string[], env?: NodeJS.ProcessEnv): Timed {
  const cpu0 = childCpuMs();
  const started = performance.now();
  const r = spawnSync(command, args, { encoding: "utf8", maxBuffer: 1 << 28, timeout: 300_000, env });
  const wall = performance.now() - started;
  const cpu1 = childCpuMs();
  const ok = r.status === 0;
  const message = ok
    ? ""
    : ((r.stderr || r.error?.message || `exit ${r.status}`).trim().split("\n")[0] ?? "");
  return {
    wall,
    cpu: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0,
    ok,
    stdout: ok ? r.stdout : "",
    message,
  };
}

interface EnvCompileModule {
  compileNodeCatalog(request: { node: string; settings: unknown; factsDir: string }): Promise<unknown>;
}
interface SettingsModule {
  resolveCompileSettings(given: Record<string, string>, cwd: string): { serverDatadir: string };
}

/** tend's own compile time in this process: cold (first) and warm (median of the rest). */
async function inProcess(c: Case, passes: number): Promise<CompileRow["inProcess"]> {
  try {
    const env = (await import("../src/puppet/env/compile.js")) as unknown as EnvCompileModule;
    const settingsModule = (await import("../src/puppet/settings.js")) as unknown as SettingsModule;
    const settings = settingsModule.resolveCompileSettings(
      { confdir: c.confdir, environment: c.environment, facts_terminus: "json" },
      process.cwd(),
    );
    const cpu: number[] = [];
    const wall: number[] = [];
    for (let i = 0; i < passes; i++) {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      await env.compileNodeCatalog({ node: c.node, settings, factsDir: settings.serverDatadir });
      const used = process.cpuUsage(c0);
      cpu.push((used.user + used.system) / 1000);
      wall.push(performance.now() - t0);
    }
    return {
      coldMs: cpu[0] ?? 0,
      warmMs: median(cpu.slice(1)),
      coldWallMs: wall[0] ?? 0,
      warmWallMs: median(wall.slice(1)),
    };
  } catch (e) {
    return { fails: ((e as Error).message ?? String(e)).split("\n")[0] ?? "" };
  }
}

function catalogOf(stdout: string): Record<string, unknown> | null {
  try {
    return JSON.parse(stdout) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/** The environment under which `tend` runs with `node` first on PATH. */
function pathWith(node: NodeBinary): NodeJS.ProcessEnv | undefined {
  if (node.path === undefined) return undefined;
  return { ...process.env, PATH: `${dirname(node.path)}${delimiter}${process.env.PATH ?? ""}` };
}

/** The version of the Node at `path` (undefined: the `node` on PATH). */
export function nodeBinary(path: string | undefined): NodeBinary {
  const r = spawnSync(path ?? "node", ["--version"], { encoding: "utf8" });
  const version = r.status === 0 ? r.stdout.trim() : `? (${path ?? "node"}: ${r.error?.message ?? "fails"})`;
  return { path, version };
}

export async function comparePuppetCompile(
  cases: readonly Case[],
  iterations: number,
  hasPuppet: boolean,
  otherNodes: readonly NodeBinary[] = [],
): Promise<CompileRow[]> {
  const rows: CompileRow[] = [];
  const here = nodeBinary(undefined);
  for (const c of cases) {
    const tendRuns: Timed[] = [];
    const otherRuns: Timed[][] = otherNodes.map(() => []);
    const puppetRuns: Timed[] = [];
    for (let i = 0; i < iterations; i++) {
      tendRuns.push(timeCompile(TEND, ["puppet", ...compileArgs(c)]));
      for (const [k, n] of otherNodes.entries())
        otherRuns[k]?.push(timeCompile(TEND, ["puppet", ...compileArgs(c)], pathWith(n)));
      // A case Puppet takes minutes over is timed once.
      if (hasPuppet && (i === 0 || (puppetRuns[0]?.wall ?? 0) < 20_000))
        puppetRuns.push(timeCompile("puppet", compileArgs(c)));
    }
    const summary = (runs: Timed[]): CompileRow["tend"] => {
      const bad = runs.find((r) => !r.ok);
      if (bad) return { fails: bad.message };
      const cpus = runs.map((r) => r.cpu);
      return {
        wallMs: median(runs.map((r) => r.wall)),
        cpuMs: cpus.every((x) => x !== null) ? median(cpus as number[]) : null,
      };
    };
    const tend = summary(tendRuns);
    const puppet = hasPuppet ? summary(puppetRuns) : null;
    const tendCat = catalogOf(tendRuns[0]?.stdout ?? "");
    const puppetCat = catalogOf(puppetRuns[0]?.stdout ?? "");
    let sameCatalog: string | null = null;
    if (tendCat && puppetCat) {
      const cmp = compareCatalogs(puppetCat, tendCat, { limit: 1 });
      const first = cmp.differences[0];
      sameCatalog = cmp.equal || first === undefined ? "same" : formatDifference(first, ["Puppet", "tend"]);
    }
    const ratioOf = (t: TendTimes): CompileRow["ratio"] =>
      puppet && "wallMs" in puppet && "wallMs" in t
        ? {
            wall: t.wallMs / puppet.wallMs,
            cpu: t.cpuMs !== null && puppet.cpuMs ? t.cpuMs / puppet.cpuMs : null,
          }
        : null;
    const ratio = ratioOf(tend);
    const resources = (puppetCat?.resources ?? tendCat?.resources) as unknown[] | undefined;
    rows.push({
      name: c.name,
      resources: resources ? resources.length : null,
      node: here.version,
      tend,
      otherNodes: otherNodes.map((n, k) => {
        const t = summary(otherRuns[k] ?? []);
        return { node: n.version, tend: t, ratio: ratioOf(t) };
      }),
      puppet,
      ratio,
      inProcess: await inProcess(c, Math.max(3, iterations + 1)),
      sameCatalog,
    });
  }
  return rows;
}

function ms(value: number | null): string {
  return value === null ? "?" : value.toFixed(0);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      iterations: { type: "string" },
      only: { type: "string" },
      node: { type: "string", multiple: true },
      json: { type: "boolean" },
    },
  });
  const otherNodes = (values.node ?? [])
    .flatMap((v) => v.split(","))
    .filter((v) => v !== "")
    .map((path) => nodeBinary(path));
  const iterations = Math.max(1, Number(values.iterations ?? 3));
  const hasPuppet = spawnSync("puppet", ["--version"], { stdio: "ignore" }).status === 0;
  const root = mkdtempSync(join(tmpdir(), "tend-bench-puppet-compile-"));
  try {
    const facts: Record<string, string> = {};
    for (const f of readdirSync(join(FIXTURES, "facts"))) {
      facts[f.replace(/\.json$/, "")] = readFileSync(join(FIXTURES, "facts", f), "utf8");
    }
    const modulesConf = scratchConfdir(join(root, "modules"), FIXTURES, facts);
    const generatedCode = join(root, "generated", "code");
    generateEnvironment(generatedCode, 100, 100);
    const generatedConf = scratchConfdir(join(root, "generated"), generatedCode, {
      "gen.example.com": renamedFacts(facts.testnode ?? "{}", "gen.example.com"),
    });
    const nodes = readdirSync(join(FIXTURES, "catalogs", "production"))
      .filter((f) => f.endsWith(".json"))
      .map((f) => f.replace(/\.json$/, ""))
      .sort();
    let cases: Case[] = [
      ...nodes.map((node) => ({
        name: node.split(".")[0] ?? node,
        environment: "production",
        node,
        confdir: modulesConf,
      })),
      { name: "generated 10000", environment: "generated", node: "gen.example.com", confdir: generatedConf },
    ];
    if (values.only) {
      const only = new Set(values.only.split(","));
      cases = cases.filter((c) => only.has(c.name));
    }
    const rows = await comparePuppetCompile(cases, iterations, hasPuppet, otherNodes);
    if (values.json) {
      process.stdout.write(`${JSON.stringify({ iterations, hasPuppet, rows }, null, 2)}\n`);
      return;
    }
    if (!hasPuppet) process.stdout.write("puppet catalog compile: skipped (puppet is not installed)\n");
    for (const r of rows) {
      const head = `puppet catalog compile, ${r.name}${r.resources === null ? "" : ` (${r.resources} resources)`}:`;
      const tendText = (t: TendTimes, node: string): string =>
        "fails" in t
          ? `tend fails on Node ${node} (${t.fails})`
          : `tend ${ms(t.wallMs)} ms (CPU ${ms(t.cpuMs)}, Node ${node})`;
      const ratioText = (ratio: NonNullable<CompileRow["ratio"]>): string =>
        `${ratio.wall.toFixed(3)}× wall, ${ratio.cpu === null ? "?" : ratio.cpu.toFixed(3)}× CPU (goal ≤ 0.05× wall)`;
      const tend = tendText(r.tend, r.node);
      const puppet =
        r.puppet === null
          ? ""
          : "fails" in r.puppet
            ? `, puppet fails (${r.puppet.fails})`
            : `, puppet ${ms(r.puppet.wallMs)} ms (CPU ${ms(r.puppet.cpuMs)})`;
      process.stdout.write(`${head} ${tend}${puppet}\n`);
      if (r.ratio) process.stdout.write(`  tend / puppet: ${ratioText(r.ratio)}\n`);
      for (const o of r.otherNodes) {
        process.stdout.write(`  ${tendText(o.tend, o.node)}\n`);
        if (o.ratio) process.stdout.write(`    tend / puppet: ${ratioText(o.ratio)}\n`);
      }
      const own =
        "fails" in r.inProcess
          ? `tend fails (${r.inProcess.fails})`
          : `CPU ${r.inProcess.coldMs.toFixed(1)} ms cold, ${r.inProcess.warmMs.toFixed(1)} ms warm${r.name === "ntp" ? " (goal < 50 ms)" : ""}; wall ${r.inProcess.coldWallMs.toFixed(1)} / ${r.inProcess.warmWallMs.toFixed(1)} ms`;
      process.stdout.write(`  tend's own compile time, in process: ${own}\n`);
      if (r.sameCatalog !== null) process.stdout.write(`  catalogs: ${r.sameCatalog}\n`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) void main();
