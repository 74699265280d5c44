/**
 * The conformance harness for tend's Puppet compiler: cases recorded from
 * Puppet 7.23 (test/fixtures/puppet-compile), compiled by tend in a worker
 * thread (a crash or a hang is a failed case, never a failed test run), and
 * judged with the normalising comparison of src/puppet/catalog-compare.ts.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { type CatalogJson, compareCatalogs, formatDifference } from "../../../src/puppet/catalog-compare.js";

export const fixturesDir = fileURLToPath(
  new URL("../../../../test/fixtures/puppet-compile/", import.meta.url),
);
export const snippetInputsDir = fileURLToPath(
  new URL("../../../../test/fixtures/puppet-lang/inputs/spec-snippets/", import.meta.url),
);
export const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));

export interface RecordedMessage {
  readonly level: string;
  readonly source: string;
  readonly message: string;
}

/** What Puppet did with one input: a catalog or an error, and what it logged. */
export interface Recorded {
  readonly id: string;
  readonly source?: string;
  readonly catalog?: CatalogJson;
  readonly error?: string;
  readonly messages?: readonly RecordedMessage[];
}

/** What the worker needs to build a CompileInput (plain data: it crosses threads). */
export interface CompileSpec {
  readonly id: string;
  readonly nodeName: string;
  readonly facts: Record<string, unknown>;
  readonly trusted: Record<string, unknown>;
  readonly serverFacts: Record<string, unknown>;
  readonly environment: string;
  /** `--code`: the manifest text (snippets). */
  readonly code?: string;
  /** The environment's directory and main manifest files (modules, sitedir). */
  readonly envDir?: string;
  readonly manifests: readonly string[];
  readonly modulePath: readonly string[];
  /** Give the compiler stdlib's native functions. */
  readonly stdlib?: boolean;
  /** The code directory (removed from resources' `file` before comparing). */
  readonly codeDir?: string;
  /**
   * Compile as `puppet catalog compile` does with this confdir (src/puppet/env
   * finds the environment, facts, modules, Hiera): the fields above other than
   * id, nodeName and environment are then unused.
   */
  readonly confdir?: string;
}

export type Outcome =
  | { readonly kind: "catalog"; readonly catalog: CatalogJson; readonly messages: readonly TendMessage[] }
  | {
      readonly kind: "error";
      readonly message: string;
      readonly messages: readonly TendMessage[];
      /** Where the error is (when tend places it). */
      readonly line?: number;
      readonly column?: number;
    }
  | { readonly kind: "crash"; readonly message: string }
  | { readonly kind: "hang" };

export interface TendMessage {
  readonly level: string;
  readonly message: string;
}

export interface Verdict {
  readonly id: string;
  readonly pass: boolean;
  /** pass: `identical`, `both fail`; fail: the first difference's category. */
  readonly category: string;
  /** A readable first difference. */
  readonly detail: string;
  /** Warnings differ (reported, not counted against the case). */
  readonly warningsDiffer?: boolean;
  /** Both fail: with the same message, once positions and the node are left out (reported, not counted). */
  readonly sameMessage?: boolean;
}

/** An error message without `Error: `, its position `(file: …, line: …)` and `on node N`. */
export function errorCore(message: string): string {
  return message
    .replace(/^Error: /, "")
    .replace(/ on node \S+$/, "")
    .replace(/\s*\((?:file: [^)]*|line: \d+(?:, column: \d+)?)\)/g, "")
    .trim();
}

const LINE_ONLY = /\((?:file: [^)]*, )?line: \d+\)/;
const RELATIONSHIP =
  /is not a valid resource reference|^(?:Error: )?Could not find resource '.*' in parameter/;

/**
 * A relationship to no resource is placed at the attribute's line, without
 * a column, in the text: tend's position there when Puppet's differs, else
 * undefined (also for every other message).
 */
export function relationshipPositionDiffers(puppet: string, tend: string): string | undefined {
  if (!RELATIONSHIP.test(puppet)) return undefined;
  const want = LINE_ONLY.exec(puppet)?.[0];
  const got = LINE_ONLY.exec(tend)?.[0];
  return want !== undefined && want !== got ? `position: Puppet ${want} | tend ${got ?? "none"}` : undefined;
}

/** The facts file of `node` (Puppet::Node::Facts JSON). */
export function loadFacts(node: string): Record<string, unknown> {
  const doc = JSON.parse(readFileSync(`${fixturesDir}facts/${node}.json`, "utf8")) as {
    values: Record<string, unknown>;
  };
  return doc.values;
}

/** `$trusted` as Puppet gives a node compiled locally (what the recordings used). */
export function localTrusted(node: string): Record<string, unknown> {
  const dot = node.indexOf(".");
  return {
    authenticated: "local",
    certname: node,
    extensions: {},
    hostname: dot < 0 ? node : node.slice(0, dot),
    domain: dot < 0 ? null : node.slice(dot + 1),
    external: {},
  };
}

export function loadRecordedDir(dir: string): Recorded[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => JSON.parse(readFileSync(`${dir}/${f}`, "utf8")) as Recorded);
}

/** The lowest pass rates (and counts) the tests accept (raised as tend passes more). */
export function ratchet(name: string): number {
  const r = JSON.parse(readFileSync(`${fixturesDir}ratchet.json`, "utf8")) as Record<string, number>;
  return r[name] ?? 0;
}

/** Puppet's `notice()` lines: notices logged from a scope. */
function puppetNotices(r: Recorded): string[] {
  return (r.messages ?? [])
    .filter((m) => m.level === "notice" && m.source.startsWith("Scope("))
    .map((m) => m.message);
}

function puppetWarnings(r: Recorded): string[] {
  return (r.messages ?? []).filter((m) => m.level === "warning").map((m) => m.message);
}

function shorten(s: string, max = 200): string {
  const one = s.replace(/\s+/g, " ");
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/**
 * Snippets whose output holds the time of the compile (time-dependent.json):
 * their notices are compared with every digit made 0.
 */
export function timeDependent(): ReadonlySet<string> {
  const path = `${fixturesDir}time-dependent.json`;
  if (!existsSync(path)) return new Set();
  return new Set(Object.keys(JSON.parse(readFileSync(path, "utf8")) as Record<string, string>));
}

/** Judge tend's outcome against Puppet's recording (`anyDigits`: notices compared with digits made 0). */
export function judge(expected: Recorded, actual: Outcome, codeDir?: string, anyDigits = false): Verdict {
  const id = expected.id;
  if (actual.kind === "hang") return { id, pass: false, category: "tend hangs", detail: "no answer in 20 s" };
  if (actual.kind === "crash")
    return { id, pass: false, category: "tend crashes", detail: shorten(actual.message) };
  if (expected.error !== undefined) {
    if (actual.kind === "error")
      return {
        id,
        pass: true,
        category: "both fail",
        detail: "",
        sameMessage: errorCore(expected.error) === errorCore(actual.message),
      };
    return {
      id,
      pass: false,
      category: "tend compiles, Puppet fails",
      detail: `Puppet: ${shorten(expected.error)}`,
    };
  }
  if (actual.kind === "error")
    return { id, pass: false, category: "tend fails, Puppet compiles", detail: shorten(actual.message) };
  const cmp = compareCatalogs(expected.catalog ?? {}, actual.catalog, {
    codeDirA: codeDir,
    codeDirB: codeDir,
    limit: 1,
  });
  const digits = (m: string): string => (anyDigits ? m.replace(/[0-9]/g, "0") : m);
  const tendNotices = actual.messages.filter((m) => m.level === "notice").map((m) => digits(m.message));
  const tendWarnings = actual.messages.filter((m) => m.level === "warning").map((m) => m.message);
  const warningsDiffer = JSON.stringify(puppetWarnings(expected)) !== JSON.stringify(tendWarnings);
  const first = cmp.differences[0];
  if (!cmp.equal && first !== undefined)
    return {
      id,
      pass: false,
      category: `catalog: ${first.category}`,
      detail: formatDifference(first, ["Puppet", "tend"]),
      warningsDiffer,
    };
  const notices = puppetNotices(expected).map(digits);
  if (JSON.stringify(notices) !== JSON.stringify(tendNotices)) {
    const at = notices.findIndex((n, i) => n !== tendNotices[i]);
    const i = at < 0 ? notices.length : at;
    return {
      id,
      pass: false,
      category: "notices",
      detail: `notice ${i}: Puppet ${JSON.stringify(notices[i] ?? "(none)")} | tend ${JSON.stringify(tendNotices[i] ?? "(none)")}`,
      warningsDiffer,
    };
  }
  return { id, pass: true, category: "identical", detail: "", warningsDiffer };
}

/**
 * Compile every spec in a worker thread, one at a time; a case taking more
 * than `hangMs` is a hang: the worker is ended and a new one takes the next
 * case.
 */
export async function compileAll(
  specs: readonly CompileSpec[],
  hangMs = 20_000,
): Promise<Map<string, Outcome>> {
  const results = new Map<string, Outcome>();
  let next = 0;
  while (next < specs.length) {
    const worker = new Worker(new URL("./worker.js", import.meta.url));
    worker.unref();
    await new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      let finished = false;
      const finish = (): void => {
        if (finished) return;
        finished = true;
        if (timer) clearTimeout(timer);
        worker.removeAllListeners();
        void worker.terminate().then(() => resolve());
      };
      const send = (): void => {
        const spec = specs[next];
        if (spec === undefined) {
          finish();
          return;
        }
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => {
          results.set(spec.id, { kind: "hang" });
          next++;
          finish();
        }, hangMs);
        worker.postMessage(spec);
      };
      worker.on("message", (m: { id: string; outcome: Outcome }) => {
        results.set(m.id, m.outcome);
        next++;
        send();
      });
      worker.on("error", (e: Error) => {
        const spec = specs[next];
        if (spec) results.set(spec.id, { kind: "crash", message: `worker died: ${e.message}` });
        next++;
        finish();
      });
      worker.on("exit", () => {
        if (!finished) {
          const spec = specs[next];
          if (spec && !results.has(spec.id)) {
            results.set(spec.id, { kind: "crash", message: "worker exited" });
            next++;
          }
          finish();
        }
      });
      send();
    });
  }
  return results;
}

export interface Summary {
  readonly total: number;
  readonly identical: number;
  readonly bothFail: number;
  readonly rate: number;
  readonly lines: readonly string[];
}

/** The rate, and per failure category its count and first few differences. */
export function summarise(title: string, verdicts: readonly Verdict[], examples = 3): Summary {
  const identical = verdicts.filter((v) => v.category === "identical").length;
  const bothFail = verdicts.filter((v) => v.category === "both fail").length;
  const passed = identical + bothFail;
  const rate = verdicts.length === 0 ? 0 : passed / verdicts.length;
  const lines = [
    `${title}: ${passed}/${verdicts.length} pass (${(rate * 100).toFixed(1)}%): ${identical} identical, ${bothFail} both fail (${verdicts.filter((v) => v.sameMessage).length} with Puppet's message); ${verdicts.filter((v) => v.warningsDiffer).length} with other warnings`,
  ];
  const byCategory = new Map<string, Verdict[]>();
  for (const v of verdicts) {
    if (v.pass) continue;
    const list = byCategory.get(v.category) ?? [];
    list.push(v);
    byCategory.set(v.category, list);
  }
  for (const [category, list] of [...byCategory].sort((a, b) => b[1].length - a[1].length)) {
    lines.push(`  ${list.length} ${category}`);
    for (const v of list.slice(0, examples)) lines.push(`    ${v.id}: ${v.detail}`);
  }
  return { total: verdicts.length, identical, bothFail, rate, lines };
}
