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
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import type { Diagnostic } from "../../src/language/diagnostics.js";
import { type Token, tokenize } from "../../src/language/lexer.js";
import { parse } from "../../src/language/parser.js";
import type { PolicySet } from "../../src/language/policy-set.js";
import { validatePolicy } from "../../src/language/validate/index.js";
import { SourceFile } from "../../src/language/source.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const MASTERFILES = "/var/lib/cfengine3/masterfiles";
const SEED = Number(process.env.FUZZ_SEED ?? 0x7e4d2024) >>> 0;
const CASES = Number(process.env.FUZZ_CASES ?? 5000);
const ONLY_CASE = process.env.FUZZ_CASE === undefined ? null : Number(process.env.FUZZ_CASE);
/** `FUZZ_TRACE=1` names each case on stderr before running it. */
const TRACE = process.env.FUZZ_TRACE === "1";
/** A case slower than this is reported; one slower than `HANG_MS` fails the test. */
const SLOW_MS = 200;
const HANG_MS = Number(process.env.FUZZ_HANG_MS ?? 2000);
/** Seed files larger than this are cut to a random window, to keep cases fast. */
const MAX_SEED_CHARS = 3000;

type Random = () => number;

/** mulberry32: a tiny, fast, seedable generator of floats in [0, 1). */
function mulberry32(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)];
}

function between(random: Random, low: number, high: number): number {
  return low + Math.floor(random() * (high - low + 1));
}

function findPolicies(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findPolicies(path));
    else if (entry.name.endsWith(".cf")) found.push(path);
  }
  return found.sort();
}

/** Real policy to mutate: tend's fixtures and examples, and masterfiles when installed. */
function loadSeeds(): string[] {
  const paths = [
    ...findPolicies(join(ROOT, "test/fixtures")),
    ...findPolicies(join(ROOT, "examples")),
    ...findPolicies(MASTERFILES),
  ];
  return paths.map((path) => readFileSync(path, "utf8"));
}

// ---- mutations ------------------------------------------------------------

const PUNCTUATION = "{}();,\"'`@$:=>-";
const ODD_TEXT = [
  "\0",
  "\r",
  "\r\n",
  "\t",
  "\\",
  "\u00e9",
  "\u2028",
  "\ud83d\ude00",
  "\ud800",
  "\udfff",
  "\ufeff",
  "::",
  "=>",
  "->",
  "$(",
  "@{",
  "$(a[$(b)])",
  "#",
  "\n#",
  "bundle",
  "body",
  "promise",
  "vars:",
  "any::",
  '"x"::',
];
const MACRO_LINES = [
  "@if minimum_version(3.18)",
  "@if maximum_version(3.10)",
  "@if feature(yaml)",
  "@if feature(nope)",
  "@if between_versions(3.0, 3.99)",
  "@if version(3)",
  "@if",
  "@else",
  "@endif",
  "  @if minimum_version(3.18)",
];

type Mutation = (text: string, random: Random) => string;

function tokensOf(text: string): Token[] {
  return tokenize(text).tokens;
}

function splice(text: string, start: number, end: number, insert: string): string {
  return text.slice(0, start) + insert + text.slice(end);
}

function randomRange(text: string, random: Random): [number, number] {
  const start = between(random, 0, text.length);
  return [start, Math.min(text.length, start + between(random, 1, 40))];
}

function lineStart(text: string, random: Random): number {
  const at = between(random, 0, text.length);
  return text.lastIndexOf("\n", at - 1) + 1;
}

function randomChars(random: Random, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) {
    const kind = random();
    if (kind < 0.5) out += String.fromCharCode(between(random, 0, 127));
    else if (kind < 0.8) out += String.fromCharCode(between(random, 128, 0xffff));
    else out += pick(random, ODD_TEXT);
  }
  return out;
}

const MUTATIONS: readonly Mutation[] = [
  function deleteRange(text, random) {
    const [start, end] = randomRange(text, random);
    return splice(text, start, end, "");
  },
  function duplicateRange(text, random) {
    const [start, end] = randomRange(text, random);
    return splice(text, end, end, text.slice(start, end));
  },
  function deleteToken(text, random) {
    const tokens = tokensOf(text);
    if (tokens.length === 0) return text;
    const t = pick(random, tokens);
    return splice(text, t.start, t.end, "");
  },
  function duplicateToken(text, random) {
    const tokens = tokensOf(text);
    if (tokens.length === 0) return text;
    const t = pick(random, tokens);
    return splice(text, t.end, t.end, " " + text.slice(t.start, t.end));
  },
  function swapTokens(text, random) {
    const tokens = tokensOf(text);
    if (tokens.length < 2) return text;
    let [a, b] = [pick(random, tokens), pick(random, tokens)];
    if (a.start > b.start) [a, b] = [b, a];
    if (a.end > b.start) return text;
    const first = text.slice(a.start, a.end);
    const second = text.slice(b.start, b.end);
    return text.slice(0, a.start) + second + text.slice(a.end, b.start) + first + text.slice(b.end);
  },
  function replaceToken(text, random) {
    const tokens = tokensOf(text);
    if (tokens.length < 2) return text;
    const [target, donor] = [pick(random, tokens), pick(random, tokens)];
    return splice(text, target.start, target.end, text.slice(donor.start, donor.end));
  },
  function insertPunctuation(text, random) {
    let insert = "";
    for (let n = between(random, 1, 5); n > 0; n--) insert += pick(random, [...PUNCTUATION]);
    const at = between(random, 0, text.length);
    return splice(text, at, at, insert);
  },
  function truncate(text, random) {
    return text.slice(0, between(random, 0, text.length));
  },
  function insertMacroLine(text, random) {
    const at = lineStart(text, random);
    return splice(text, at, at, pick(random, MACRO_LINES) + "\n");
  },
  function insertOddText(text, random) {
    const at = between(random, 0, text.length);
    return splice(text, at, at, randomChars(random, between(random, 1, 8)));
  },
  function deepNesting(text, random) {
    // Mostly modest depths; now and then one deep enough to exhaust a recursive parser's stack.
    const depth = random() < 0.1 ? between(random, 300, 20_000) : between(random, 10, 300);
    const open = pick(random, ["f(", "{", "(", "{ f(", "$(", "$(a[", '"', "@if feature(yaml)\n"]);
    const close = pick(random, [")", "}", "", "]"]);
    // Most often where a value goes, so that the parser descends into it.
    const arrows = tokensOf(text).filter((t) => t.kind === "=>");
    const at =
      arrows.length > 0 && random() < 0.7 ? pick(random, arrows).end : between(random, 0, text.length);
    return splice(text, at, at, ` ${open.repeat(depth)}"x"${close.repeat(between(random, 0, depth))}`);
  },
  function longToken(text, random) {
    const at = between(random, 0, text.length);
    return splice(
      text,
      at,
      at,
      // Now and then long enough that work quadratic in a line's length shows as a hang.
      pick(random, ["a", "_", "é", "a.", "a ", "$(x)", " "]).repeat(
        random() < 0.05 ? between(random, 5000, 40_000) : between(random, 100, 3000),
      ),
    );
  },
];

/** The input of case `n`: a seed, maybe cut to a window, with one to four mutations. */
function makeCase(seeds: readonly string[], n: number): string {
  const random = mulberry32((SEED ^ Math.imul(n + 1, 0x9e3779b9)) >>> 0);
  let text = pick(random, seeds);
  if (text.length > MAX_SEED_CHARS) {
    const start = between(random, 0, text.length - MAX_SEED_CHARS);
    text = text.slice(start, start + MAX_SEED_CHARS);
  }
  for (let k = between(random, 1, 4); k > 0; k--) text = pick(random, MUTATIONS)(text, random);
  return text;
}

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
  const dir = mkdtempSync(join(tmpdir(), "tend-fuzz-"));
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
    const text = makeCase(job.seeds, n);
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
      const path = saveFailure(makeCase(seeds, n), n);
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
        const path = saveFailure(makeCase(seeds, report.n), report.n);
        outcome.failures.push(
          `case ${report.n} threw (replay: FUZZ_SEED=${SEED} FUZZ_CASE=${report.n}; input: ${path}):\n${report.message}`,
        );
      } else if (report.type === "end") {
        outcome.ms += report.ms;
        if (report.ms <= SLOW_MS) return;
        const path = saveFailure(makeCase(seeds, report.n), report.n);
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
  const seeds = loadSeeds();
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
