/**
 * Compliance on the hub, two kinds:
 *
 * - **Rudder's**, where the hub is given Rudder's configuration
 *   (`--rudder-config DIR`: the policy directories `tend rudder generate`
 *   writes, each with its expected-reports.json). When a run's report lines
 *   name a node of that configuration, the hub computes the node's
 *   compliance per rule, directive, component and value with Rudder's
 *   states (src/rudder/compliance, the same code as `tend rudder
 *   compliance`), at ingest, and stores it with the run (the whole result,
 *   and each rule's counters for the fleet's compliance by rule).
 * - **Per promise**, for every node: its latest run's promises kept,
 *   repaired and not kept, and the promises its previous run had that the
 *   latest lacks ("missing since the last run"), computed when asked.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  API_NAMES,
  type ComplianceLevel,
  complianceLevel,
  complianceOfRun,
  computePercent,
  decodeExpectedReports,
  EXPECTED_REPORTS_FILE,
  levelToApi,
  type NodeExpectedReports,
  parseRunOutput,
  type RunComplianceJson,
  runComplianceJson,
  sumLevels,
} from "../rudder/compliance/index.js";
import type { NodeReport } from "../reporting/report.js";
import type { HubStore, IngestCompliance, ResultRow } from "./store/store.js";

/** Rudder's configuration as the hub knows it: each Rudder node's expected reports. */
export interface RudderConfig {
  readonly dir: string;
  readonly nodes: ReadonlyMap<string, NodeExpectedReports>;
}

/**
 * Reads `dir`: one policy directory (DIR/expected-reports.json) or a
 * directory of them (DIR/<node>/expected-reports.json). Throws with every
 * problem found (file: path: message) when a file does not decode, or
 * when there is none.
 */
export function loadRudderConfig(dir: string): RudderConfig {
  const files: string[] = [];
  const direct = join(dir, EXPECTED_REPORTS_FILE);
  if (isFile(direct)) files.push(direct);
  else
    for (const entry of readdirSync(dir).sort()) {
      const file = join(dir, entry, EXPECTED_REPORTS_FILE);
      if (isFile(file)) files.push(file);
    }
  if (files.length === 0)
    throw new Error(
      `${dir}: no ${EXPECTED_REPORTS_FILE} in it or in its subdirectories (expected the policy directories tend rudder generate writes)`,
    );
  const nodes = new Map<string, NodeExpectedReports>();
  const problems: string[] = [];
  for (const file of files) {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      problems.push(`${file}: not JSON: ${(error as Error).message}`);
      continue;
    }
    const decoded = decodeExpectedReports(json);
    for (const p of decoded.problems) problems.push(`${file}: ${p.path}: ${p.message}`);
    if (decoded.expected) nodes.set(decoded.expected.nodeId, decoded.expected);
  }
  if (problems.length > 0) throw new Error(problems.join("\n"));
  return { dir, nodes };
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The Rudder compliance of a report, to store with it: undefined when its
 * lines name no node of the configuration (not a Rudder run, or another
 * configuration's node). The run is judged at its own time, as the
 * compliance it gives.
 */
export function rudderComplianceOf(config: RudderConfig, report: NodeReport): IngestCompliance | undefined {
  if (report.lines.length === 0) return undefined;
  const output = report.lines.join("\n");
  const nodeId = parseRunOutput(output).nodeId;
  const expected = nodeId === undefined ? undefined : config.nodes.get(nodeId);
  if (!expected) return undefined;
  const json = runComplianceJson(complianceOfRun(expected, output));
  return {
    rudderNode: expected.nodeId,
    compliance: json.compliance,
    json: JSON.stringify(json),
    rules: json.rules.map((r) => ({ ruleId: r.ruleId, details: JSON.stringify(r.complianceDetails) })),
  };
}

/** Counters written with Rudder's API names back to a level. */
export function levelFromApi(details: Readonly<Record<string, number>>): ComplianceLevel {
  const counts: Partial<Record<(typeof API_NAMES)[number][1], number>> = {};
  for (const [name, counter] of API_NAMES) {
    const n = details[name];
    if (typeof n === "number" && n > 0) counts[counter] = (counts[counter] ?? 0) + n;
  }
  return complianceLevel(counts);
}

export interface RuleComplianceRow {
  readonly ruleId: string;
  /** How many nodes' latest runs report on the rule. */
  readonly nodes: number;
  readonly compliance: number;
  readonly complianceDetails: Record<string, number>;
}

/** The fleet's compliance by rule: each rule's counters summed over the nodes' latest runs. */
export function fleetRuleCompliance(
  rows: readonly { readonly ruleId: string; readonly details: string }[],
): RuleComplianceRow[] {
  const byRule = new Map<string, ComplianceLevel[]>();
  for (const row of rows) {
    const list = byRule.get(row.ruleId) ?? [];
    list.push(levelFromApi(JSON.parse(row.details) as Record<string, number>));
    byRule.set(row.ruleId, list);
  }
  return [...byRule]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([ruleId, levels]) => {
      const sum = sumLevels(levels);
      return {
        ruleId,
        nodes: levels.length,
        compliance: computePercent(sum).compliance,
        complianceDetails: levelToApi(sum),
      };
    });
}

/** A stored Rudder compliance, read back. */
export function parseStoredCompliance(text: string): RunComplianceJson {
  return JSON.parse(text) as RunComplianceJson;
}

export interface PromiseCompliance {
  readonly kept: number;
  readonly repaired: number;
  readonly notKept: number;
  /** Promises of the previous run that the latest run did not report. */
  readonly missing: readonly ResultRow[];
  /** Kept or repaired, of all promises including the missing ones (percent, 2 decimals). */
  readonly compliance: number;
  /** The run the missing promises were looked for in, if there is one. */
  readonly previousRunId?: string;
}

/** A promise's identity from run to run: its type, bundle, promiser and handle (its place may move). */
function promiseKey(r: ResultRow): string {
  return `${r.type}\u0000${r.bundle}\u0000${r.promiser}\u0000${r.handle}`;
}

/**
 * Per-promise compliance of a run against the one before it. A promise
 * that appears several times (several passes, several iterations of a
 * list) counts once per appearance; it is missing as many times as the
 * previous run had it more than the latest.
 */
export function promiseCompliance(
  latest: readonly ResultRow[],
  previous?: { readonly runId: string; readonly results: readonly ResultRow[] },
): PromiseCompliance {
  let kept = 0;
  let repaired = 0;
  let notKept = 0;
  const seen = new Map<string, number>();
  for (const r of latest) {
    if (r.outcome === "kept") kept++;
    else if (r.outcome === "repaired") repaired++;
    else notKept++;
    const key = promiseKey(r);
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  const missing: ResultRow[] = [];
  for (const r of [...(previous?.results ?? [])].sort((a, b) => a.seq - b.seq)) {
    const key = promiseKey(r);
    const left = seen.get(key) ?? 0;
    if (left > 0) seen.set(key, left - 1);
    else missing.push(r);
  }
  const total = latest.length + missing.length;
  return {
    kept,
    repaired,
    notKept,
    missing,
    compliance: total === 0 ? 100 : Math.round((10000 * (kept + repaired)) / total) / 100,
    ...(previous ? { previousRunId: previous.runId } : {}),
  };
}

/** A node's compliance as the API and the node page give it. */
export interface NodeCompliance {
  readonly nodeId: string;
  readonly runId: string;
  readonly promises: PromiseCompliance;
  /** Rudder's compliance of the run, when the hub computed one. */
  readonly rudder?: RunComplianceJson;
}

/** The compliance of node `nodeId`'s latest run (undefined: no such node, or no run). */
export async function nodeCompliance(store: HubStore, nodeId: string): Promise<NodeCompliance | undefined> {
  const [latest, previous] = await store.runs(nodeId, 2);
  if (!latest) return undefined;
  const [results, before, rudder] = await Promise.all([
    store.results(latest.runId, { limit: 100_000 }),
    previous ? store.results(previous.runId, { limit: 100_000 }) : Promise.resolve(undefined),
    store.runCompliance(latest.runId),
  ]);
  return {
    nodeId,
    runId: latest.runId,
    promises: promiseCompliance(
      results,
      previous && before ? { runId: previous.runId, results: before } : undefined,
    ),
    ...(rudder === undefined ? {} : { rudder: parseStoredCompliance(rudder) }),
  };
}
