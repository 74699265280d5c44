/**
 * Benchmarks `tend agent` against `cf-agent`, both in one run:
 *
 *   node dist/bench/agent.js [--iterations N] [--json]
 *
 * 1. an empty policy (startup and the fixed cost of a run);
 * 2. a generated policy of 5,000 vars, classes and reports promises with
 *    lists and iteration.
 *
 * Each agent runs in its own temporary work directory with `-K`; cf-agent
 * gets a `bin/cf-promises` link and keys there, as it needs them. Skipped,
 * with the reason, when cf-agent is not installed.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { benchWorkdir, CF_AGENT, childCpuMs, median, TEND, timeAgent } from "./measure.js";

interface AgentComparison {
  readonly name: string;
  readonly promises: number;
  readonly tendMs: number;
  readonly cfAgentMs: number;
  readonly ratio: number;
  /** Mean CPU time per run (user + system), where /proc tells it: steadier than wall time on a busy machine. */
  readonly tendCpuMs?: number;
  readonly cfAgentCpuMs?: number;
}

/** A policy of `bundles` × (vars, classes and reports) promises with lists and iteration. */
export function generatePolicy(bundles: number, perBundle: number): string {
  const out: string[] = [
    "body common control { bundlesequence => { @(seq.names) }; }",
    "bundle common seq {",
  ];
  out.push(
    `  vars: "names" slist => { ${Array.from({ length: bundles }, (_, b) => `"b${b}"`).join(", ")} };`,
    "}",
  );
  for (let b = 0; b < bundles; b++) {
    out.push(`bundle agent b${b}`, "{", "  vars:", '      "items" slist => { "a", "b", "c", "d" };');
    for (let i = 0; i < perBundle; i++) out.push(`      "v${i}" string => "value $(items) ${i}";`);
    out.push("  classes:");
    for (let i = 0; i < perBundle; i++) out.push(`      "c${i}_$(items)" expression => "any|c${i}";`);
    out.push("  reports:");
    for (let i = 0; i < perBundle; i += 10) out.push(`    c${i}_a::`, `      "r${i} $(items) $(v${i})";`);
    out.push("}");
  }
  return `${out.join("\n")}\n`;
}

function compare(name: string, policy: string, promises: number, iterations: number): AgentComparison {
  const dir = mkdtempSync(join(tmpdir(), "tend-bench-policy-"));
  writeFileSync(join(dir, "policy.cf"), policy);
  const tendWork = benchWorkdir("agent", false);
  const cfWork = benchWorkdir("agent", true);
  const tend: number[] = [];
  const cf: number[] = [];
  const cpu = { tend: 0, cf: 0 };
  const timed = (runs: number[], tool: "tend" | "cf", run: () => number) => {
    const before = childCpuMs();
    runs.push(run());
    const after = childCpuMs();
    if (before !== null && after !== null) cpu[tool] += after - before;
  };
  try {
    // Alternate the two so that a busy moment of the machine hits both alike.
    timeAgent(TEND, ["agent", "-Kf", "./policy.cf"], tendWork, dir);
    timeAgent(CF_AGENT, ["-Kf", "./policy.cf"], cfWork, dir);
    for (let i = 0; i < iterations; i++) {
      timed(tend, "tend", () => timeAgent(TEND, ["agent", "-Kf", "./policy.cf"], tendWork, dir));
      timed(cf, "cf", () => timeAgent(CF_AGENT, ["-Kf", "./policy.cf"], cfWork, dir));
    }
  } finally {
    for (const d of [dir, tendWork, cfWork]) rmSync(d, { recursive: true, force: true });
  }
  const tendMs = median(tend);
  const cfAgentMs = median(cf);
  const cpuMs =
    childCpuMs() === null ? {} : { tendCpuMs: cpu.tend / iterations, cfAgentCpuMs: cpu.cf / iterations };
  return { name, promises, tendMs, cfAgentMs, ratio: tendMs / cfAgentMs, ...cpuMs };
}

function describeCpu(r: AgentComparison): string {
  if (r.tendCpuMs === undefined || r.cfAgentCpuMs === undefined) return "";
  const ratio = r.tendCpuMs / r.cfAgentCpuMs;
  return `; CPU per run: tend ${r.tendCpuMs.toFixed(0)} ms, cf-agent ${r.cfAgentCpuMs.toFixed(0)} ms, ratio ${ratio.toFixed(2)}×`;
}

export function runAgentBenchmarks(iterations: number): AgentComparison[] | string {
  if (!existsSync(CF_AGENT)) return "cf-agent is not installed (apt-get install cfengine3)";
  const bundles = 50;
  const perBundle = 48;
  // Per bundle: 1 + perBundle vars, perBundle classes, one report in ten; 4 iterations each.
  const promises = bundles * (1 + perBundle * 2 + Math.ceil(perBundle / 10));
  return [
    compare("empty policy", "bundle agent main { }\n", 0, iterations),
    compare(
      "vars/classes/reports with iteration",
      generatePolicy(bundles, perBundle),
      promises,
      Math.max(3, iterations >> 1),
    ),
  ];
}

/**
 * Node's own start (`node -e 0`): the floor under any tend run. Node 20 reads
 * the certificates of NODE_EXTRA_CA_CERTS at every start, which can cost more
 * than all of tend's own startup (the `tend` command keeps the variable from
 * Node's start: bin/tend); the line says so when it is set.
 */
function describeNodeFloor(iterations: number): string {
  const cwd = tmpdir();
  timeAgent(process.execPath, ["-e", "0"], cwd, cwd);
  const times = Array.from({ length: iterations }, () => timeAgent(process.execPath, ["-e", "0"], cwd, cwd));
  const extra = process.env.NODE_EXTRA_CA_CERTS
    ? " (NODE_EXTRA_CA_CERTS is set: Node reads it at start)"
    : "";
  return `node alone (node -e 0): ${median(times).toFixed(1)} ms${extra}`;
}

function main(): void {
  const { values } = parseArgs({ options: { iterations: { type: "string" }, json: { type: "boolean" } } });
  const iterations = Number(values.iterations ?? 10);
  const results = runAgentBenchmarks(iterations);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    return;
  }
  if (typeof results === "string") {
    process.stdout.write(`agent benchmarks skipped: ${results}\n`);
    return;
  }
  for (const r of results) {
    const label = r.promises ? `${r.name} (${r.promises} promises)` : r.name;
    process.stdout.write(
      `${label}: tend ${r.tendMs.toFixed(1)} ms, cf-agent ${r.cfAgentMs.toFixed(1)} ms, ratio ${r.ratio.toFixed(2)}×${describeCpu(r)}\n`,
    );
  }
  process.stdout.write(`${describeNodeFloor(iterations)}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
