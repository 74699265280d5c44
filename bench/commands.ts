/**
 * Benchmarks `commands` promises, `tend agent` against `cf-agent` in one run:
 *
 *   node dist/bench/commands.js [--iterations N] [--promises N] [--json]
 *
 * The policy holds N (default 1,000) `commands` promises, each running
 * `/bin/true` with its own argument (so none is the same promise as
 * another), half of them with a `contain` body (umask, no_output), as
 * policies usually write them. Each agent runs with `-K` in its own
 * temporary work directory. Skipped, with the reason, when cf-agent is not
 * installed.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { benchWorkdir, CF_AGENT, median, TEND, timeAgent } from "./measure.js";

export interface CommandsComparison {
  readonly promises: number;
  readonly tendMs: number;
  readonly cfAgentMs: number;
  readonly ratio: number;
}

/** A policy of `count` commands promises running /bin/true. */
export function generateCommandsPolicy(count: number): string {
  const out = ["bundle agent main", "{", "  commands:"];
  for (let i = 0; i < count; i++) {
    const contain = i % 2 === 0 ? " contain => quiet" : "";
    out.push(`      "/bin/true ${i}"${contain};`);
  }
  out.push("}", 'body contain quiet { umask => "022"; no_output => "true"; }');
  return `${out.join("\n")}\n`;
}

export function runCommandsBenchmark(promises: number, iterations: number): CommandsComparison | string {
  if (!existsSync(CF_AGENT)) return "cf-agent is not installed (apt-get install cfengine3)";
  const dir = mkdtempSync(join(tmpdir(), "tend-bench-commands-policy-"));
  writeFileSync(join(dir, "policy.cf"), generateCommandsPolicy(promises));
  const tendWork = benchWorkdir("commands", false);
  const cfWork = benchWorkdir("commands", true);
  const tendArgs = ["agent", "-Kf", "./policy.cf"];
  const tend: number[] = [];
  const cf: number[] = [];
  try {
    // One warm-up each, then alternate so that a busy moment hits both alike.
    timeAgent(TEND, tendArgs, tendWork, dir);
    timeAgent(CF_AGENT, ["-Kf", "./policy.cf"], cfWork, dir);
    for (let i = 0; i < iterations; i++) {
      tend.push(timeAgent(TEND, tendArgs, tendWork, dir));
      cf.push(timeAgent(CF_AGENT, ["-Kf", "./policy.cf"], cfWork, dir));
    }
  } finally {
    for (const d of [dir, tendWork, cfWork]) rmSync(d, { recursive: true, force: true });
  }
  const tendMs = median(tend);
  const cfAgentMs = median(cf);
  return { promises, tendMs, cfAgentMs, ratio: tendMs / cfAgentMs };
}

function main(): void {
  const { values } = parseArgs({
    options: { iterations: { type: "string" }, promises: { type: "string" }, json: { type: "boolean" } },
  });
  const result = runCommandsBenchmark(Number(values.promises ?? 1000), Number(values.iterations ?? 5));
  if (values.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } else if (typeof result === "string") {
    process.stdout.write(`commands benchmark skipped: ${result}\n`);
  } else {
    process.stdout.write(
      `commands (${result.promises} promises running /bin/true): tend ${result.tendMs.toFixed(1)} ms, ` +
        `cf-agent ${result.cfAgentMs.toFixed(1)} ms, ratio ${result.ratio.toFixed(2)}×\n`,
    );
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
