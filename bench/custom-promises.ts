/**
 * Benchmarks custom promise types (promise modules), `tend agent` against
 * `cf-agent` in one run:
 *
 *   node dist/bench/custom-promises.js [--iterations N] [--promises N] [--json]
 *
 * The policy holds N (default 1,000) promises of one custom type, each with
 * its own promiser and two attributes, handled by a trivial JSON module
 * (Python, answering `valid` and `kept`): two exchanges per promise, one
 * module process for the run. Each agent runs with `-K` in its own
 * temporary work directory. Skipped, with the reason, when cf-agent or
 * /usr/bin/python3 is missing.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { benchWorkdir, CF_AGENT, median, TEND, timeAgent } from "./measure.js";

const PYTHON = "/usr/bin/python3";

/** The module: header, then one JSON answer per request, `kept` for every promise. */
const MODULE = `import json, sys
sys.stdin.readline(); sys.stdin.readline()
sys.stdout.write("bench 1.0 v1 json_based\\n\\n"); sys.stdout.flush()
for line in sys.stdin:
    if line == "\\n":
        continue
    op = json.loads(line)["operation"]
    result = {"validate_promise": "valid", "evaluate_promise": "kept"}.get(op, "success")
    sys.stdout.write(json.dumps({"operation": op, "result": result}) + "\\n\\n"); sys.stdout.flush()
    if op == "terminate":
        break
`;

export interface CustomPromisesComparison {
  readonly promises: number;
  readonly tendMs: number;
  readonly cfAgentMs: number;
  readonly ratio: number;
}

/** A policy of `count` promises of the custom type `bench`. */
export function generateCustomPolicy(count: number): string {
  const out = [
    "promise agent bench",
    "{",
    `      interpreter => "${PYTHON}";`,
    '      path => "$(this.promise_dirname)/module.py";',
    "}",
    "bundle agent main",
    "{",
    "  bench:",
  ];
  for (let i = 0; i < count; i++) out.push(`      "item ${i}" size => "${i}", colour => "blue";`);
  out.push("}");
  return `${out.join("\n")}\n`;
}

export function runCustomPromisesBenchmark(
  promises: number,
  iterations: number,
): CustomPromisesComparison | string {
  if (!existsSync(CF_AGENT)) return "cf-agent is not installed (apt-get install cfengine3)";
  if (!existsSync(PYTHON)) return `${PYTHON} is missing`;
  const dir = mkdtempSync(join(tmpdir(), "tend-bench-custom-policy-"));
  writeFileSync(join(dir, "policy.cf"), generateCustomPolicy(promises));
  writeFileSync(join(dir, "module.py"), MODULE);
  const tendWork = benchWorkdir("custom", false);
  const cfWork = benchWorkdir("custom", true);
  const tendArgs = ["agent", "-Kf", "./policy.cf"];
  const tend: number[] = [];
  const cf: number[] = [];
  try {
    // One warm-up each, then alternate so that a busy moment hits both alike.
    timeAgent(TEND, tendArgs, tendWork, dir, true);
    timeAgent(CF_AGENT, ["-Kf", "./policy.cf"], cfWork, dir, true);
    for (let i = 0; i < iterations; i++) {
      tend.push(timeAgent(TEND, tendArgs, tendWork, dir, true));
      cf.push(timeAgent(CF_AGENT, ["-Kf", "./policy.cf"], cfWork, dir, true));
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
  const result = runCustomPromisesBenchmark(Number(values.promises ?? 1000), Number(values.iterations ?? 5));
  if (values.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } else if (typeof result === "string") {
    process.stdout.write(`custom promise types benchmark skipped: ${result}\n`);
  } else {
    process.stdout.write(
      `custom promise type (${result.promises} promises through a JSON module): tend ${result.tendMs.toFixed(1)} ms, ` +
        `cf-agent ${result.cfAgentMs.toFixed(1)} ms, ratio ${result.ratio.toFixed(2)}×\n`,
    );
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
