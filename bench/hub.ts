/**
 * The hub under load (issue 19, "what it must show" 3): simulated nodes
 * post reports of 1,000 promise results each at a steady rate (33 a
 * second: 10,000 nodes every 5 minutes) into `tend hub` (the built CLI) on
 * SQLite, then on PostgreSQL (a throwaway cluster, skipped when absent).
 * Printed: reports sent and stored, the ingest latency (from the first
 * byte sent to the answer) at p50 and p99, the hub's CPU (of one core) and
 * its largest RSS, and whether it falls behind (reports still unanswered
 * at the end, and the rate it kept).
 *
 *   node dist/bench/hub.js [--seconds 60] [--rate 33] [--results 1000] [--senders 50] [--only sqlite|postgres]
 *   node dist/bench/hub.js --seconds 600      # the 10 minutes
 *
 * Open loop: a report leaves on schedule whether or not the earlier ones
 * were answered, as 10,000 independent nodes would send them.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { HubAgent, sendReport } from "../src/reporting/send.js";
import {
  type DatabaseKind,
  databaseUnavailable,
  keyedWorkdir,
  makeDatabase,
  simNode,
  startHubProcess,
  tempDir,
} from "../test/hub/harness.js";
import { startPgServer } from "../test/providers/databases/pg-server.js";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "60" },
    rate: { type: "string", default: "33" },
    results: { type: "string", default: "1000" },
    senders: { type: "string", default: "50" },
    only: { type: "string" },
  },
});
const seconds = Number(values.seconds);
const rate = Number(values.rate);
const results = Number(values.results);
const senderCount = Number(values.senders);

function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) / 1024 : 0;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

async function run(kind: DatabaseKind): Promise<void> {
  const pg = kind === "postgres" ? startPgServer() : undefined;
  const db = makeDatabase(kind, pg);
  const root = tempDir("hub-bench");
  const hubDir = keyedWorkdir(join(root, "hub"));
  const hub = await startHubProcess(["-w", hubDir.dir, "-p", "0", "--database", db.spec, "--retention", "0"]);
  const pid = hub.child.pid as number;
  try {
    const senders = Array.from({ length: senderCount }, (_, i) => {
      const node = simNode(hubDir.ppkeys, hubDir.pair, join(root, `node${i}`));
      const options = node.options(hub.port);
      // One template per sender; each report gets its own run id.
      const template = JSON.stringify(node.report(results));
      const runId = (JSON.parse(template) as { runId: string }).runId;
      return { options, agent: new HubAgent(options), template, runId };
    });
    const latencies: number[] = [];
    let sent = 0;
    let stored = 0;
    let failed = 0;
    let inFlight = 0;
    let maxInFlight = 0;
    let maxRss = rssMiB(pid);
    const cpuStart = cpuTicks(pid);
    const start = performance.now();
    const total = Math.round(seconds * rate);
    const sampler = setInterval(() => {
      maxRss = Math.max(maxRss, rssMiB(pid));
    }, 500);
    const pending: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const sender = senders[i % senders.length] as (typeof senders)[number];
      const id = crypto.randomUUID();
      const body = Buffer.from(sender.template.replace(sender.runId, id));
      sent++;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const t0 = performance.now();
      pending.push(
        sendReport(body, sender.options, sender.agent).then((result) => {
          inFlight--;
          if (result.kind === "stored") {
            stored++;
            latencies.push(performance.now() - t0);
          } else failed++;
        }),
      );
    }
    const scheduledEnd = performance.now();
    const unansweredAtEnd = inFlight;
    await Promise.all(pending);
    const drained = performance.now();
    clearInterval(sampler);
    maxRss = Math.max(maxRss, rssMiB(pid));
    const cpuSeconds = (cpuTicks(pid) - cpuStart) / 100;
    const wall = (drained - start) / 1000;
    for (const s of senders) s.agent.destroy();
    const sendingSeconds = (scheduledEnd - start) / 1000;
    const drainSeconds = (drained - scheduledEnd) / 1000;
    // Stored while sending: what was answered by the last send, over the sending time.
    const storedRate = (stored - unansweredAtEnd) / sendingSeconds;
    const keptUp = storedRate >= 0.97 * rate && drainSeconds < 5;
    latencies.sort((a, b) => a - b);
    const counts = await (async () => {
      const store = await db.open();
      try {
        return await store.counts();
      } finally {
        await store.close();
      }
    })();
    console.log(
      [
        `hub on ${kind}: ${sent} reports of ${results} results over ${((scheduledEnd - start) / 1000).toFixed(1)} s (${rate}/s asked)`,
        `  stored ${stored}, failed ${failed}; in the database: ${counts.runs} runs, ${counts.results} results`,
        `  ingest latency: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${(latencies.at(-1) ?? 0).toFixed(1)} ms`,
        `  hub CPU: ${cpuSeconds.toFixed(1)} s over ${wall.toFixed(1)} s = ${((100 * cpuSeconds) / wall).toFixed(0)}% of one core; largest RSS ${maxRss.toFixed(0)} MiB`,
        `  ${keptUp ? "kept up" : "FELL BEHIND"}: ${storedRate.toFixed(1)} stored/s while sending (${Math.max(0, rate - storedRate).toFixed(1)}/s short), ` +
          `${unansweredAtEnd} unanswered when the last was sent, at most ${maxInFlight} in flight, drained ${drainSeconds.toFixed(1)} s after`,
      ].join("\n"),
    );
  } finally {
    await hub.stop("SIGTERM");
    db.stop();
    pg?.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

for (const kind of ["sqlite", "postgres"] as DatabaseKind[]) {
  if (values.only && values.only !== kind) continue;
  const unavailable = databaseUnavailable(kind);
  if (unavailable) console.log(`hub on ${kind}: skipped: ${unavailable}`);
  else await run(kind);
}
