/**
 * Differential scenarios for the evaluation engine: every
 * `test/scenarios/agent/NNN-name.cf` runs through `tend agent -K`, and its
 * report lines and exit code must match `NNN-name.expected`, which holds
 * what cf-agent 3.21 printed for the same policy.
 *
 * - `TEND_RECORD=1` (with cf-agent installed) records the expectations
 *   from cf-agent instead of testing tend.
 * - `TEND_SCENARIO=regex` runs only the scenarios whose name matches.
 * - `TEND_BIN=path/to/tend.js` tests another build of tend.
 * - Scenarios listed in `KNOWN-FAILURES.md` are marked `todo`.
 *
 * A scenario may start with header comments: `# args: -D a,b -b x` (more
 * command-line arguments) and `# runs: 2` (run it that many times in one
 * work directory; the expectation is the outputs one after another).
 * Each run gets a fresh temporary work directory; its path and the
 * scenario folder's path are replaced by `$WORKDIR` and `$DIR`.
 */
import { spawn, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const scenarioDir = join(repoRoot, "test", "scenarios", "agent");
/** `TEND_BIN` runs another build of tend (say, a snapshot of `dist`). */
const tendBin = process.env.TEND_BIN ?? join(repoRoot, "bin", "tend.js");
const POOL_SIZE = 4;
const RUN_TIMEOUT_MS = 30_000;

type Engine = "tend" | "cf-agent";

interface Scenario {
  readonly name: string;
  readonly file: string;
  readonly args: readonly string[];
  readonly runs: number;
}

interface ProcessResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The scenarios, in order of their numbers. */
function listScenarios(): Scenario[] {
  const filter = process.env.TEND_SCENARIO ? new RegExp(process.env.TEND_SCENARIO) : undefined;
  return readdirSync(scenarioDir)
    .filter((f) => /^\d{3}-.*\.cf$/.test(f))
    .sort()
    .map((file) => readScenario(file))
    .filter((s) => !filter || filter.test(s.name));
}

function readScenario(file: string): Scenario {
  const text = readFileSync(join(scenarioDir, file), "utf8");
  let args: string[] = [];
  let runs = 1;
  for (const line of text.split("\n")) {
    if (!line.startsWith("#")) break;
    const header = /^#\s*(args|runs):\s*(.*)$/.exec(line);
    if (header?.[1] === "args") args = header[2].trim().split(/\s+/).filter(Boolean);
    if (header?.[1] === "runs") runs = Number(header[2]);
  }
  return { name: file.slice(0, -3), file, args, runs };
}

/** `- NNN-name: reason` lines of KNOWN-FAILURES.md. */
function knownFailures(): Map<string, string> {
  const known = new Map<string, string>();
  const path = join(scenarioDir, "KNOWN-FAILURES.md");
  if (!existsSync(path)) return known;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const match = /^- `?(\d{3}-[\w.-]+?)`?:\s*(.*)$/.exec(line);
    if (match) known.set(match[1], match[2]);
  }
  return known;
}

function hasCfAgent(): boolean {
  const probe = spawnSync("cf-agent", ["--version"], { encoding: "utf8" });
  return probe.status === 0;
}

let keyTemplate: string | undefined;

/** A work directory with keys made once, so cf-agent can start quickly. */
function cfAgentKeys(): string {
  if (keyTemplate) return keyTemplate;
  keyTemplate = mkdtempSync(join(tmpdir(), "tend-scenario-keys-"));
  spawnSync("cf-key", [], { env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: keyTemplate } });
  return keyTemplate;
}

function makeWorkdir(engine: Engine): string {
  const workdir = mkdtempSync(join(tmpdir(), `tend-scenario-${engine}-`));
  for (const sub of ["bin", "inputs", "state"]) mkdirSync(join(workdir, sub), { recursive: true });
  if (engine === "cf-agent") {
    symlinkSync("/usr/bin/cf-promises", join(workdir, "bin", "cf-promises"));
    const keys = join(cfAgentKeys(), "ppkeys");
    if (existsSync(keys)) cpSync(keys, join(workdir, "ppkeys"), { recursive: true });
  }
  return workdir;
}

function spawnCollect(command: string, args: readonly string[], workdir: string): Promise<ProcessResult> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: workdir };
    delete env.NO_COLOR;
    delete env.FORCE_COLOR;
    const child = spawn(command, [...args], { cwd: scenarioDir, env, timeout: RUN_TIMEOUT_MS });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.on("error", (error) => resolve({ code: null, stdout, stderr: `${stderr}${error.message}` }));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The report lines of one run, with paths made independent of the machine, then the exit code. */
function normalise(result: ProcessResult, workdir: string): string[] {
  const lines = result.stdout
    .split("\n")
    .filter((line) => line.startsWith("R: "))
    .map((line) => line.replaceAll(workdir, "$WORKDIR").replaceAll(scenarioDir.replace(/\/$/, ""), "$DIR"));
  return [...lines, `exit ${result.code ?? "killed"}`];
}

/** Runs a scenario (all its runs) through one engine; the normalised output and stderr. */
async function runScenario(scenario: Scenario, engine: Engine): Promise<{ lines: string[]; stderr: string }> {
  const workdir = makeWorkdir(engine);
  const args = ["-Kf", `./${scenario.file}`, ...scenario.args];
  const lines: string[] = [];
  let stderr = "";
  try {
    for (let run = 0; run < scenario.runs; run++) {
      const result =
        engine === "tend"
          ? await spawnCollect(process.execPath, [tendBin, "agent", ...args], workdir)
          : await spawnCollect("cf-agent", args, workdir);
      lines.push(...normalise(result, workdir));
      stderr += result.stderr;
    }
  } finally {
    rmSync(workdir, { recursive: true, force: true });
  }
  return { lines, stderr };
}

/** Runs tasks at most `size` at a time. */
function makePool(size: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= size) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

function expectedPath(scenario: Scenario): string {
  return join(scenarioDir, `${scenario.name}.expected`);
}

function describeDifference(expected: readonly string[], actual: readonly string[]): string {
  return [
    "expected (cf-agent):",
    ...expected.map((l) => `  ${l}`),
    "actual (tend):",
    ...actual.map((l) => `  ${l}`),
  ].join("\n");
}

const scenarios = listScenarios();
const recording = process.env.TEND_RECORD === "1" && hasCfAgent();
const known = knownFailures();
const pool = makePool(POOL_SIZE);
const engine: Engine = recording ? "cf-agent" : "tend";
const results = new Map(scenarios.map((s) => [s.name, pool(() => runScenario(s, engine))]));

for (const scenario of scenarios) {
  const reason = known.get(scenario.name);
  const options = !recording && reason ? { todo: reason } : {};
  test(`agent scenario ${scenario.name}`, options, async (t) => {
    const result = await (results.get(scenario.name) as ReturnType<typeof runScenario>);
    if (recording) {
      writeFileSync(expectedPath(scenario), `${result.lines.join("\n")}\n`);
      return;
    }
    const expected = readFileSync(expectedPath(scenario), "utf8").replace(/\n$/, "").split("\n");
    const same = expected.length === result.lines.length && expected.every((l, i) => l === result.lines[i]);
    if (!same) {
      const stderr = result.stderr.trim() ? `\nstderr:\n${result.stderr.trim()}` : "";
      throw new Error(`${describeDifference(expected, result.lines)}${stderr}`);
    }
    if (reason) t.diagnostic("passes now: remove it from KNOWN-FAILURES.md");
  });
}

test("KNOWN-FAILURES.md names only existing scenarios", () => {
  const all = new Set(readdirSync(scenarioDir).map((f) => f.replace(/\.cf$/, "")));
  const unknown = [...known.keys()].filter((name) => !all.has(name));
  if (unknown.length > 0) throw new Error(`no such scenarios: ${unknown.join(", ")}`);
});
