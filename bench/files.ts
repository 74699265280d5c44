/**
 * Benchmarks files promises, `tend agent` against `cf-agent` in one run:
 *
 *   node dist/bench/files.js [--iterations N] [--sizes 100,1000,10000] [--json]
 *
 * A policy of N files promises, one per file: create it, mode 0644, a
 * one-line `content`. Timed twice for each N:
 * - first run: the directory is empty, every file is created;
 * - steady state: every file is already as promised, nothing changes.
 *
 * Each agent runs with `-K` in its own temporary work directory (cf-agent
 * with a `bin/cf-promises` link and keys there). Medians of the iterations,
 * wall time and CPU time (user + system, from /proc: steadier when the
 * machine is busy); the two agents alternate so that a busy moment of the
 * machine hits both.
 * Skipped, with the reason, when cf-agent is not installed.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { benchAgent, CF_AGENT, median, medianCpu, type TimedRun, timeRun } from "./measure.js";

export interface FilesComparison {
  readonly files: number;
  readonly phase: "first run" | "steady state";
  /** Median wall time of a run. */
  readonly tendMs: number;
  readonly cfAgentMs: number;
  readonly ratio: number;
  /** Median CPU time (user + system) of a run: steadier than wall time on a busy machine. */
  readonly tendCpuMs: number | null;
  readonly cfAgentCpuMs: number | null;
  readonly cpuRatio: number | null;
}

/** N files promises on files in `dir`: created, mode 0644, one line of content. */
export function filesPolicy(dir: string, count: number): string {
  const lines = [
    'body common control { bundlesequence => { "main" }; }',
    'body perms m644 { mode => "0644"; rxdirs => "false"; }',
    "bundle agent main",
    "{",
    "files:",
  ];
  for (let i = 0; i < count; i++)
    lines.push(`  "${dir}/f${i}" create => "true", perms => m644, content => "file ${i}$(const.n)";`);
  lines.push("}");
  return `${lines.join("\n")}\n`;
}

function resetDirectory(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
}

/** Both phases for N files; `iterations` timings of each agent, medians compared. */
export function compareFiles(count: number, iterations: number): FilesComparison[] {
  const root = mkdtempSync(join(tmpdir(), "tend-bench-files-"));
  const agents = (["tend", "cf-agent"] as const).map((name) => {
    const dir = join(root, name);
    const policy = join(root, `${name}.cf`);
    writeFileSync(policy, filesPolicy(dir, count));
    return {
      agent: benchAgent("files", name, policy),
      dir,
      first: [] as TimedRun[],
      steady: [] as TimedRun[],
    };
  });
  try {
    for (let i = 0; i < iterations; i++) {
      for (const a of agents) {
        resetDirectory(a.dir);
        a.first.push(timeRun(a.agent));
        a.steady.push(timeRun(a.agent));
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
    for (const a of agents) rmSync(a.agent.workdir, { recursive: true, force: true });
  }
  const [tend, cf] = agents as [(typeof agents)[0], (typeof agents)[0]];
  return (["first run", "steady state"] as const).map((phase) => {
    const tendRuns = phase === "first run" ? tend.first : tend.steady;
    const cfRuns = phase === "first run" ? cf.first : cf.steady;
    const tendMs = median(tendRuns.map((t) => t.wall));
    const cfAgentMs = median(cfRuns.map((t) => t.wall));
    const tendCpuMs = medianCpu(tendRuns);
    const cfAgentCpuMs = medianCpu(cfRuns);
    const cpuRatio = tendCpuMs !== null && cfAgentCpuMs ? tendCpuMs / cfAgentCpuMs : null;
    return {
      files: count,
      phase,
      tendMs,
      cfAgentMs,
      ratio: tendMs / cfAgentMs,
      tendCpuMs,
      cfAgentCpuMs,
      cpuRatio,
    };
  });
}

export function runFilesBenchmarks(sizes: readonly number[], iterations: number): FilesComparison[] | string {
  if (!existsSync(CF_AGENT)) return "cf-agent is not installed (apt-get install cfengine3)";
  return sizes.flatMap((n) => compareFiles(n, n >= 10000 ? Math.max(1, iterations >> 1) : iterations));
}

function main(): void {
  const { values } = parseArgs({
    options: { iterations: { type: "string" }, sizes: { type: "string" }, json: { type: "boolean" } },
  });
  const iterations = Number(values.iterations ?? 5);
  const sizes = (values.sizes ?? "100,1000,10000").split(",").map(Number);
  const results = runFilesBenchmarks(sizes, iterations);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    return;
  }
  if (typeof results === "string") {
    process.stdout.write(`files benchmarks skipped: ${results}\n`);
    return;
  }
  for (const r of results) {
    const goal = r.phase === "steady state" ? " (goal ≤ 0.25×)" : " (goal ≤ 1.0×)";
    const cpu =
      r.cpuRatio === null
        ? ""
        : `; CPU ${r.tendCpuMs?.toFixed(0)} / ${r.cfAgentCpuMs?.toFixed(0)} ms, ratio ${r.cpuRatio.toFixed(2)}×`;
    process.stdout.write(
      `files, ${r.files} promises, ${r.phase}: tend ${r.tendMs.toFixed(0)} ms, cf-agent ${r.cfAgentMs.toFixed(0)} ms, ratio ${r.ratio.toFixed(2)}×${cpu}${goal}\n`,
    );
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
