/**
 * Benchmarks tend against cf-promises on the installed masterfiles:
 *
 *   npm run bench -- [--iterations N] [--masterfiles DIR] [--json]
 *
 * 1. whole process: `tend check -f ./promises.cf` vs `cf-promises -f ./promises.cf`
 * 2. startup: `tend --version` vs `cf-promises -V`
 * 3. in-process parse throughput over every masterfiles .cf file (lines/s)
 *
 * A part whose inputs are missing is skipped with the reason.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { parse } from "../src/language/parser.js";
import { SourceFile } from "../src/language/source.js";
import { median, childCpuMs, TEND } from "./measure.js";

interface Comparison {
  readonly name: string;
  readonly tendMs: number;
  readonly cfPromisesMs: number;
  /** The fastest runs: less disturbed than the medians on a busy machine. */
  readonly tendMinMs: number;
  readonly cfPromisesMinMs: number;
  /** Mean CPU time (user + system) per run, where /proc tells it. */
  readonly tendCpuMs: number | null;
  readonly cfPromisesCpuMs: number | null;
  /** tend's median over cf-promises' median. */
  readonly ratio: number;
}

interface Throughput {
  readonly files: number;
  readonly lines: number;
  readonly bytes: number;
  readonly msPerPass: number;
  readonly linesPerSecond: number;
}

type Part<T> = { readonly result: T } | { readonly skipped: string };

/** Wall time of one run; a non-zero exit is reported, since timing a failure would mislead. */
function timeRun(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): number {
  const started = performance.now();
  const result = spawnSync(command, args, {
    cwd,
    env,
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
  });
  const elapsed = performance.now() - started;
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited ${result.status}: ${result.stderr.slice(0, 500)}`);
  }
  return elapsed;
}

/** Runs both commands alternately so that drifts in machine load hit both alike. */
function compare(
  name: string,
  iterations: number,
  tend: readonly string[],
  cf: readonly string[],
  cwd: string,
): Comparison {
  const workdir = mkdtempSync(join(tmpdir(), "tend-bench-"));
  const env = { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: workdir, NO_COLOR: "1" };
  try {
    const tendTimes: number[] = [];
    const cfTimes: number[] = [];
    const cpu = { tend: 0, cf: 0 };
    const timed = (times: number[], tool: "tend" | "cf", run: () => number) => {
      const before = childCpuMs();
      times.push(run());
      const after = childCpuMs();
      if (before !== null && after !== null) cpu[tool] += after - before;
    };
    // One untimed run each warms the file cache.
    timeRun(TEND, tend, cwd, env);
    timeRun("cf-promises", cf, cwd, env);
    for (let i = 0; i < iterations; i++) {
      timed(tendTimes, "tend", () => timeRun(TEND, tend, cwd, env));
      timed(cfTimes, "cf", () => timeRun("cf-promises", cf, cwd, env));
    }
    const hasCpu = childCpuMs() !== null;
    const tendMs = median(tendTimes);
    const cfPromisesMs = median(cfTimes);
    const tendMinMs = Math.min(...tendTimes);
    const cfPromisesMinMs = Math.min(...cfTimes);
    const tendCpuMs = hasCpu ? cpu.tend / iterations : null;
    const cfPromisesCpuMs = hasCpu ? cpu.cf / iterations : null;
    const ratio = tendMs / cfPromisesMs;
    return { name, tendMs, cfPromisesMs, tendMinMs, cfPromisesMinMs, tendCpuMs, cfPromisesCpuMs, ratio };
  } finally {
    rmSync(workdir, { recursive: true, force: true });
  }
}

function findPolicyFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findPolicyFiles(path));
    else if (entry.name.endsWith(".cf")) found.push(path);
  }
  return found.sort();
}

/** Parses every file repeatedly for at least `minMs` and reports lines per second. */
function measureParse(dir: string, minMs: number): Throughput {
  const sources = findPolicyFiles(dir).map((path) => new SourceFile(path, readFileSync(path, "utf8")));
  const lines = sources.reduce((n, s) => n + s.lineCount, 0);
  const bytes = sources.reduce((n, s) => n + Buffer.byteLength(s.text), 0);
  const pass = () => {
    for (const source of sources) parse(new SourceFile(source.path, source.text));
  };
  for (let i = 0; i < 3; i++) pass();
  let passes = 0;
  const started = performance.now();
  while (performance.now() - started < minMs || passes < 5) {
    pass();
    passes++;
  }
  const msPerPass = (performance.now() - started) / passes;
  return { files: sources.length, lines, bytes, msPerPass, linesPerSecond: (lines / msPerPass) * 1000 };
}

function hasCfPromises(): boolean {
  return spawnSync("cf-promises", ["-V"], { stdio: "ignore" }).status === 0;
}

function formatComparison(part: Part<Comparison>, title: string): string {
  if ("skipped" in part) return `${title}: skipped (${part.skipped})`;
  const c = part.result;
  const ratio = c.ratio >= 1 ? `${c.ratio.toFixed(2)}x slower` : `${(1 / c.ratio).toFixed(2)}x faster`;
  const medians = `tend ${c.tendMs.toFixed(1)} ms, cf-promises ${c.cfPromisesMs.toFixed(1)} ms (median)`;
  const fastest = `fastest: ${c.tendMinMs.toFixed(1)} ms vs ${c.cfPromisesMinMs.toFixed(1)} ms`;
  const cpu =
    c.tendCpuMs === null || c.cfPromisesCpuMs === null
      ? ""
      : `\n  CPU per run: tend ${c.tendCpuMs.toFixed(0)} ms, cf-promises ${c.cfPromisesCpuMs.toFixed(0)} ms`;
  return `${title}\n  ${medians}: tend is ${ratio}; ${fastest}${cpu}`;
}

function formatThroughput(part: Part<Throughput>): string {
  const title = "parse throughput (in process, all masterfiles .cf files)";
  if ("skipped" in part) return `${title}: skipped (${part.skipped})`;
  const t = part.result;
  const perSecond = Math.round(t.linesPerSecond).toLocaleString("en-US");
  return `${title}\n  ${t.files} files, ${t.lines} lines, ${(t.bytes / 1024).toFixed(0)} KiB: ${t.msPerPass.toFixed(1)} ms per pass, ${perSecond} lines/s`;
}

function run(): void {
  const { values } = parseArgs({
    options: {
      iterations: { type: "string", short: "n" },
      masterfiles: { type: "string" },
      json: { type: "boolean" },
    },
  });
  const iterations = Number(values.iterations ?? 15);
  const masterfiles = values.masterfiles ?? "/var/lib/cfengine3/masterfiles";
  const cfPresent = hasCfPromises();
  const haveMasterfiles = existsSync(join(masterfiles, "promises.cf"));
  const noCf = { skipped: "cf-promises is not installed" } as const;
  const noMasterfiles = { skipped: `no ${join(masterfiles, "promises.cf")}` } as const;
  const check: Part<Comparison> = !cfPresent
    ? noCf
    : !haveMasterfiles
      ? noMasterfiles
      : {
          result: compare(
            "check",
            iterations,
            ["check", "-f", "./promises.cf"],
            ["-f", "./promises.cf"],
            masterfiles,
          ),
        };
  const startup: Part<Comparison> = cfPresent
    ? { result: compare("startup", iterations, ["--version"], ["-V"], process.cwd()) }
    : noCf;
  const throughput: Part<Throughput> = existsSync(masterfiles)
    ? { result: measureParse(masterfiles, 2000) }
    : { skipped: `no ${masterfiles}` };
  if (values.json) {
    process.stdout.write(JSON.stringify({ iterations, check, startup, throughput }, null, 2) + "\n");
    return;
  }
  const title = `whole process on ${masterfiles}/promises.cf, ${iterations} runs each`;
  process.stdout.write(
    [
      formatComparison(check, title),
      formatComparison(startup, `startup (tend --version vs cf-promises -V), ${iterations} runs each`),
      formatThroughput(throughput),
    ].join("\n") + "\n",
  );
}

run();
