/**
 * The hub's pages, rendered on the server from the store (the same calls
 * the JSON API makes, api.ts; each page lists the API paths behind it):
 *
 *   /ui/                 the fleet: counts, repairs and failures over 30
 *                        days, every node with its last run, failures first
 *                        (filters: status, name, how many)
 *   /ui/nodes/<id>       a node: its plot, its last run's promises (filters:
 *                        outcome, type, text), failures first, its runs
 *   /ui/runs/<run id>    one run's promises, with the same filters
 *
 * Filters are plain GET forms; there is no script. Everything shown is
 * escaped (html.ts).
 */
import { nodeStatus } from "../api.js";
import { fleetRuleCompliance, nodeCompliance } from "../compliance.js";
import type { FleetQuery, FleetStatus, HubStore, NodeRow, ResultRow, RunRow } from "../store/store.js";
import { fleetComplianceSection, nodeComplianceSection } from "./compliance.js";
import { badge, escapeHtml, page, select, showTime, urlPart } from "./html.js";
import { fillDays, historyPlot } from "./plot.js";

export interface PageOptions {
  /** A node not seen for this long is stale (drift: it stopped reporting). */
  readonly staleMinutes: number;
  /** Days of history in the plots. */
  readonly days: number;
  readonly now: Date;
}

export const DEFAULT_PAGE_OPTIONS: Omit<PageOptions, "now"> = { staleMinutes: 60, days: 30 };

export type { FleetStatus } from "../store/store.js";

const STATUSES: readonly FleetStatus[] = ["failed", "stale", "repaired", "kept", "no-run"];

export function fleetStatus(node: NodeRow, options: PageOptions): FleetStatus {
  const status = nodeStatus(node);
  if (status === "failed") return status;
  const seen = Date.parse(node.lastSeen);
  return options.now.getTime() - seen > options.staleMinutes * 60_000 ? "stale" : status;
}

function limitParam(url: URL, fallback: number, max: number): number {
  const text = url.searchParams.get("limit");
  if (text === "all") return max;
  const n = Number(text ?? fallback);
  return Number.isInteger(n) && n > 0 ? Math.min(n, max) : fallback;
}

function offsetParam(url: URL): number {
  const n = Number(url.searchParams.get("offset") ?? 0);
  return Number.isInteger(n) && n >= 0 ? n : 0;
}

/** A link to `path` with `params` merged into `url`'s query. */
function withParams(path: string, url: URL, params: Record<string, string>): string {
  const q = new URLSearchParams(url.searchParams);
  for (const [k, v] of Object.entries(params)) q.set(k, v);
  return escapeHtml(`${path}?${q.toString()}`);
}

function card(label: string, value: number, status?: string): string {
  return `<div class="card"${status ? ` data-status="${escapeHtml(status)}"` : ""}><b>${value.toLocaleString("en")}</b>${escapeHtml(label)}</div>`;
}

/** The fleet query a page's URL asks for (status, q, limit, offset), as the page and its API read it. */
export function fleetQuery(url: URL, options: PageOptions, defaultLimit = DEFAULT_FLEET_LIMIT): FleetQuery {
  const wanted = url.searchParams.get("status") ?? "";
  const text = url.searchParams.get("q") ?? "";
  return {
    staleBefore: new Date(options.now.getTime() - options.staleMinutes * 60_000),
    ...((STATUSES as readonly string[]).includes(wanted) ? { status: wanted as FleetStatus } : {}),
    ...(text === "" ? {} : { text }),
    limit: limitParam(url, defaultLimit, 100_000),
    offset: offsetParam(url),
  };
}

/** Rows in the fleet page's table unless `limit` says otherwise: counts and the plot cover every node. */
export const DEFAULT_FLEET_LIMIT = 200;

export async function fleetPage(store: HubStore, url: URL, options: PageOptions): Promise<string> {
  const since = new Date(options.now.getTime() - options.days * 86_400_000);
  const query = fleetQuery(url, options);
  const [fleet, history, rules] = await Promise.all([
    store.fleet(query),
    store.history(since),
    store.latestRuleCompliance(),
  ]);
  const counts = fleet.counts;
  const wanted = query.status ?? "";
  const { limit, offset } = query;
  const slice = fleet.nodes;
  const body: string[] = [];
  body.push(`<h1>Fleet</h1><div class="cards">`);
  body.push(card("nodes", fleet.total));
  for (const s of STATUSES) body.push(card(s, counts[s], s));
  body.push(`</div><h2>Repairs and failures, last ${options.days} days</h2>`);
  body.push(
    historyPlot(fillDays(history, options.days, options.now), "repairs and failures per day, whole fleet"),
  );
  body.push(fleetComplianceSection(fleetRuleCompliance(rules)));
  body.push(
    `<h2>Nodes</h2><form class="f" method="get" action="/ui/">${select(
      "status",
      [["", "all"], ...STATUSES.map((s): [string, string] => [s, s])],
      wanted,
    )}<label>name <input name="q" value="${escapeHtml(url.searchParams.get("q") ?? "")}"></label>` +
      `<label>show <input name="limit" size="5" value="${escapeHtml(url.searchParams.get("limit") ?? String(limit))}"></label>` +
      `<button type="submit">Filter</button></form>`,
  );
  body.push(
    `<p class="pager" id="shown">${slice.length === 0 ? 0 : offset + 1}–${offset + slice.length} of ${fleet.matching} nodes` +
      (offset + limit < fleet.matching
        ? ` · <a href="${withParams("/ui/", url, { offset: String(offset + limit), limit: String(limit) })}">next</a>`
        : "") +
      `</p>`,
  );
  body.push(
    `<table id="nodes"><thead><tr><th>status</th><th>node</th><th>last run (UTC)</th><th>kept</th><th>repaired</th><th>failed</th><th>front end</th><th>policy release</th><th>last seen (UTC)</th></tr></thead><tbody>`,
  );
  for (const { node, status } of slice) {
    const run = node.lastRun;
    body.push(
      `<tr data-status="${status}"><td>${badge(status)}</td><td><a href="/ui/nodes/${urlPart(node.id)}">${escapeHtml(node.name)}</a><br><span class="muted">${escapeHtml(node.id)}</span></td>` +
        (run
          ? `<td>${showTime(run.ended)}</td><td class="n">${run.kept}</td><td class="n">${run.repaired}</td><td class="n">${run.notKept}</td><td>${escapeHtml(run.frontEnd)}</td><td>${escapeHtml((run.policyRelease ?? "").slice(0, 12))}</td>`
          : `<td colspan="6" class="muted">no run stored</td>`) +
        `<td>${showTime(node.lastSeen)}</td></tr>`,
    );
  }
  body.push("</tbody></table>");
  return page(
    {
      title: "Fleet",
      signedIn: true,
      api: ["/api/v1/summary", `/api/v1/fleet${url.search}`, `/api/v1/history?days=${options.days}`],
    },
    body.join(""),
  );
}

const OUTCOME_FILTERS: readonly [string, string][] = [
  ["", "all"],
  ["failed,denied,timeout,interrupted", "failed"],
  ["warn", "warn"],
  ["repaired", "repaired"],
  ["kept", "kept"],
  ["failed,denied,timeout,interrupted,warn,repaired", "not kept or repaired"],
];

/** A run's promises, failures first, with the filter form; `path` is the page's own path. */
async function promisesSection(store: HubStore, run: RunRow, url: URL, path: string): Promise<string> {
  const outcome = url.searchParams.get("outcome") ?? "";
  const type = url.searchParams.get("type") ?? "";
  const q = (url.searchParams.get("q") ?? "").toLowerCase();
  const limit = limitParam(url, 500, 100_000);
  const all = await store.results(run.runId, { limit: 100_000 });
  const types = [...new Set(all.map((r) => r.type))].sort();
  const outcomes = outcome === "" ? undefined : new Set(outcome.split(","));
  const matching = all.filter(
    (r: ResultRow) =>
      (outcomes === undefined || outcomes.has(r.outcome)) &&
      (type === "" || r.type === type) &&
      (q === "" || `${r.promiser}\n${r.handle}\n${r.bundle}\n${r.message}`.toLowerCase().includes(q)),
  );
  const out: string[] = [];
  out.push(
    `<form class="f" method="get" action="${escapeHtml(path)}">${select("outcome", OUTCOME_FILTERS, outcome)}${select(
      "type",
      [["", "all"], ...types.map((t): [string, string] => [t, t])],
      type,
    )}<label>text <input name="q" value="${escapeHtml(url.searchParams.get("q") ?? "")}"></label><button type="submit">Filter</button></form>`,
  );
  out.push(
    `<p class="pager" id="promises-shown">${Math.min(limit, matching.length)} of ${matching.length} promises shown` +
      (matching.length > limit
        ? ` · <a href="${withParams(path, url, { limit: "all" })}">show all</a>`
        : "") +
      `</p>`,
  );
  out.push(
    `<table id="promises"><thead><tr><th>outcome</th><th>type</th><th>promiser</th><th>handle</th><th>bundle</th><th>source</th><th>message</th></tr></thead><tbody>`,
  );
  for (const r of matching.slice(0, limit))
    out.push(
      `<tr data-outcome="${escapeHtml(r.outcome)}"><td>${badge(r.outcome)}</td><td>${escapeHtml(r.type)}</td><td class="msg">${escapeHtml(r.promiser)}</td><td>${escapeHtml(r.handle)}</td><td>${escapeHtml(r.bundle)}</td><td>${escapeHtml(r.file)}:${r.line}</td><td class="msg">${escapeHtml(r.message)}</td></tr>`,
    );
  out.push("</tbody></table>");
  return out.join("");
}

function runSummary(run: RunRow): string {
  return `<p>Run <code>${escapeHtml(run.runId)}</code> (${escapeHtml(run.frontEnd)}), ended ${showTime(run.ended)} UTC, exit ${run.exitCode}, ${badge(run.outcome)} — ${run.kept} kept, ${run.repaired} repaired, ${run.notKept} failed of ${run.total}; policy ${escapeHtml(run.policy)}${run.policyRelease ? ` release ${escapeHtml(run.policyRelease)}` : ""}</p>`;
}

export async function nodePage(
  store: HubStore,
  id: string,
  url: URL,
  options: PageOptions,
): Promise<string | undefined> {
  const node = await store.node(id);
  if (!node) return undefined;
  const since = new Date(options.now.getTime() - options.days * 86_400_000);
  const [runs, history, compliance] = await Promise.all([
    store.runs(id, 50),
    store.history(since, id),
    nodeCompliance(store, id),
  ]);
  const status = fleetStatus(node, options);
  const self = `/ui/nodes/${encodeURIComponent(id)}`;
  const body: string[] = [];
  body.push(
    `<h1>${badge(status)} ${escapeHtml(node.name)}</h1><p><span class="muted">key</span> ${escapeHtml(node.id)} · <span class="muted">addresses</span> ${escapeHtml(node.addresses.join(", "))} · <span class="muted">first seen</span> ${showTime(node.firstSeen)} · <span class="muted">last seen</span> ${showTime(node.lastSeen)} UTC</p>`,
  );
  body.push(`<h2>Repairs and failures, last ${options.days} days</h2>`);
  body.push(
    historyPlot(fillDays(history, options.days, options.now), `repairs and failures per day, ${node.name}`),
  );
  body.push(nodeComplianceSection(compliance));
  body.push(`<h2>Last run's promises</h2>`);
  if (node.lastRun) {
    body.push(runSummary(node.lastRun));
    body.push(await promisesSection(store, node.lastRun, url, self));
  } else body.push(`<p class="muted">No run stored.</p>`);
  body.push(
    `<h2>History</h2><table id="runs"><thead><tr><th>ended (UTC)</th><th>outcome</th><th>kept</th><th>repaired</th><th>failed</th><th>front end</th><th>run</th></tr></thead><tbody>`,
  );
  for (const run of runs)
    body.push(
      `<tr><td>${showTime(run.ended)}</td><td>${badge(run.outcome)}</td><td class="n">${run.kept}</td><td class="n">${run.repaired}</td><td class="n">${run.notKept}</td><td>${escapeHtml(run.frontEnd)}</td><td><a href="/ui/runs/${urlPart(run.runId)}">${escapeHtml(run.runId)}</a></td></tr>`,
    );
  body.push("</tbody></table>");
  const api = [
    `/api/v1/nodes/${encodeURIComponent(id)}`,
    `/api/v1/history?days=${options.days}&node=${encodeURIComponent(id)}`,
  ];
  if (node.lastRun)
    api.push(
      `/api/v1/nodes/${encodeURIComponent(id)}/compliance`,
      `/api/v1/runs/${encodeURIComponent(node.lastRun.runId)}/results`,
    );
  return page({ title: node.name, signedIn: true, api }, body.join(""));
}

export async function runPage(store: HubStore, runId: string, url: URL): Promise<string | undefined> {
  const run = await store.run(runId);
  if (!run) return undefined;
  const node = await store.node(run.nodeId);
  const body = [
    `<h1>Run of <a href="/ui/nodes/${urlPart(run.nodeId)}">${escapeHtml(node?.name ?? run.nodeId)}</a></h1>`,
    runSummary(run),
    await promisesSection(store, run, url, `/ui/runs/${encodeURIComponent(runId)}`),
  ];
  return page(
    {
      title: `Run ${runId}`,
      signedIn: true,
      api: [`/api/v1/runs/${encodeURIComponent(runId)}`, `/api/v1/runs/${encodeURIComponent(runId)}/results`],
    },
    body.join(""),
  );
}

export function loginPage(error?: string): string {
  return page(
    { title: "Sign in", signedIn: false },
    `<h1>Sign in</h1><p>The hub's pages need a read token (<code>tend hub token create NAME</code>).</p>` +
      (error ? `<p class="err" id="error">${escapeHtml(error)}</p>` : "") +
      `<form method="post" action="/login"><label>token <input type="password" name="token" size="60" autocomplete="off"></label> <button type="submit">Sign in</button></form>`,
  );
}
