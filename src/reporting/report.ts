/**
 * The node report: what a node sends the hub after a run. It wraps the run
 * report `tend agent --json` prints (schema/run-report.schema.json) with
 * who sent it and when (schema/node-report.schema.json):
 *
 *     { version: 1, runId, node: { id, name, addresses }, frontEnd,
 *       started, ended, policyRelease, run: <run report>, lines: [...] }
 *
 * `runId` is a random UUID given when the run ends: the hub stores a run
 * id once, so a report sent twice is stored once. `node.id` is the key
 * digest ("MD5=…") of the node that ran, which the hub checks against the
 * key the report came with. `lines` are the raw report lines of the run
 * (`R: …`), which Rudder's compliance reads.
 *
 * `validateNodeReport` checks a parsed JSON value against that shape and
 * gives every problem with its path (`run.promises[3].line: expected an
 * integer >= 0`); it never throws.
 */

export const NODE_REPORT_VERSION = 1;

export type RunOutcome =
  | "skipped"
  | "kept"
  | "repaired"
  | "warn"
  | "failed"
  | "denied"
  | "timeout"
  | "interrupted";
export type PromiseOutcome = Exclude<RunOutcome, "skipped">;

const RUN_OUTCOMES: readonly RunOutcome[] = [
  "skipped",
  "kept",
  "repaired",
  "warn",
  "failed",
  "denied",
  "timeout",
  "interrupted",
];

/** One promise of the run report (a run report's `promises[]` item). */
export interface ReportedPromise {
  readonly bundle: string;
  readonly namespace: string;
  readonly type: string;
  readonly promiser: string;
  readonly handle: string;
  readonly file: string;
  readonly line: number;
  readonly span: readonly [number, number];
  readonly pass: number;
  readonly outcome: PromiseOutcome;
  readonly classes: readonly string[];
  readonly unsupported?: string;
  /** A message about the outcome (front ends other than the agent give one). */
  readonly message?: string;
}

/** The run report, as `tend agent --json` prints it. */
export interface RunReport {
  readonly version: 1;
  readonly policy: string;
  readonly exitCode: number;
  readonly outcome: RunOutcome;
  readonly diagnostics: readonly unknown[];
  readonly promises: readonly ReportedPromise[];
  readonly classes: readonly string[];
}

export interface ReportingNode {
  /** The key digest, "MD5=<32 hex>" (or "SHA=<64 hex>"). */
  readonly id: string;
  readonly name: string;
  readonly addresses: readonly string[];
}

export interface NodeReport {
  readonly version: 1;
  readonly runId: string;
  readonly node: ReportingNode;
  /** "agent", "puppet", "recipes"… */
  readonly frontEnd: string;
  /** ISO 8601 times, UTC. */
  readonly started: string;
  readonly ended: string;
  readonly policyRelease: string | null;
  readonly run: RunReport;
  readonly lines: readonly string[];
}

/** Bounds on a report's parts, so that a hostile one cannot make the hub build huge rows. */
export const REPORT_LIMITS = {
  text: 65536,
  promises: 200000,
  lines: 200000,
  classes: 100000,
  addresses: 64,
} as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DIGEST = /^(?:MD5=[0-9a-f]{32}|SHA=[0-9a-f]{64})$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

type Problems = string[];
type Value = unknown;

function isObject(v: Value): v is Record<string, Value> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function text(p: Problems, v: Value, path: string, max: number = REPORT_LIMITS.text): boolean {
  if (typeof v !== "string") p.push(`${path}: expected a string`);
  else if (v.length > max) p.push(`${path}: longer than ${max} characters`);
  else return true;
  return false;
}

function integer(p: Problems, v: Value, path: string, min = 0): boolean {
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= min) return true;
  p.push(`${path}: expected an integer >= ${min}`);
  return false;
}

function oneOf<T extends string>(p: Problems, v: Value, path: string, allowed: readonly T[]): boolean {
  if (typeof v === "string" && (allowed as readonly string[]).includes(v)) return true;
  p.push(`${path}: expected one of ${allowed.join(", ")}`);
  return false;
}

function textList(p: Problems, v: Value, path: string, max: number): void {
  if (!Array.isArray(v)) {
    p.push(`${path}: expected an array of strings`);
    return;
  }
  if (v.length > max) {
    p.push(`${path}: more than ${max} items`);
    return;
  }
  for (let i = 0; i < v.length && p.length < 20; i++) text(p, v[i], `${path}[${i}]`);
}

function time(p: Problems, v: Value, path: string): void {
  if (typeof v !== "string" || !ISO_TIME.test(v) || Number.isNaN(Date.parse(v)))
    p.push(`${path}: expected an ISO 8601 time (2026-01-31T12:00:00Z)`);
}

function unknownKeys(p: Problems, v: Record<string, Value>, path: string, known: readonly string[]): void {
  for (const key of Object.keys(v))
    if (!known.includes(key)) p.push(`${path}${path ? "." : ""}${key}: unknown property`);
}

const PROMISE_KEYS = [
  "bundle",
  "namespace",
  "type",
  "promiser",
  "handle",
  "file",
  "line",
  "span",
  "pass",
  "outcome",
  "classes",
  "unsupported",
  "message",
];

function checkPromise(p: Problems, v: Value, path: string): void {
  if (!isObject(v)) {
    p.push(`${path}: expected an object`);
    return;
  }
  unknownKeys(p, v, path, PROMISE_KEYS);
  for (const key of ["bundle", "namespace", "type", "promiser", "handle", "file"])
    text(p, v[key], `${path}.${key}`);
  integer(p, v.line, `${path}.line`);
  const span = v.span;
  if (!Array.isArray(span) || span.length !== 2 || !span.every((n) => Number.isSafeInteger(n) && n >= 0))
    p.push(`${path}.span: expected [start, end], two integers >= 0`);
  if (integer(p, v.pass, `${path}.pass`, 1) && (v.pass as number) > 3)
    p.push(`${path}.pass: expected 1, 2 or 3`);
  oneOf(p, v.outcome, `${path}.outcome`, RUN_OUTCOMES.slice(1));
  textList(p, v.classes, `${path}.classes`, REPORT_LIMITS.classes);
  if (v.unsupported !== undefined) text(p, v.unsupported, `${path}.unsupported`);
  if (v.message !== undefined) text(p, v.message, `${path}.message`);
}

function checkRun(p: Problems, v: Value): void {
  if (!isObject(v)) {
    p.push("run: expected the run report (an object)");
    return;
  }
  unknownKeys(p, v, "run", [
    "version",
    "policy",
    "exitCode",
    "outcome",
    "diagnostics",
    "promises",
    "classes",
  ]);
  if (v.version !== 1) p.push("run.version: expected 1");
  text(p, v.policy, "run.policy");
  integer(p, v.exitCode, "run.exitCode");
  oneOf(p, v.outcome, "run.outcome", RUN_OUTCOMES);
  if (!Array.isArray(v.diagnostics)) p.push("run.diagnostics: expected an array");
  else if (v.diagnostics.length > REPORT_LIMITS.lines) p.push("run.diagnostics: too many items");
  textList(p, v.classes, "run.classes", REPORT_LIMITS.classes);
  const promises = v.promises;
  if (!Array.isArray(promises)) p.push("run.promises: expected an array");
  else if (promises.length > REPORT_LIMITS.promises)
    p.push(`run.promises: more than ${REPORT_LIMITS.promises} items`);
  else
    for (let i = 0; i < promises.length && p.length < 20; i++)
      checkPromise(p, promises[i], `run.promises[${i}]`);
}

function checkNode(p: Problems, v: Value): void {
  if (!isObject(v)) {
    p.push("node: expected an object with id, name and addresses");
    return;
  }
  unknownKeys(p, v, "node", ["id", "name", "addresses"]);
  if (typeof v.id !== "string" || !DIGEST.test(v.id))
    p.push("node.id: expected a key digest (MD5=<32 hex digits>)");
  text(p, v.name, "node.name", 255);
  textList(p, v.addresses, "node.addresses", REPORT_LIMITS.addresses);
}

/** The problems of `value` as a node report (empty when it is one), at most about twenty. */
export function validateNodeReport(value: unknown): string[] {
  const p: Problems = [];
  if (!isObject(value)) return ["expected a JSON object (a node report)"];
  if (value.version !== NODE_REPORT_VERSION) return [`version: expected ${NODE_REPORT_VERSION}`];
  unknownKeys(p, value, "", [
    "version",
    "runId",
    "node",
    "frontEnd",
    "started",
    "ended",
    "policyRelease",
    "run",
    "lines",
  ]);
  if (typeof value.runId !== "string" || !UUID.test(value.runId))
    p.push("runId: expected a UUID in lower case (8-4-4-4-12 hex digits)");
  checkNode(p, value.node);
  if (text(p, value.frontEnd, "frontEnd", 64) && !/^[a-z][a-z0-9-]*$/.test(value.frontEnd as string))
    p.push("frontEnd: expected a name in lower case (agent, puppet, recipes)");
  time(p, value.started, "started");
  time(p, value.ended, "ended");
  if (value.policyRelease !== null) text(p, value.policyRelease, "policyRelease", 255);
  checkRun(p, value.run);
  textList(p, value.lines, "lines", REPORT_LIMITS.lines);
  return p.slice(0, 20);
}

/** Outcome counts of a run, as the hub keeps them. */
export interface OutcomeCounts {
  readonly kept: number;
  readonly repaired: number;
  /** Every other outcome: warn, failed, denied, timeout, interrupted (cf-agent's "not kept"). */
  readonly notKept: number;
}

export function countOutcomes(promises: readonly { outcome: string }[]): OutcomeCounts {
  let kept = 0;
  let repaired = 0;
  let notKept = 0;
  for (const { outcome } of promises) {
    if (outcome === "kept") kept++;
    else if (outcome === "repaired") repaired++;
    else notKept++;
  }
  return { kept, repaired, notKept };
}
