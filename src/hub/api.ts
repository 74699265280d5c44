/**
 * The hub's read API, the ground the web pages will stand on. Every
 * answer is a JSON object; an unknown path is undefined (404).
 *
 *   GET /api/v1/summary                    nodes, runs, results stored; nodes by last outcome
 *   GET /api/v1/nodes                      every node with its latest run
 *   GET /api/v1/fleet?status=S&q=TEXT&limit=N&offset=M
 *                                          the fleet page's data: nodes counted by status, and one
 *                                          page of nodes (failures first, N ≤ 100,000, default 200)
 *   GET /api/v1/nodes/<id>?limit=N         a node and its latest runs (N ≤ 1000, default 50)
 *   GET /api/v1/nodes/<id>/compliance      its latest run's compliance: per promise (kept, repaired,
 *                                          not kept, missing since the previous run) and Rudder's
 *                                          per rule, directive and component when the hub has it
 *   GET /api/v1/compliance                 the fleet's Rudder compliance by rule (latest runs)
 *   GET /api/v1/runs/<run id>              one run
 *   GET /api/v1/runs/<run id>/results?outcome=failed,repaired&limit=N&offset=M
 *                                          its promise results, failures first
 *   GET /api/v1/runs/<run id>/lines        its raw report lines
 *   GET /api/v1/history?days=N&node=ID     runs and outcome counts per UTC day (N ≤ 366, default 30)
 */
import { fleetRuleCompliance, nodeCompliance } from "./compliance.js";
import type { HubStore, NodeRow } from "./store/store.js";
import { DEFAULT_PAGE_OPTIONS, fleetQuery } from "./web/pages.js";

function boundedNumber(value: string | null, fallback: number, max: number): number {
  const n = value === null ? fallback : Number(value);
  return Number.isInteger(n) && n >= 0 ? Math.min(n, max) : fallback;
}

/** A node's status from its latest run: what the fleet view sorts by. */
export function nodeStatus(node: NodeRow): "failed" | "repaired" | "kept" | "no-run" {
  const run = node.lastRun;
  if (!run) return "no-run";
  if (run.notKept > 0) return "failed";
  return run.repaired > 0 ? "repaired" : "kept";
}

export async function handleApi(store: HubStore, url: URL): Promise<object | undefined> {
  const parts = url.pathname
    .split("/")
    .filter((p) => p !== "")
    .map(decodeURIComponent);
  if (parts[0] !== "api" || parts[1] !== "v1") return undefined;
  const [, , resource, id, sub] = parts;
  if (resource === "summary" && id === undefined) {
    // By the latest run alone (no staleness): a cutoff in the past stales no node.
    const { counts } = await store.fleet({ staleBefore: new Date(0), limit: 0, offset: 0 });
    const { stale: _, ...byStatus } = counts;
    return { counts: await store.counts(), nodesByStatus: byStatus };
  }
  if (resource === "fleet" && id === undefined) {
    const options = { ...DEFAULT_PAGE_OPTIONS, now: new Date() };
    const query = fleetQuery(url, options);
    const fleet = await store.fleet(query);
    return {
      staleMinutes: options.staleMinutes,
      counts: fleet.counts,
      total: fleet.total,
      matching: fleet.matching,
      offset: query.offset,
      nodes: fleet.nodes.map(({ node, status }) => ({ ...node, status })),
    };
  }
  if (resource === "history" && id === undefined) {
    const days = Math.max(1, boundedNumber(url.searchParams.get("days"), 30, 366));
    const since = new Date(Date.now() - days * 86_400_000);
    const node = url.searchParams.get("node") ?? undefined;
    return { since: since.toISOString(), days: await store.history(since, node) };
  }
  if (resource === "nodes" && id === undefined)
    return { nodes: (await store.nodes()).map((node) => ({ ...node, status: nodeStatus(node) })) };
  if (resource === "nodes" && id !== undefined && sub === "compliance") {
    return nodeCompliance(store, id);
  }
  if (resource === "compliance" && id === undefined) {
    return { rules: fleetRuleCompliance(await store.latestRuleCompliance()) };
  }
  if (resource === "nodes" && id !== undefined && sub === undefined) {
    const node = await store.node(id);
    if (!node) return undefined;
    const runs = await store.runs(id, boundedNumber(url.searchParams.get("limit"), 50, 1000));
    return { node: { ...node, status: nodeStatus(node) }, runs };
  }
  if (resource === "runs" && id !== undefined) {
    const run = await store.run(id);
    if (!run) return undefined;
    if (sub === undefined) return { run };
    if (sub === "lines") return { runId: id, lines: await store.lines(id) };
    if (sub === "results") {
      const outcome = url.searchParams.get("outcome");
      const results = await store.results(id, {
        outcomes: outcome ? outcome.split(",").filter((o) => o !== "") : undefined,
        limit: boundedNumber(url.searchParams.get("limit"), 1000, 100000),
        offset: boundedNumber(url.searchParams.get("offset"), 0, Number.MAX_SAFE_INTEGER),
      });
      return { runId: id, results };
    }
  }
  return undefined;
}
