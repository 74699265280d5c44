/**
 * The fuzz campaign: mutated policies (of the acceptance suite, tend's
 * fixtures and examples, the masterfiles) through the parser, the
 * validator and, when they validate, a full agent run (a dry run, in a
 * scratch work directory). A failure is an exception out of tend, a case
 * that runs longer than --hang-ms (of CPU time, so that a busy machine does
 * not make hangs; or ten times that of wall time), or a worker that dies
 * (memory past --memory-mb). Each distinct failure is saved, minimised when it is an
 * exception, under --out.
 *
 *   npx tsc -p . && node dist/scripts/fuzz.js [--cases 1000000] [--seed N]
 *     [--jobs 2] [--hang-ms 2000] [--memory-mb 512] [--agent-share 0.12]
 *     [--out DIR] [--seeds DIR ...] [--from N]
 *   node dist/scripts/fuzz.js --replay FILE [--replay FILE ...]
 *
 * Workers are processes. As root they run as `nobody` in a network
 * namespace of their own (unshare, setpriv), so a mutated policy can
 * neither touch the machine nor the network; a policy that would run
 * programs (commands, execresult(), modules...) is parsed and validated
 * but not run: programs are not what is fuzzed here. Not part of npm test
 * (test/language/fuzz.test.ts runs a short parser-and-validator campaign).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { loadSeeds, makeCase } from "./fuzz/mutate.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const NOBODY = 65534;
const DEFAULT_SEEDS = [
  "/tmp/ref/tests/acceptance",
  join(ROOT, "test/fixtures"),
  join(ROOT, "examples"),
  "/var/lib/cfengine3/masterfiles",
];
/** Cases handed to a worker at a time. */
const CHUNK = 1000;

/**
 * What a policy must not contain to be run: anything that starts programs
 * or waits on the world (a name lookup in the workers' empty network
 * namespace waits for the resolver's time-out).
 */
const RUNS_PROGRAMS = new RegExp(
  [
    String.raw`\b(?:execresult|execresult_as_data|returnszero|usemodule|readtcp|selectservers|remoteclassesmatching|remotescalar|hostsseen|peers|peerleader|peerleaders|sleep|host2ip|ip2host|hostinnetgroup|url_get|network_connections)\s*\(`,
    String.raw`\b(?:commands|packages|processes|services|users|storage|databases|guest_environments)\s*:`,
    String.raw`\bpromise\s+agent\b|\bpackage_module\b|\bexec_command\b|\bmodule\s*=>`,
  ].join("|"),
);

// ---- messages between the campaign and its workers ------------------------------

type WorkerMessage =
  | { readonly t: "ready" }
  | { readonly t: "start"; readonly n: number }
  | {
      readonly t: "end";
      readonly n: number;
      readonly ms: number;
      readonly rss: number;
      readonly stage: Stage;
    }
  | { readonly t: "fail"; readonly n: number; readonly stage: Stage; readonly message: string }
  | { readonly t: "cpu"; readonly user: number; readonly system: number };

/** How far a case got: parsed only, validated, or run by the agent. */
type Stage = "parse" | "validate" | "agent";

interface Job {
  readonly from: number;
  readonly to: number;
}

// ---- the worker -----------------------------------------------------------------------

async function worker(
  seed: number,
  seedDirs: readonly string[],
  scratch: string,
  agentShare: number,
  replay: readonly string[] = [],
): Promise<void> {
  const [{ parseText }, { validatePolicy }, { SourceFile }, { hasErrors }, { runAgent }] = await Promise.all([
    import("../src/language/parser.js"),
    import("../src/language/validate/index.js"),
    import("../src/language/source.js"),
    import("../src/language/diagnostics.js"),
    import("../src/agent/run.js"),
  ]);
  const seeds = loadSeeds(seedDirs);
  const send = (message: WorkerMessage) => process.stdout.write(`${JSON.stringify(message)}\n`);
  // An acceptance test includes "../default.cf.sub" (or two or three levels
  // up): the suite's shared files are copied to every level above the case.
  const levels = [join(scratch, "t"), join(scratch, "t", "a"), join(scratch, "t", "a", "b")];
  const policy = join(scratch, "t", "a", "b", "c", "policy.cf");
  mkdirSync(join(scratch, "t", "a", "b", "c"), { recursive: true });
  const suite = seedDirs.find((dir) => existsSync(join(dir, "default.cf.sub")));
  for (const name of ["default.cf.sub", "dcs.cf.sub", "plucked.cf.sub"]) {
    if (suite === undefined) break;
    const text = readFileSync(join(suite, name), "utf8");
    for (const dir of levels) writeFileSync(join(dir, name), text);
  }
  /** Errors another file of the policy may answer (the suite's shared files define bundles and bodies). */
  const elsewhere = new Set(["undefined-bundle", "undefined-body"]);

  const runCase = (n: number): Stage => runText(makeCase(seeds, seed, n), n);
  const runText = (text: string, n: number): Stage => {
    const parsed = parseText(text, "fuzz.cf");
    if (hasErrors(parsed.diagnostics)) return "parse";
    const source = new SourceFile("fuzz.cf", text);
    const diagnostics = validatePolicy({ files: [{ source, policy: parsed.policy }] }, { fullCheck: true });
    const errors = diagnostics.filter((d) => d.severity === "error" && !elsewhere.has(d.code));
    if (errors.length > 0 || RUNS_PROGRAMS.test(text)) return "validate";
    // An agent run costs a hundred parses: a share of the runnable cases, the same ones every time.
    if (n >= 0 && ((Math.imul(n + 1, 0x85ebca6b) >>> 0) % 10_000) / 10_000 >= agentShare) return "validate";
    writeFileSync(policy, text, { mode: 0o600 });
    runAgent(
      {
        file: policy,
        workdir: join(scratch, "work"),
        dryRun: true,
        ignoreLocks: true,
        failsafe: false,
        logLevel: "notice",
      },
      { log: () => {}, report: () => {}, output: () => {} },
    );
    return "agent";
  };

  if (replay.length > 0) {
    // Saved inputs, each through every stage (the agent always), timed.
    for (const path of replay) {
      const started = performance.now();
      let stage: Stage | "failed" = "parse";
      try {
        stage = runText(readFileSync(path, "utf8"), -1);
      } catch (error) {
        stage = "failed";
        process.stdout.write(`${path}: ${(error as Error).stack}\n`);
      }
      process.stdout.write(`${path}: ${stage}, ${(performance.now() - started).toFixed(0)} ms\n`);
    }
    return;
  }
  const lines = createInterface({ input: process.stdin });
  send({ t: "ready" });
  for await (const line of lines) {
    const job = JSON.parse(line) as Job;
    for (let n = job.from; n < job.to; n++) {
      send({ t: "start", n });
      const started = performance.now();
      let stage: Stage = "parse";
      try {
        stage = runCase(n);
      } catch (error) {
        const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
        send({ t: "fail", n, stage, message });
      }
      send({ t: "end", n, ms: performance.now() - started, rss: process.memoryUsage().rss, stage });
    }
    const cpu = process.cpuUsage();
    send({ t: "cpu", user: cpu.user, system: cpu.system });
  }
}

// ---- the campaign -----------------------------------------------------------------------

interface Options {
  readonly cases: number;
  readonly from: number;
  readonly seed: number;
  readonly jobs: number;
  readonly hangMs: number;
  readonly memoryMb: number;
  /** The share of runnable cases the agent runs (0 to 1). */
  readonly agentShare: number;
  readonly out: string;
  readonly seedDirs: readonly string[];
}

interface Failure {
  readonly kind: "exception" | "hang" | "crash";
  readonly n: number;
  readonly stage: Stage | "?";
  readonly message: string;
}

interface Totals {
  done: number;
  stages: Record<Stage, number>;
  cpuMicros: number;
  maxRss: number;
  maxMs: number;
  slowest: number;
  readonly failures: Failure[];
}

/**
 * Where a failure comes from: its kind, first line and innermost frame of
 * tend. A hang or a crash has no stack: each is its own.
 */
function signature(failure: Failure): string {
  if (failure.kind !== "exception")
    return `${failure.kind} (case ${failure.n}): ${failure.message.slice(0, 160)}`;
  const lines = failure.message.split("\n");
  const frame = lines.find((l) => /^\s+at /.test(l) && !l.includes("node:")) ?? "";
  const where = frame.replace(/\(.*\/(src|scripts)\//, "($1/").replace(/:\d+\)$/, ")");
  return `${failure.kind} ${failure.stage}: ${lines[0].slice(0, 160)} ${where.trim()}`;
}

/** A process's CPU time (user + system, ms) from /proc, or null. */
function processCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 a second).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

function sandboxPrefix(): string[] {
  if (process.getuid?.() !== 0) return [];
  const have = (tool: string) => spawnSync("sh", ["-c", `command -v ${tool}`]).status === 0;
  if (!have("unshare") || !have("setpriv")) return [];
  return [
    "unshare",
    "--net",
    "--",
    "setpriv",
    `--reuid=${NOBODY}`,
    `--regid=${NOBODY}`,
    "--clear-groups",
    "--",
  ];
}

class WorkerSlot {
  private child: ChildProcess | undefined;
  private current = -1;
  private timer: NodeJS.Timeout | undefined;
  private pending: Job | undefined;
  private stderr = "";
  /** CPU time of the current worker process, as it last reported it. */
  private cpuMicros = 0;
  /** When the current case started, in wall time and the worker's CPU time (ms). */
  private caseStarted: { wall: number; cpu: number | null } = { wall: 0, cpu: null };

  constructor(
    private readonly options: Options,
    private readonly scratch: string,
    private readonly totals: Totals,
    private readonly nextJob: () => Job | undefined,
    private readonly requeue: (job: Job) => void,
    private readonly onIdle: () => void,
  ) {}

  start(): void {
    this.totals.cpuMicros += this.cpuMicros;
    this.cpuMicros = 0;
    const prefix = sandboxPrefix();
    const argv = [
      `--max-old-space-size=${this.options.memoryMb}`,
      fileURLToPath(import.meta.url),
      "--worker",
      "--seed",
      String(this.options.seed),
      "--scratch",
      this.scratch,
      "--agent-share",
      String(this.options.agentShare),
      ...this.options.seedDirs.flatMap((d) => ["--seeds", d]),
    ];
    const [command, ...args] = [...prefix, process.execPath, ...argv];
    const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] });
    this.child = child;
    this.stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-4000);
    });
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.on("line", (line) => this.receive(JSON.parse(line) as WorkerMessage));
    child.on("exit", (code, signal) => this.exited(child, code, signal));
  }

  private receive(message: WorkerMessage): void {
    const totals = this.totals;
    switch (message.t) {
      case "ready":
        this.feed();
        return;
      case "start":
        this.current = message.n;
        clearTimeout(this.timer);
        this.caseStarted = { wall: Date.now(), cpu: processCpuMs(this.child?.pid) };
        this.timer = setTimeout(() => this.overdue(message.n), this.options.hangMs);
        return;
      case "end":
        clearTimeout(this.timer);
        totals.done++;
        totals.stages[message.stage]++;
        totals.maxRss = Math.max(totals.maxRss, message.rss);
        if (message.ms > totals.maxMs) {
          totals.maxMs = message.ms;
          totals.slowest = message.n;
        }
        if (this.pending && message.n === this.pending.to - 1) {
          this.pending = undefined;
          this.feed();
        }
        return;
      case "fail":
        totals.failures.push({
          kind: "exception",
          n: message.n,
          stage: message.stage,
          message: message.message,
        });
        return;
      case "cpu":
        // Reports are cumulative for the worker process: its last one counts.
        this.cpuMicros = message.user + message.system;
        return;
    }
  }

  private feed(): void {
    const job = this.nextJob();
    if (job === undefined) {
      this.child?.stdin?.end();
      return;
    }
    this.pending = job;
    this.child?.stdin?.write(`${JSON.stringify(job)}\n`);
  }

  /**
   * A case past --hang-ms of wall time: a hang when it also used that much
   * CPU time (or the wall time is ten times the limit); a worker starved by
   * a busy machine gets more time.
   */
  private overdue(n: number): void {
    const { wall, cpu } = this.caseStarted;
    const now = processCpuMs(this.child?.pid);
    const used = now === null || cpu === null ? Number.POSITIVE_INFINITY : now - cpu;
    if (used < this.options.hangMs && Date.now() - wall < 10 * this.options.hangMs) {
      this.timer = setTimeout(() => this.overdue(n), this.options.hangMs - used);
      return;
    }
    this.hung(n);
  }

  private hung(n: number): void {
    this.totals.failures.push({
      kind: "hang",
      n,
      stage: "?",
      message: `ran for more than ${this.options.hangMs} ms`,
    });
    this.restartAfter(n);
  }

  private exited(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (child !== this.child) return;
    clearTimeout(this.timer);
    if (this.pending === undefined && code === 0) {
      this.child = undefined;
      this.totals.cpuMicros += this.cpuMicros;
      this.cpuMicros = 0;
      this.onIdle();
      return;
    }
    const n = this.current;
    this.totals.failures.push({
      kind: "crash",
      n,
      stage: "?",
      message: `the worker exited (${signal ?? `status ${code}`}): ${this.stderr.trim().split("\n").slice(-3).join(" | ")}`,
    });
    this.restartAfter(n);
  }

  /** Drops the worker, counts case n as done, and goes on after it with a new worker. */
  private restartAfter(n: number): void {
    const child = this.child;
    this.child = undefined;
    clearTimeout(this.timer);
    child?.removeAllListeners("exit");
    child?.kill("SIGKILL");
    this.totals.done++;
    const rest = this.pending && n + 1 < this.pending.to ? { from: n + 1, to: this.pending.to } : undefined;
    this.pending = undefined;
    this.start();
    if (rest) this.requeue(rest);
  }
}

async function campaign(options: Options): Promise<Totals> {
  const totals: Totals = {
    done: 0,
    stages: { parse: 0, validate: 0, agent: 0 },
    cpuMicros: 0,
    maxRss: 0,
    maxMs: 0,
    slowest: -1,
    failures: [],
  };
  const scratchRoot = mkdtempSync(join(tmpdir(), "tend-fuzz-"));
  chmodSync(scratchRoot, 0o755);
  let next = options.from;
  const end = options.from + options.cases;
  /** The rest of a job whose worker was dropped: run before new jobs. */
  const requeued: Job[] = [];
  const nextJob = (): Job | undefined => {
    const again = requeued.pop();
    if (again) return again;
    if (next >= end) return undefined;
    const job = { from: next, to: Math.min(end, next + CHUNK) };
    next = job.to;
    return job;
  };
  const started = Date.now();
  const progress = setInterval(() => report(totals, options, started, false), 10_000);
  try {
    await new Promise<void>((done) => {
      let running = options.jobs;
      for (let i = 0; i < options.jobs; i++) {
        const scratch = join(scratchRoot, `w${i}`);
        mkdirSync(scratch);
        if (process.getuid?.() === 0) chownSync(scratch, NOBODY, NOBODY);
        const requeue = (job: Job) => requeued.push(job);
        const slot = new WorkerSlot(options, scratch, totals, nextJob, requeue, () => {
          if (--running === 0) done();
        });
        slot.start();
      }
    });
  } finally {
    clearInterval(progress);
    rmSync(scratchRoot, { recursive: true, force: true });
  }
  report(totals, options, started, true);
  return totals;
}

function report(totals: Totals, options: Options, started: number, final: boolean): void {
  const seconds = (Date.now() - started) / 1000;
  const rate = totals.done / Math.max(seconds, 0.001);
  const line =
    `${totals.done}/${options.cases} cases, ${rate.toFixed(0)}/s; parsed only ${totals.stages.parse}, ` +
    `validated ${totals.stages.validate}, agent runs ${totals.stages.agent}; ${totals.failures.length} failures`;
  process.stderr.write(`${final ? "" : "… "}${line}\n`);
  if (!final) return;
  process.stdout.write(
    [
      `cases: ${totals.done} (seed ${options.seed}, from ${options.from})`,
      `  stopped at the parser: ${totals.stages.parse}; at the validator (or not run: programs): ${totals.stages.validate}; agent runs: ${totals.stages.agent}`,
      `wall time: ${seconds.toFixed(0)} s with ${options.jobs} workers; CPU time of the workers: ${(totals.cpuMicros / 1e6).toFixed(0)} s`,
      `slowest case: ${totals.maxMs.toFixed(0)} ms (case ${totals.slowest}); largest worker RSS: ${(totals.maxRss / 1024 / 1024).toFixed(0)} MB`,
      `failures: ${totals.failures.length}`,
      "",
    ].join("\n"),
  );
}

/** Saves one input per distinct failure (minimised when it is an exception) and lists them. */
function saveFailures(totals: Totals, options: Options, seeds: readonly string[]): void {
  const bySignature = new Map<string, Failure>();
  for (const failure of totals.failures)
    if (!bySignature.has(signature(failure))) bySignature.set(signature(failure), failure);
  if (bySignature.size === 0) return;
  mkdirSync(options.out, { recursive: true });
  let k = 0;
  for (const [sig, failure] of bySignature) {
    const input = makeCase(seeds, options.seed, failure.n);
    const name = `seed-${options.seed}-case-${failure.n}`;
    writeFileSync(join(options.out, `${name}.cf`), input);
    writeFileSync(join(options.out, `${name}.txt`), `${sig}\n\n${failure.message}\n`);
    process.stdout.write(`${++k}. ${sig}\n   ${join(options.out, `${name}.cf`)}\n`);
  }
}

/** Runs saved inputs through every stage in one sandboxed worker, each timed. */
function replayFiles(options: Options, files: readonly string[]): void {
  const scratch = mkdtempSync(join(tmpdir(), "tend-fuzz-replay-"));
  chmodSync(scratch, 0o755);
  const copies = files.map((file, i) => {
    const copy = join(scratch, `input-${i}.cf`);
    writeFileSync(copy, readFileSync(file));
    chmodSync(copy, 0o644);
    return copy;
  });
  const work = join(scratch, "work");
  mkdirSync(work);
  if (process.getuid?.() === 0) chownSync(work, NOBODY, NOBODY);
  const [command, ...args] = [
    ...sandboxPrefix(),
    process.execPath,
    `--max-old-space-size=${options.memoryMb}`,
    fileURLToPath(import.meta.url),
    "--worker",
    "--scratch",
    work,
    ...options.seedDirs.flatMap((d) => ["--seeds", d]),
    ...copies.flatMap((c) => ["--replay", c]),
  ];
  const run = spawnSync(command, args, { encoding: "utf8" });
  let output = run.stdout;
  copies.forEach((copy, i) => {
    output = output.split(copy).join(files[i]);
  });
  process.stdout.write(output);
  process.stderr.write(run.stderr);
  rmSync(scratch, { recursive: true, force: true });
}

function parseOptions(): { options: Options; worker: boolean; scratch: string; replay: string[] } {
  const { values } = parseArgs({
    options: {
      cases: { type: "string", default: "1000000" },
      from: { type: "string", default: "0" },
      seed: { type: "string", default: String(0x7e4d2024) },
      jobs: { type: "string", default: String(availableParallelism()) },
      "hang-ms": { type: "string", default: "2000" },
      "memory-mb": { type: "string", default: "512" },
      "agent-share": { type: "string", default: "0.12" },
      out: { type: "string", default: join(process.cwd(), "fuzz-findings") },
      seeds: { type: "string", multiple: true },
      worker: { type: "boolean", default: false },
      scratch: { type: "string", default: "" },
      replay: { type: "string", multiple: true },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      "usage: node dist/scripts/fuzz.js [--cases N] [--from N] [--seed N] [--jobs N] [--hang-ms MS] [--memory-mb MB] [--agent-share S] [--out DIR] [--seeds DIR ...]\n",
    );
    process.exit(0);
  }
  const options: Options = {
    cases: Number(values.cases),
    from: Number(values.from),
    seed: Number(values.seed) >>> 0,
    jobs: Math.max(1, Number(values.jobs)),
    hangMs: Number(values["hang-ms"]),
    memoryMb: Number(values["memory-mb"]),
    agentShare: Number(values["agent-share"]),
    out: resolve(values.out),
    seedDirs: values.seeds ?? DEFAULT_SEEDS.filter(existsSync),
  };
  return { options, worker: values.worker, scratch: values.scratch, replay: values.replay ?? [] };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { options, worker: isWorker, scratch, replay } = parseOptions();
  if (isWorker) {
    await worker(options.seed, options.seedDirs, scratch, options.agentShare, replay);
  } else if (replay.length > 0) {
    replayFiles(options, replay);
  } else {
    const seeds = loadSeeds(options.seedDirs);
    process.stderr.write(`${seeds.length} seed policies from ${options.seedDirs.join(", ")}\n`);
    const totals = await campaign(options);
    saveFailures(totals, options, seeds);
    process.exitCode = totals.failures.length > 0 ? 1 : 0;
  }
}
