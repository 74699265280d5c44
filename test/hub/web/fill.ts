/**
 * Generated fleets for the web page's tests and benchmark: `nodes` nodes,
 * each with one run a day for `days` days, stored through the store's own
 * ingest. Node i's kind is i % 4: 0 all kept, 1 some repaired, 2 some
 * failed, 3 stale (its runs stop three days before `now`). Names and messages of a few nodes are hostile HTML
 * (`hostile: true`), to show the page escapes them.
 */
import type { HubStore } from "../../../src/hub/store/store.js";
import type { PromiseOutcome } from "../../../src/reporting/report.js";
import { fakeNodeId, generateReport } from "../generate.js";

export const HOSTILE_NAME = `<img src=x onerror="document.title='pwned'">&"'`;
export const HOSTILE_MESSAGE = `</td><script>document.title='pwned'</script><b>bold</b>`;

export type NodeKind = "kept" | "repaired" | "failed" | "stale";
export const KINDS: readonly NodeKind[] = ["kept", "repaired", "failed", "stale"];

export interface FillOptions {
  readonly nodes: number;
  readonly days: number;
  /** Promise results per run. */
  readonly promises: number;
  readonly now: Date;
  /** Node 2's name and a failed promise's message are hostile HTML. */
  readonly hostile?: boolean;
  /** Called every 10,000 reports (progress). */
  readonly progress?: (stored: number) => void;
}

export function nodeName(i: number): string {
  return `web-${String(i).padStart(5, "0")}.example.net`;
}

function outcomeFor(kind: NodeKind, i: number, day: number): PromiseOutcome {
  if (kind === "repaired" && i % 5 === 1) return "repaired";
  if (kind === "failed" && i % 5 === 1) return "failed";
  if (kind === "failed" && i % 5 === 2) return "repaired";
  // Older history has some repairs and failures everywhere, so the plots vary.
  if (day > 0 && i === 0 && day % 3 === 0) return "repaired";
  if (day > 0 && i === 1 && day % 7 === 0) return "failed";
  return "kept";
}

/** Fills `store`; returns the node ids by kind. */
export async function fillFleet(store: HubStore, options: FillOptions): Promise<Record<NodeKind, string[]>> {
  const ids: Record<NodeKind, string[]> = { kept: [], repaired: [], failed: [], stale: [] };
  let stored = 0;
  for (let n = 0; n < options.nodes; n++) {
    const kind = KINDS[n % 4] as NodeKind;
    const nodeId = fakeNodeId(n + 1);
    ids[kind].push(nodeId);
    const name = options.hostile && n === 2 ? HOSTILE_NAME : nodeName(n);
    for (let day = kind === "stale" ? 3 : 0; day < options.days; day++) {
      const ended = new Date(options.now.getTime() - day * 86_400_000 - (n % 3600) * 1000 - 60_000);
      const base = generateReport({ nodeId, name, promises: options.promises, ended });
      const promises = base.run.promises.map((p, i) => {
        const { message: _, ...rest } = p;
        const outcome = outcomeFor(kind, i, day);
        if (outcome !== "failed") return { ...rest, outcome };
        const message =
          options.hostile && n === 2 && i === 1 ? HOSTILE_MESSAGE : `could not converge ${p.promiser}`;
        return { ...rest, outcome, message };
      });
      const report = { ...base, run: { ...base.run, promises }, lines: [] };
      await store.ingest(report, {
        digest: report.runId,
        publicKey: "-----BEGIN PUBLIC KEY-----\n-----END PUBLIC KEY-----\n",
        address: "192.0.2.10",
        receivedAt: ended,
      });
      if (++stored % 10_000 === 0) options.progress?.(stored);
    }
  }
  return ids;
}
