/**
 * Benchmarks tend's Puppet parser beside Puppet 7's on the language corpus
 * (every .pp input of test/fixtures/puppet-lang/inputs), in one run:
 *
 *   node dist/bench/puppet-parse.js [--iterations N] [--json]
 *
 * Rows:
 * - `tend puppet parser dump FILES…` and `puppet parser dump --format json
 *   FILES…`: one process each parsing the whole corpus and printing every
 *   tree (wall time, median of N; Puppet's includes its ~1 s start-up);
 * - tend in process: parse and render the corpus again and again in this
 *   process (time per corpus pass, start-up excluded);
 * - `puppet parser dump -e ''`: Puppet's start-up alone, to read the rest.
 * The ratio is tend's wall time over Puppet's. Skipped with the reason when
 * Puppet is absent.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { parsePuppet, renderPnJson, toPn } from "../src/puppet/lang/index.js";
import { median, TEND } from "./measure.js";

const INPUTS = fileURLToPath(new URL("../../test/fixtures/puppet-lang/inputs/", import.meta.url));

function corpusFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...corpusFiles(path));
    else if (name.endsWith(".pp")) out.push(path);
  }
  return out;
}

function wallMs(command: string, args: string[], cwd: string): number | string {
  const start = process.hrtime.bigint();
  const run = spawnSync(command, args, { cwd, stdio: ["ignore", "ignore", "ignore"], maxBuffer: 1 << 28 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (run.error) return run.error.message;
  return ms;
}

function inProcessMs(sources: { path: string; text: string }[], passes: number): number {
  const times: number[] = [];
  for (let i = 0; i < passes; i++) {
    const start = process.hrtime.bigint();
    for (const s of sources) {
      const r = parsePuppet(s.text, { file: s.path });
      if (r.ok) renderPnJson(toPn(r.program));
    }
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(times);
}

function main(): void {
  const { values } = parseArgs({
    options: { iterations: { type: "string", default: "3" }, json: { type: "boolean" } },
  });
  const iterations = Math.max(1, Number(values.iterations));
  const files = corpusFiles(INPUTS).map((f) => relative(INPUTS, f));
  const sources = files.map((path) => ({ path, text: readFileSync(join(INPUTS, path), "utf8") }));
  const bytes = sources.reduce((n, s) => n + Buffer.byteLength(s.text), 0);

  const hasPuppet = spawnSync("puppet", ["--version"], { stdio: "ignore" }).status === 0;
  const tendRuns: number[] = [];
  const puppetRuns: number[] = [];
  const puppetStartRuns: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t = wallMs(TEND, ["puppet", "parser", "dump", ...files], INPUTS);
    if (typeof t === "number") tendRuns.push(t);
    if (!hasPuppet) continue;
    const p = wallMs("puppet", ["parser", "dump", "--format", "json", ...files], INPUTS);
    if (typeof p === "number") puppetRuns.push(p);
    const s = wallMs("puppet", ["parser", "dump", "--format", "json", "-e", ""], INPUTS);
    if (typeof s === "number") puppetStartRuns.push(s);
  }
  const inProcess = inProcessMs(sources, Math.max(5, iterations));
  const result = {
    files: files.length,
    bytes,
    tendWallMs: median(tendRuns),
    tendInProcessMs: inProcess,
    puppetWallMs: hasPuppet ? median(puppetRuns) : null,
    puppetStartMs: hasPuppet ? median(puppetStartRuns) : null,
    ratio: hasPuppet ? median(tendRuns) / median(puppetRuns) : null,
  };
  if (values.json) {
    console.log(JSON.stringify(result, null, 2));
    return;
  }
  const fmt = (ms: number | null) => (ms === null ? "-" : `${ms.toFixed(0).padStart(7)} ms`);
  console.log(
    `Puppet parser: ${files.length} manifests, ${(bytes / 1024).toFixed(0)} KiB (median of ${iterations})`,
  );
  console.log(`  tend puppet parser dump (process)     ${fmt(result.tendWallMs)}`);
  console.log(`  tend parse + render (in process)      ${fmt(result.tendInProcessMs)}`);
  if (!hasPuppet) {
    console.log("  puppet: skipped (puppet is not installed)");
    return;
  }
  console.log(`  puppet parser dump --format json      ${fmt(result.puppetWallMs)}`);
  console.log(`  puppet parser dump -e '' (start-up)   ${fmt(result.puppetStartMs)}`);
  console.log(`  ratio tend/puppet (wall)              ${(result.ratio ?? 0).toFixed(3)}x`);
  const puppetParse = (result.puppetWallMs ?? 0) - (result.puppetStartMs ?? 0);
  if (puppetParse > 0) {
    console.log(
      `  ratio without start-ups (in process / puppet minus start-up) ${(inProcess / puppetParse).toFixed(3)}x`,
    );
  }
}

main();
