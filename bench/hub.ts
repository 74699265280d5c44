/**
 * The hub under load (issue 19, "what it must show" 3): 10,000 simulated
 * nodes, each with its own key, post reports of 1,000 promise results each
 * at a steady rate (33 a second: 10,000 nodes every 5 minutes, node after
 * node) into `tend hub` (the built CLI) on SQLite, then on PostgreSQL (a
 * throwaway cluster, skipped when absent). Printed: reports sent and
 * stored, the ingest latency (from the connection's start to the answer)
 * at p50 and p99, the hub's CPU (of one core) and its largest RSS, and
 * whether it falls behind (reports still unanswered at the end, and the
 * rate it kept).
 *
 *   node dist/bench/hub.js [--minutes 1 | --seconds 60] [--rate 33] [--results 1000] [--nodes 10000]
 *                          [--only sqlite|postgres]
 *   node dist/bench/hub.js --minutes 10       # the 10 minutes
 *
 * Only the nodes that report within the run are made (a 1-minute run at
 * 33/s makes 1,980); their RSA-1024 keys are generated before the clock
 * starts, on libuv's threads. Each report is its own mutual-TLS connection,
 * as independent nodes reporting every 5 minutes make them. Open loop: a
 * report leaves on schedule whether or not the earlier ones were answered.
 */
import { createPrivateKey, createPublicKey, generateKeyPair } from "node:crypto";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { selfSignedCertificate } from "../src/net/certificate.js";
import { type KeyPair, keyDigest, trustKey } from "../src/net/keys.js";
import { HubAgent, type SendOptions, sendReport } from "../src/reporting/send.js";
import { generateReport } from "../test/hub/generate.js";
import {
  type DatabaseKind,
  databaseUnavailable,
  keyedWorkdir,
  makeDatabase,
  startHubProcess,
  tempDir,
} from "../test/hub/harness.js";
import { startPgServer } from "../test/providers/databases/pg-server.js";

const { values } = parseArgs({
  options: {
    minutes: { type: "string" },
    seconds: { type: "string", default: "60" },
    rate: { type: "string", default: "33" },
    results: { type: "string", default: "1000" },
    nodes: { type: "string", default: "10000" },
    only: { type: "string" },
  },
});
const seconds = values.minutes !== undefined ? 60 * Number(values.minutes) : Number(values.seconds);
const rate = Number(values.rate);
const results = Number(values.results);
const fleetSize = Number(values.nodes);
for (const [name, n] of [
  ["--minutes/--seconds", seconds],
  ["--rate", rate],
  ["--results", results],
  ["--nodes", fleetSize],
] as const)
  if (!Number.isFinite(n) || n <= 0) {
    console.error(`bench/hub: ${name} must be a positive number`);
    process.exit(2);
  }

/** An RSA-1024 pair made on libuv's threads (read back from PEM, as src/net/keys.ts explains). */
function makePair(): Promise<KeyPair> {
  return new Promise((resolve, reject) =>
    generateKeyPair(
      "rsa",
      {
        modulusLength: 1024,
        publicExponent: 65537,
        publicKeyEncoding: { type: "pkcs1", format: "pem" },
        privateKeyEncoding: { type: "pkcs1", format: "pem" },
      },
      (error, _publicPem, privatePem) => {
        if (error) return reject(error);
        const privateKey = createPrivateKey(privatePem);
        resolve({ privateKey, publicKey: createPublicKey(privateKey) });
      },
    ),
  );
}

interface BenchNode {
  readonly options: SendOptions;
  /** The node's report with RUN_ID in place of its run id. */
  readonly template: string;
}

const RUN_ID = "00000000-0000-4000-8000-00000000cafe";

/**
 * `count` nodes, each trusted by the hub (its key in the hub's ppkeys) and
 * trusting it (one shared ppkeys with the hub's key), and its report.
 */
async function makeNodes(
  count: number,
  hubPpkeys: string,
  hubPair: KeyPair,
  root: string,
): Promise<BenchNode[]> {
  const shared = join(root, "nodes-ppkeys");
  trustKey(shared, "root", hubPair.publicKey);
  const nodes: BenchNode[] = [];
  const batch = 16;
  for (let i = 0; i < count; i += batch) {
    const pairs = await Promise.all(Array.from({ length: Math.min(batch, count - i) }, makePair));
    for (const pair of pairs) {
      const n = nodes.length;
      trustKey(hubPpkeys, "root", pair.publicKey);
      const nodeId = keyDigest(pair.publicKey);
      const name = `load-${String(n).padStart(5, "0")}.example.net`;
      nodes.push({
        options: {
          hub: { host: "127.0.0.1", port: 0 },
          pair,
          ppkeys: shared,
          trustHubKey: false,
          timeoutMs: 120_000,
          user: "root",
          certificate: selfSignedCertificate(pair),
        },
        template: JSON.stringify(generateReport({ nodeId, name, promises: results, runId: RUN_ID })),
      });
    }
  }
  return nodes;
}

function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

/** CPU ticks of a PostgreSQL cluster: the postmaster, its ended children and its live ones. */
function clusterTicks(socketDir: string): number {
  const pid = Number(readFileSync(join(socketDir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
  const fields = (p: number | string) => {
    const stat = readFileSync(`/proc/${p}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  };
  const own = fields(pid);
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const f = fields(entry);
      if (Number(f[1]) === pid) ticks += Number(f[11]) + Number(f[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks;
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
  const total = Math.round(seconds * rate);
  const keysStart = performance.now();
  const nodes = await makeNodes(Math.min(fleetSize, total), hubDir.ppkeys, hubDir.pair, root);
  console.log(
    `hub on ${kind}: ${nodes.length} nodes (of ${fleetSize}) made in ${((performance.now() - keysStart) / 1000).toFixed(1)} s`,
  );
  const hub = await startHubProcess(["-w", hubDir.dir, "-p", "0", "--database", db.spec, "--retention", "0"]);
  const pid = hub.child.pid as number;
  try {
    const senders = nodes.map((node) => ({
      ...node,
      options: { ...node.options, hub: { host: "127.0.0.1", port: hub.port } },
    }));
    const latencies: number[] = [];
    let sent = 0;
    let stored = 0;
    let failed = 0;
    let inFlight = 0;
    let maxInFlight = 0;
    let maxRss = rssMiB(pid);
    const cpuStart = cpuTicks(pid);
    const pgStart = pg ? clusterTicks(pg.socketDir) : 0;
    const errors = new Map<string, number>();
    const start = performance.now();
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
      const body = Buffer.from(sender.template.replace(RUN_ID, id));
      const agent = new HubAgent(sender.options);
      sent++;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const t0 = performance.now();
      pending.push(
        // A connection of its own, closed after the answer: a node reports once in 5 minutes.
        sendReport(body, sender.options, agent).then((result) => {
          agent.destroy();
          inFlight--;
          if (result.kind === "stored") {
            stored++;
            latencies.push(performance.now() - t0);
          } else {
            failed++;
            const reason = "error" in result ? result.error : result.kind;
            errors.set(reason, (errors.get(reason) ?? 0) + 1);
          }
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
    const pgSeconds = pg ? (clusterTicks(pg.socketDir) - pgStart) / 100 : 0;
    const wall = (drained - start) / 1000;
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
        `  stored ${stored}, failed ${failed}; in the database: ${counts.nodes} nodes, ${counts.runs} runs, ${counts.results} results`,
        ...[...errors].map(([reason, n]) => `  failed ${n}×: ${reason}`),
        `  ingest latency: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${(latencies.at(-1) ?? 0).toFixed(1)} ms`,
        `  hub CPU: ${cpuSeconds.toFixed(1)} s over ${wall.toFixed(1)} s = ${((100 * cpuSeconds) / wall).toFixed(0)}% of one core; largest RSS ${maxRss.toFixed(0)} MiB` +
          (pg
            ? `; PostgreSQL server CPU ${pgSeconds.toFixed(1)} s = ${((100 * pgSeconds) / wall).toFixed(0)}% of one core`
            : ""),
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
