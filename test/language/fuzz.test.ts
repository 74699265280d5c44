/**
 * A property test: thousands of random mutations of real policy go through
 * the parser and the validator, and none may throw, hang, or report a place
 * outside the text.
 *
 * The mutations are drawn from a seeded generator, so a run is reproducible:
 * `FUZZ_SEED=<seed> FUZZ_CASE=<n>` replays one case, `FUZZ_CASES=200000`
 * runs a longer campaign, `FUZZ_TRACE=1` names each case before it runs and
 * `FUZZ_HANG_MS` sets how long a case may run before it counts as a hang.
 * The cases run in a worker thread, so a hang or a runaway allocation is
 * stopped and reported like a throw; each failing input is written to the
 * temporary directory and its path is in the failure message.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import type { Diagnostic } from "../../src/language/diagnostics.js";
import { parse } from "../../src/language/parser.js";
import type { PolicySet } from "../../src/language/policy-set.js";
import { validatePolicy } from "../../src/language/validate/index.js";
import { SourceFile } from "../../src/language/source.js";
import { findPolicies, loadSeeds, makeCase } from "../../scripts/fuzz/mutate.js";
import { scratchDirectory } from "../scratch.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const MASTERFILES = "/var/lib/cfengine3/masterfiles";
const SEED = Number(process.env.FUZZ_SEED ?? 0x7e4d2024) >>> 0;
const CASES = Number(process.env.FUZZ_CASES ?? 5000);
const ONLY_CASE = process.env.FUZZ_CASE === undefined ? null : Number(process.env.FUZZ_CASE);
/** `FUZZ_TRACE=1` names each case on stderr before running it. */
const TRACE = process.env.FUZZ_TRACE === "1";
/** A case slower than this is reported; one slower than `HANG_MS` fails the test. */
const SLOW_MS = 200;
// A hang never ends; 10 s leaves room for a loaded CI machine (2 s failed a
// case that takes 0.4 s alone, with the load average at 15).
const HANG_MS = Number(process.env.FUZZ_HANG_MS ?? 10_000);

// ---- properties ---------------------------------------------------------------

function assertSpan(span: unknown, length: number, what: string): void {
  assert.ok(Array.isArray(span) && span.length === 2, `${what}: no span`);
  const [start, end] = span as [number, number];
  assert.ok(
    Number.isInteger(start) && Number.isInteger(end),
    `${what}: span [${start}, ${end}] is not whole`,
  );
  assert.ok(
    0 <= start && start <= end && end <= length,
    `${what}: span [${start}, ${end}] outside 0..${length}`,
  );
}

/** Every node of the tree (anything with a `kind` and a `span`) lies inside the text. */
function assertTreeSpans(node: unknown, length: number, depth = 0): void {
  if (node === null || typeof node !== "object" || depth > 50) return;
  if (Array.isArray(node)) {
    for (const child of node) assertTreeSpans(child, length, depth + 1);
    return;
  }
  const record = node as Record<string, unknown>;
  if (typeof record.kind === "string") assertSpan(record.span, length, `${record.kind} node`);
  for (const [key, value] of Object.entries(record)) {
    if (key !== "span" && key !== "nameSpan") assertTreeSpans(value, length, depth + 1);
  }
}

function assertDiagnostics(diagnostics: readonly Diagnostic[], length: number, file: string): void {
  for (const d of diagnostics) {
    assertSpan(d.span, length, `diagnostic "${d.message}"`);
    assert.equal(d.file, file);
    assert.ok(d.severity === "error" || d.severity === "warning");
    assert.ok(typeof d.message === "string" && d.message.length > 0);
  }
}

/** Runs one input through the parser and the validator and checks what comes back. */
function runCase(text: string): void {
  const source = new SourceFile("fuzz.cf", text);
  const { policy, diagnostics } = parse(source);
  assert.equal(policy.kind, "policy");
  assertTreeSpans(policy, text.length);
  assertDiagnostics(diagnostics, text.length, "fuzz.cf");
  const set: PolicySet = { files: [{ source, policy }] };
  assertDiagnostics(validatePolicy(set, { fullCheck: true }), text.length, "fuzz.cf");
}

function saveFailure(text: string, n: number): string {
  const dir = scratchDirectory("tend-fuzz-");
  const path = join(dir, `seed-${SEED}-case-${n}.cf`);
  writeFileSync(path, text);
  return path;
}

// ---- the worker -------------------------------------------------------------
// Cases run in a worker thread so that a hang or a runaway allocation can be
// stopped, reported with its input, and the run resumed at the next case.

type Report =
  | { readonly type: "start"; readonly n: number }
  | { readonly type: "fail"; readonly n: number; readonly message: string }
  | { readonly type: "end"; readonly n: number; readonly ms: number };

interface Job {
  readonly seeds: readonly string[];
  readonly cases: readonly number[];
}

function runWorker(job: Job, post: (report: Report) => void): void {
  for (const n of job.cases) {
    const text = makeCase(job.seeds, SEED, n);
    if (TRACE) process.stderr.write(`case ${n}: ${text.length} chars\n`);
    post({ type: "start", n });
    const started = performance.now();
    try {
      runCase(text);
    } catch (e) {
      post({ type: "fail", n, message: (e as Error).stack ?? String(e) });
    }
    post({ type: "end", n, ms: performance.now() - started });
  }
}

if (!isMainThread) {
  runWorker(workerData as Job, (report) => parentPort!.postMessage(report));
}

// ---- the test -------------------------------------------------------------------

interface Outcome {
  readonly failures: string[];
  readonly slow: string[];
  /** Time spent in the cases that finished. */
  ms: number;
}

/** Runs `cases` in a worker; on a hang or a crash, reports the case and resumes after it. */
function runCases(seeds: readonly string[], cases: readonly number[], outcome: Outcome): Promise<void> {
  return new Promise((resolve) => {
    const worker = new Worker(new URL(import.meta.url), {
      workerData: { seeds, cases } satisfies Job,
      // The main thread's stack, so that recursion fails here as it would there.
      resourceLimits: { maxOldGenerationSizeMb: 512, stackSizeMb: 1 },
    });
    let current = -1;
    let timer: NodeJS.Timeout | undefined;
    const resumeAfter = (n: number, why: string) => {
      clearTimeout(timer);
      const path = saveFailure(makeCase(seeds, SEED, n), n);
      outcome.failures.push(`case ${n} ${why} (replay: FUZZ_SEED=${SEED} FUZZ_CASE=${n}; input: ${path})`);
      const rest = cases.slice(cases.indexOf(n) + 1);
      worker.removeAllListeners();
      worker.on("error", () => {});
      void worker
        .terminate()
        .then(() => (rest.length ? runCases(seeds, rest, outcome) : undefined))
        .then(resolve);
    };
    worker.on("message", (report: Report) => {
      if (report.type === "start") {
        current = report.n;
        clearTimeout(timer);
        timer = setTimeout(() => resumeAfter(report.n, `ran for more than ${HANG_MS} ms`), HANG_MS);
      } else if (report.type === "fail") {
        const path = saveFailure(makeCase(seeds, SEED, report.n), report.n);
        outcome.failures.push(
          `case ${report.n} threw (replay: FUZZ_SEED=${SEED} FUZZ_CASE=${report.n}; input: ${path}):\n${report.message}`,
        );
      } else if (report.type === "end") {
        outcome.ms += report.ms;
        if (report.ms <= SLOW_MS) return;
        const path = saveFailure(makeCase(seeds, SEED, report.n), report.n);
        outcome.slow.push(`case ${report.n}: ${report.ms.toFixed(0)} ms (input: ${path})`);
      }
    });
    worker.on("error", (e) => {
      if (current >= 0) resumeAfter(current, `crashed the worker: ${e.message}`);
      else outcome.failures.push(`the fuzz worker failed before its first case: ${e.stack}`);
    });
    worker.on("exit", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

if (isMainThread) {
  test("inputs that once crashed or hung tend parse and validate quickly", () => {
    for (const path of findPolicies(join(ROOT, "test/fixtures/fuzz/crashes"))) {
      const started = performance.now();
      runCase(readFileSync(path, "utf8"));
      const ms = performance.now() - started;
      assert.ok(ms < HANG_MS, `${path} took ${ms.toFixed(0)} ms`);
    }
  });
}

if (isMainThread) {
  const seeds = loadSeeds([join(ROOT, "test/fixtures"), join(ROOT, "examples"), MASTERFILES]);
  const count = ONLY_CASE === null ? CASES : 1;
  test(`fuzz: ${count} mutated policies (FUZZ_SEED=${SEED}) neither throw nor hang`, async (t) => {
    assert.ok(seeds.length >= 3, "no seed policies found");
    const cases = ONLY_CASE === null ? Array.from({ length: CASES }, (_, i) => i) : [ONLY_CASE];
    const outcome: Outcome = { failures: [], slow: [], ms: 0 };
    await runCases(seeds, cases, outcome);
    t.diagnostic(`the cases took ${(outcome.ms / 1000).toFixed(1)} s`);
    if (outcome.slow.length > 0) t.diagnostic(`slow cases (> ${SLOW_MS} ms):\n${outcome.slow.join("\n")}`);
    const shown = outcome.failures.slice(0, 20).join("\n\n");
    assert.equal(outcome.failures.length, 0, `${outcome.failures.length} failing cases:\n${shown}`);
  });
}
