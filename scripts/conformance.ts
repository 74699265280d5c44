/**
 * Runs CFEngine's acceptance suite against tend (or a real cf-agent) the way
 * the suite's own `testall` runs it, and prints per-directory counts.
 *
 *   npm run conformance -- <tests/acceptance> [subdir|test ...]
 *     [--agent tend|cf-agent|/path/to/cf-agent] [--jobs N] [--timeout S] [--json]
 *     [--unsafe] [--staging] [--no-network] [--verbose] [--keep] [--baseline FILE] [--record FILE]
 *
 * Results go to stdout (text, or JSON with --json); progress and notes to
 * stderr. The last text line is `N passed, N failed, N skipped`. The exit
 * status is 1 when any test failed, 2 on a usage or setup error.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  DEFAULT_TYPES,
  discoverTests,
  getSkipReason,
  type TestCase,
  type TestType,
} from "./conformance/discover.js";
import {
  type Baseline,
  compareWithBaseline,
  formatCounts,
  formatFailure,
  formatGroups,
  type GroupSummary,
  summarize,
} from "./conformance/report.js";
import {
  killGroup,
  type RunContext,
  runTest,
  skippedResult,
  type TestResult,
} from "./conformance/run-test.js";
import { runBlocks } from "./conformance/schedule.js";
import {
  type AgentSource,
  buildHelpers,
  copySuite,
  getWorkDir,
  populateBin,
  type ToolSource,
} from "./conformance/workdir.js";

const USAGE = `Usage: npm run conformance -- <tests/acceptance> [subdir|test ...] [options]
  --agent tend|cf-agent|PATH  agent under test (default tend; cf-agent is /usr/bin/cf-agent)
  --server tend|cf-serverd|PATH
                              the cf-serverd tests start (sys.cf_serverd); default: tend
                              serverd with the tend agent, the real one beside a real agent
  -j, --jobs N                tests run side by side (default: CPU count)
  --timeout S                 seconds before one agent run is killed (default 300)
  --json                      print a JSON summary on stdout instead of text
  --unsafe                    ALSO run unsafe/ tests: they change this machine
  --staging                   also run staging/ tests (not expected to pass)
  --no-network                skip network/ tests
  --verbose                   run the agent with -v
  --keep                      keep the suite copy and work directories
  --baseline FILE             compare passing tests with a recorded baseline
  --record FILE               write this run's per-directory counts and passing tests as a baseline
`;

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

interface Options {
  suite: string;
  selection: string[];
  agent: string;
  server: string | undefined;
  jobs: number;
  timeout: number;
  json: boolean;
  types: Set<TestType>;
  verbose: boolean;
  keep: boolean;
  baseline: string | undefined;
  record: string | undefined;
}

function parseOptions(argv: string[]): Options {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      agent: { type: "string", default: "tend" },
      server: { type: "string" },
      jobs: { type: "string", short: "j" },
      timeout: { type: "string", default: "300" },
      json: { type: "boolean", default: false },
      unsafe: { type: "boolean", default: false },
      staging: { type: "boolean", default: false },
      "no-network": { type: "boolean", default: false },
      verbose: { type: "boolean", default: false },
      keep: { type: "boolean", default: false },
      baseline: { type: "string" },
      record: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const [suite, ...selection] = positionals;
  if (suite === undefined) throw new UsageError("the path to tests/acceptance is required");
  const types = new Set(DEFAULT_TYPES);
  if (values.unsafe) types.add("unsafe");
  if (values.staging) types.add("staging");
  if (values["no-network"]) types.delete("network");
  return {
    suite: resolve(suite),
    selection,
    agent: values.agent!,
    server: values.server,
    jobs: toPositive(values.jobs ?? String(availableParallelism()), "--jobs"),
    timeout: toPositive(values.timeout!, "--timeout"),
    json: values.json!,
    types,
    verbose: values.verbose!,
    keep: values.keep!,
    baseline: values.baseline,
    record: values.record === undefined ? undefined : resolve(values.record),
  };
}

class UsageError extends Error {}

function toPositive(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0)
    throw new UsageError(`${flag} needs a positive number, not '${text}'`);
  return value;
}

function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

const TEND_SOURCE = {
  kind: "tend",
  node: process.execPath,
  script: join(repoRoot, "bin", "tend.js"),
} as const;

/** Where cf-serverd comes from when `--server` names it, and how the record names it. */
function resolveServer(choice: string | undefined): { source?: ToolSource; version?: string } {
  if (choice === undefined) return {};
  if (choice === "tend") return { source: TEND_SOURCE, version: "tend serverd" };
  const server = choice === "cf-serverd" ? "/usr/bin/cf-serverd" : resolve(choice);
  if (!existsSync(server)) throw new UsageError(`no cf-serverd at ${server}`);
  const version = execFileSync(server, ["-V"], { encoding: "utf8" }).split("\n")[0]!.trim();
  return { source: { kind: "binaries", dir: dirname(server) }, version: `cf-serverd ${version}` };
}

/** The agent command, where its sibling tools come from, and a version string for the record. */
function resolveAgent(
  choice: string,
  serverChoice: string | undefined,
  base: string,
): { agent: string; source: AgentSource; version: string } {
  const server = resolveServer(serverChoice);
  const serverNote = server.version === undefined ? "" : ` with ${server.version}`;
  if (choice === "tend") {
    const source: AgentSource = { ...TEND_SOURCE, ...(server.source ? { server: server.source } : {}) };
    const bin = join(base, "tend-bin");
    mkdirSync(bin);
    populateBin(bin, source, undefined);
    const probe = spawnSync(source.node, [source.script, "agent", "--help"], { stdio: "ignore" });
    if (probe.status !== 0)
      process.stderr.write("conformance: `tend agent --help` fails: expect every test to fail\n");
    const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string };
    return { agent: join(bin, "cf-agent"), source, version: `tend ${pkg.version}${serverNote}` };
  }
  const agent = choice === "cf-agent" ? "/usr/bin/cf-agent" : resolve(choice);
  if (!existsSync(agent)) throw new UsageError(`no agent at ${agent}`);
  const version = execFileSync(agent, ["-V"], { encoding: "utf8" }).split("\n")[0]!.trim();
  const source: AgentSource = {
    kind: "binaries",
    dir: dirname(agent),
    ...(server.source ? { server: server.source } : {}),
  };
  return { agent, source, version: `${version}${serverNote}` };
}

/** The environment testall exports to every test. */
function buildEnv(options: Options, agent: string, source: AgentSource): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GREP_OPTIONS: "",
    BASECLASSES: "AUTO",
    EXTRACLASSES: "DEBUG",
  };
  delete env.CFENGINE_TEST_OVERRIDE_WORKDIR;
  const flags: [string, TestType][] = [
    ["COMMON_TESTS", "common"],
    ["TIMED_TESTS", "timed"],
    ["SLOW_TESTS", "slow"],
    ["ERROREXIT_TESTS", "errorexit"],
    ["ERRORLOG_TESTS", "errorlog"],
    ["SERIAL_TESTS", "serial"],
    ["NETWORK_TESTS", "network"],
    ["LIBXML2_TESTS", "libxml2"],
    ["LIBCURL_TESTS", "libcurl"],
    ["UNSAFE_TESTS", "unsafe"],
    ["STAGING_TESTS", "staging"],
  ];
  for (const [name, type] of flags) env[name] = options.types.has(type) ? "1" : "0";
  env.AGENT = agent;
  if (source.kind === "binaries") env.CF_PROMISES = join(source.dir, "cf-promises");
  return env;
}

function warnUnsafe(): void {
  const bar = "!".repeat(72);
  process.stderr.write(
    `${bar}\n!! --unsafe: tests under unsafe/ WILL CHANGE THIS MACHINE (users, files outside /tmp).\n` +
      `!! Only do this on a disposable machine or container.\n${bar}\n`,
  );
}

interface Run {
  readonly options: Options;
  readonly ctx: RunContext;
  readonly version: string;
  readonly base: string;
}

function setUp(options: Options): Run {
  if (!existsSync(join(options.suite, "default.cf.sub"))) {
    throw new UsageError(`${options.suite} does not look like tests/acceptance (no default.cf.sub)`);
  }
  const base = mkdtempSync(join(tmpdir(), "tend-conformance-"));
  const suite = join(base, "suite");
  copySuite(options.suite, suite);
  for (const note of buildHelpers(suite, base)) process.stderr.write(`conformance: ${note}\n`);
  const { agent, source, version } = resolveAgent(options.agent, options.server, base);
  const logDir = join(base, "logs");
  mkdirSync(logDir);
  const fakeroot = process.getuid?.() !== 0 ? findOnPath("fakeroot") : undefined;
  const ctx: RunContext = {
    suite,
    workBase: join(base, "work"),
    logDir,
    agent,
    source,
    diff: findOnPath("diff"),
    classes: "AUTO,DEBUG",
    verbose: options.verbose,
    timeoutSeconds: options.timeout,
    gainroot: fakeroot ? [fakeroot] : [],
    env: buildEnv(options, agent, source),
    running: new Set(),
  };
  return { options, ctx, version, base };
}

function printLine(options: Options, line: string): void {
  (options.json ? process.stderr : process.stdout).write(`${line}\n`);
}

async function runSelected(run: Run, tests: readonly TestCase[]): Promise<TestResult[]> {
  const { options, ctx } = run;
  let done = 0;
  const progress = process.stderr.isTTY && !options.json;
  return runBlocks(tests, options.jobs, async (test, gate) => {
    const skip = getSkipReason(test, options.types);
    const result = skip === undefined ? await runTest(ctx, test, gate) : skippedResult(test, skip, "");
    if (!options.keep) rmSync(getWorkDir(ctx.workBase, test.path).root, { recursive: true, force: true });
    done++;
    if (progress) process.stderr.write(`\r[${done}/${tests.length}] `);
    if (result.outcome === "FAIL" || result.outcome === "XFAIL" || result.outcome === "FLAKEY") {
      if (progress) process.stderr.write("\r");
      printLine(options, formatFailure(result));
    }
    return result;
  });
}

function loadBaseline(path: string): Baseline {
  return JSON.parse(readFileSync(path, "utf8")) as Baseline;
}

/** Writes the baseline `--record` asks for: facts measured from this run's agent. */
function recordBaseline(run: Run, path: string, groups: Record<string, GroupSummary>): void {
  const { options } = run;
  const baseline = {
    agent: run.version,
    suite: "cfengine/core tests/acceptance",
    recorded: new Date().toISOString().slice(0, 10),
    conditions: {
      network: options.types.has("network"),
      unsafe: options.types.has("unsafe"),
      staging: options.types.has("staging"),
      root: process.getuid?.() === 0,
    },
    directories: groups,
  };
  writeFileSync(path, `${JSON.stringify(baseline, null, 2)}\n`);
}

function report(run: Run, results: TestResult[], seconds: number): void {
  const { options } = run;
  const { groups, totals } = summarize(results);
  if (options.record) recordBaseline(run, options.record, groups);
  const comparison = options.baseline
    ? compareWithBaseline(groups, loadBaseline(options.baseline))
    : undefined;
  const logDir = run.ctx.logDir;
  if (options.json) {
    const tests = results.map(({ test, outcome, message, reason, passes, seconds: s, log }) => ({
      test: test.path,
      directory: test.group,
      type: test.type,
      outcome,
      message,
      ...(reason === undefined ? {} : { reason }),
      passes,
      seconds: Math.round(s * 10) / 10,
      ...(log ? { log } : {}),
    }));
    const summary = {
      agent: run.version,
      suite: options.suite,
      seconds,
      logDir,
      totals,
      directories: groups,
    };
    process.stdout.write(`${JSON.stringify({ ...summary, comparison, tests }, null, 2)}\n`);
    return;
  }
  process.stdout.write(`\n${formatGroups(groups).join("\n")}\n`);
  for (const row of comparison ?? []) {
    process.stdout.write(`baseline ${row.group}: ${row.lost.length} lost, ${row.gained.length} gained\n`);
    for (const test of row.lost) process.stdout.write(`  lost ${test}\n`);
  }
  process.stdout.write(`agent: ${run.version}; ${Math.round(seconds)} s; logs: ${logDir}\n`);
  process.stdout.write(`${formatCounts(totals)}\n`);
}

function cleanUp(run: Run): void {
  if (run.options.keep) {
    process.stderr.write(`conformance: kept suite copy and work directories under ${run.base}\n`);
    return;
  }
  for (const dir of ["suite", "work", "tend-bin", "include"])
    rmSync(join(run.base, dir), { recursive: true, force: true });
}

async function main(argv: string[]): Promise<number> {
  const options = parseOptions(argv);
  if (options.types.has("unsafe")) warnUnsafe();
  const run = setUp(options);
  process.on("SIGINT", () => {
    for (const pid of run.ctx.running) killGroup(pid);
    cleanUp(run);
    process.exit(130);
  });
  const tests = discoverTests(run.ctx.suite, options.selection);
  const started = Date.now();
  const results = await runSelected(run, tests);
  const seconds = (Date.now() - started) / 1000;
  report(run, results, seconds);
  writeFileSync(
    join(run.ctx.logDir, "summary.txt"),
    results.map((r) => `${r.outcome} ${r.test.path}\n`).join(""),
  );
  cleanUp(run);
  return results.some((r) => r.outcome === "FAIL") ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const usage =
      error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS");
    process.stderr.write(`conformance: ${error instanceof Error ? error.message : String(error)}\n`);
    if (usage) process.stderr.write(USAGE);
    process.exitCode = 2;
  },
);
