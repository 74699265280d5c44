/**
 * Running one acceptance test: each agent pass in its own process group with
 * a time limit, its output captured to a file, and the passes of a timed test
 * chained through `Wait/<seconds>` until it reaches a final outcome.
 */
import { spawn } from "node:child_process";
import { appendFileSync, closeSync, openSync, readFileSync } from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";
import { classifyRun, describeFailure, type Outcome, type RunFacts, type Verdict } from "./classify.js";
import type { TestCase } from "./discover.js";
import {
  type AgentSource,
  getAgentArgs,
  getWorkDir,
  resetWorkDir,
  type WorkDir,
  writeRunScript,
} from "./workdir.js";

/** Everything a test run needs to know about the run it belongs to. */
export interface RunContext {
  readonly suite: string;
  readonly workBase: string;
  readonly logDir: string;
  readonly agent: string;
  readonly source: AgentSource;
  readonly diff: string | undefined;
  readonly classes: string;
  readonly verbose: boolean;
  readonly timeoutSeconds: number;
  /** A command (such as `fakeroot`) every test runs under, as testall's GAINROOT. */
  readonly gainroot: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  /** Process groups still running, so an interrupted run can end them. */
  readonly running: Set<number>;
}

/** The final result of one test. */
export interface TestResult {
  readonly test: TestCase;
  readonly outcome: Outcome;
  readonly message: string;
  /** For failures: the last lines of the output, on one line. */
  readonly reason?: string;
  readonly passes: number;
  readonly seconds: number;
  readonly log: string;
}

/** Hooks the scheduler provides: take and give back a job slot around each pass. */
export interface PassGate {
  acquire(): Promise<void>;
  release(): void;
}

function spawnPass(ctx: RunContext, dir: WorkDir, outFile: string): Promise<RunFacts> {
  const fd = openSync(outFile, "w");
  const [command, ...prefix] = [...ctx.gainroot, "/bin/sh"];
  const child = spawn(command!, [...prefix, dir.script], {
    cwd: ctx.suite,
    env: ctx.env,
    detached: true,
    stdio: ["ignore", fd, fd],
  });
  closeSync(fd);
  const pid = child.pid;
  if (pid !== undefined) ctx.running.add(pid);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(pid);
  }, ctx.timeoutSeconds * 1000);
  return new Promise((resolve) => {
    const finish = (status: number) => {
      clearTimeout(timer);
      if (pid !== undefined) ctx.running.delete(pid);
      resolve({ output: readFileSync(outFile, "utf8"), status, timedOut });
    };
    child.on("error", (error) => {
      appendFileSync(outFile, `conformance: cannot start the test: ${error.message}\n`);
      finish(127);
    });
    child.on("exit", (code, signal) => finish(code ?? 128 + (signal ? constants.signals[signal] : 9)));
  });
}

/** Ends a test's whole process group; a group that is already gone is fine. */
export function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already exited.
  }
}

function logPass(log: string, header: string, run: RunFacts, verdict: Verdict): void {
  const status = run.timedOut ? "killed after the time limit" : `Return code is ${run.status}.`;
  appendFileSync(log, `${header}\n${run.output}\n${status}\n\n  ==> ${verdict.message}\n\n`);
}

/** A pass's verdict, with the failure hint when it failed. */
type PassVerdict = Verdict & { readonly reason?: string };

async function runPass(
  ctx: RunContext,
  test: TestCase,
  pass: number | undefined,
  log: string,
): Promise<PassVerdict> {
  const dir = getWorkDir(ctx.workBase, test.path);
  if (pass === undefined || pass === 1) resetWorkDir(dir, ctx.source, ctx.diff);
  const script = writeRunScript(
    dir,
    ctx.suite,
    ctx.agent,
    getAgentArgs(test.path, ctx.classes, pass, ctx.verbose),
  );
  const run = await spawnPass(ctx, dir, join(dir.root, "output.log"));
  const verdict = classifyRun(test.path, test.type, run, pass !== undefined);
  const title = pass === undefined ? test.path : `${test.path} (pass ${pass})`;
  logPass(log, `${"-".repeat(70)}\n${title}\n${"-".repeat(70)}\n${script}`, run, verdict);
  if (verdict.outcome !== "Pass" && verdict.outcome !== "Wait" && verdict.outcome !== "Skip") {
    return { ...verdict, reason: describeFailure(test.path, run.output) };
  }
  return verdict;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Runs `test` to its final outcome. A timed test runs with `test_pass_1`
 * defined and, each time it answers `Wait/<seconds>`, gives back its job slot,
 * sleeps, and runs again with the next pass's class in the same work directory.
 */
export async function runTest(ctx: RunContext, test: TestCase, gate: PassGate): Promise<TestResult> {
  const log = join(ctx.logDir, `${test.path.replace(/^\.\//, "").replace(/\//g, "__")}.log`);
  const started = Date.now();
  const timed = test.type === "timed";
  let pass = timed ? 1 : undefined;
  for (;;) {
    await gate.acquire();
    let verdict: PassVerdict;
    try {
      verdict = await runPass(ctx, test, pass, log);
    } finally {
      gate.release();
    }
    if (verdict.outcome !== "Wait") {
      const seconds = (Date.now() - started) / 1000;
      return { test, ...verdict, passes: pass ?? 1, seconds, log };
    }
    await sleep((verdict.waitSeconds ?? 0) * 1000);
    pass = (pass ?? 1) + 1;
  }
}

/** The result of a test the run skips without starting the agent. */
export function skippedResult(test: TestCase, reason: string, log: string): TestResult {
  return { test, outcome: "Skip", message: `Skipped (${reason})`, passes: 0, seconds: 0, log };
}
