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
 * - in process: parse and render the corpus (PN JSON) pass after pass, in
 *   this process for tend and in one Ruby process for Puppet (Puppet's
 *   parser and PN transformer called directly): CPU time of a pass, the
 *   first (cold) and the median of the rest (warm), start-up excluded.
 * - the generated environment of bench/puppet-compile.ts (100 class files of
 *   100 `file` resources each): lexing, parsing and validating its files in a
 *   fresh process, the trees kept as a compile keeps them (CPU time, median
 *   of N; V8 flags as bin/tend.js sets them). No Puppet row: Puppet's
 *   parser alone cannot be timed apart from its start-up but in process.
 * Ratios are tend's time over Puppet's. Puppet's rows are skipped with the
 * reason when Puppet is absent.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { parsePuppet, renderPnJson, toPn, validatePuppet } from "../src/puppet/lang/index.js";
import { median, TEND } from "./measure.js";
import { generateEnvironment } from "./puppet-compile.js";

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

interface Passes {
  cold: number;
  warm: number;
}

function inProcessMs(sources: { path: string; text: string }[], passes: number): Passes {
  const times: number[] = [];
  for (let i = 0; i < passes; i++) {
    const start = process.cpuUsage();
    for (const s of sources) {
      const r = parsePuppet(s.text, { file: s.path });
      if (r.ok) renderPnJson(toPn(r.program));
    }
    const used = process.cpuUsage(start);
    times.push((used.user + used.system) / 1000);
  }
  return { cold: times[0] ?? 0, warm: median(times.slice(1)) };
}

/** Puppet's parser and PN rendering over the same files in one Ruby process: CPU ms per pass. */
const RUBY_PASSES = `
$VERBOSE = nil
require 'puppet'; require 'puppet/pops'; require 'puppet/pops/pn'; require 'json'; require 'tmpdir'
Puppet.initialize_settings(['--confdir', Dir.mktmpdir])
texts = ARGV[1..].map { |f| File.read(File.join(ARGV[0], f), encoding: 'utf-8') }
Integer(ENV.fetch('PASSES', '3')).times do
  t = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
  texts.each do |s|
    begin
      m = Puppet::Pops::Parser::Parser.new.parse_string(s, nil)
      JSON.dump(Puppet::Pops::Model::PNTransformer.transform(m).to_data)
    rescue StandardError, ScriptError
    end
  end
  puts ((Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - t) * 1000).round(1)
end
`;

function puppetInProcessMs(files: string[], passes: number): Passes | null {
  const run = spawnSync("ruby", ["-e", RUBY_PASSES, INPUTS, ...files], {
    encoding: "utf8",
    env: { ...process.env, PASSES: String(passes) },
    maxBuffer: 1 << 24,
  });
  if (run.status !== 0) return null;
  const times = run.stdout.trim().split("\n").map(Number);
  return { cold: times[0] ?? 0, warm: median(times.slice(1)) };
}

/** In a child process: parse and validate every manifest of `dir`, keeping the trees; prints CPU ms. */
function generatedChild(dir: string): void {
  const texts = readdirSync(dir)
    .filter((f) => f.endsWith(".pp"))
    .sort()
    .map((f) => ({ path: join(dir, f), text: readFileSync(join(dir, f), "utf8") }));
  const kept: unknown[] = [];
  const start = process.cpuUsage();
  for (const t of texts) {
    const r = parsePuppet(t.text, { file: t.path });
    if (!r.ok) throw new Error(`${t.path}: ${r.error.message}`);
    kept.push(r.program, validatePuppet(r.program));
  }
  const used = process.cpuUsage(start);
  console.log(JSON.stringify({ files: kept.length / 2, cpuMs: (used.user + used.system) / 1000 }));
}

/** Cold lex + parse + validate of the generated environment's 100 class files: CPU ms, median of `runs`. */
function generatedMs(runs: number): { files: number; cpuMs: number } | null {
  const root = mkdtempSync(join(tmpdir(), "tend-bench-parse-"));
  try {
    generateEnvironment(join(root, "code"), 100, 100);
    const dir = join(root, "code", "modules", "gen", "manifests");
    // bin/tend.js's tier-up thresholds (V8 11's interrupt budget, V8 12's invocation counts),
    // so that code tiers up as in a run of tend.
    const flags =
      Number(process.versions.v8.split(".")[0]) < 12
        ? ["--interrupt-budget=1081344"]
        : ["--invocation-count-for-turbofan=48000", "--invocation-count-for-maglev=6400"];
    const self = fileURLToPath(import.meta.url);
    const times: number[] = [];
    let files = 0;
    for (let i = 0; i < runs; i++) {
      const run = spawnSync(process.execPath, [...flags, self, "--generated-child", dir], {
        encoding: "utf8",
      });
      if (run.status !== 0) return null;
      const r = JSON.parse(run.stdout) as { files: number; cpuMs: number };
      files = r.files;
      times.push(r.cpuMs);
    }
    return { files, cpuMs: median(times) };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function main(): void {
  const { values } = parseArgs({
    options: {
      iterations: { type: "string", default: "3" },
      json: { type: "boolean" },
      "generated-child": { type: "string" },
    },
  });
  if (values["generated-child"] !== undefined) {
    generatedChild(values["generated-child"]);
    return;
  }
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
  const passes = Math.max(4, iterations + 1);
  const inProcess = inProcessMs(sources, passes);
  const puppetInProcess = hasPuppet ? puppetInProcessMs(files, passes) : null;
  const generated = generatedMs(Math.max(3, iterations));
  const result = {
    files: files.length,
    bytes,
    tendWallMs: median(tendRuns),
    tendInProcessMs: inProcess,
    puppetWallMs: hasPuppet ? median(puppetRuns) : null,
    puppetStartMs: hasPuppet ? median(puppetStartRuns) : null,
    puppetInProcessMs: puppetInProcess,
    ratio: hasPuppet ? median(tendRuns) / median(puppetRuns) : null,
    generated,
  };
  if (values.json) {
    console.log(JSON.stringify(result, null, 2));
    return;
  }
  const fmt = (ms: number | null) => (ms === null ? "-" : `${ms.toFixed(0).padStart(7)} ms`);
  console.log(
    `Puppet parser: ${files.length} manifests, ${(bytes / 1024).toFixed(0)} KiB (median of ${iterations})`,
  );
  console.log(`  tend puppet parser dump (process, wall)         ${fmt(result.tendWallMs)}`);
  console.log(
    `  tend parse + PN JSON in process, cold / warm    ${fmt(inProcess.cold)} / ${fmt(inProcess.warm)} CPU`,
  );
  console.log(
    generated === null
      ? "  generated environment: failed"
      : `  generated environment, ${generated.files} files, 10,000 resources: lex + parse + validate, cold ${fmt(generated.cpuMs)} CPU`,
  );
  if (!hasPuppet) {
    console.log("  puppet: skipped (puppet is not installed)");
    return;
  }
  console.log(`  puppet parser dump --format json (wall)         ${fmt(result.puppetWallMs)}`);
  console.log(`  puppet parser dump -e '' (start-up, wall)       ${fmt(result.puppetStartMs)}`);
  if (puppetInProcess) {
    console.log(
      `  puppet parse + PN JSON in process, cold / warm  ${fmt(puppetInProcess.cold)} / ${fmt(puppetInProcess.warm)} CPU`,
    );
  }
  console.log(`  ratio tend/puppet, whole command (wall)         ${(result.ratio ?? 0).toFixed(3)}x`);
  if (puppetInProcess) {
    const cold = inProcess.cold / puppetInProcess.cold;
    const warm = inProcess.warm / puppetInProcess.warm;
    console.log(
      `  ratio tend/puppet in process, cold / warm       ${cold.toFixed(3)}x / ${warm.toFixed(3)}x`,
    );
  }
}

main();
