/**
 * The "nothing lost" run: simulated nodes spool reports and send them with
 * the node side's own code (src/reporting) while `tend hub` (the built
 * CLI) is killed with SIGKILL at random moments and started again on the
 * same port. At the end every node sends what is left; then every report
 * any node spooled must be in the database exactly once, with all of its
 * results, and nothing else. Shared by test/hub/kill.test.ts (small) and
 * scripts/hub-kill.ts (the size: 50 nodes, 200 kills).
 */
import { createServer } from "node:net";
import { join } from "node:path";
import { rmSync } from "node:fs";
import { sendSpooled } from "../../src/reporting/send.js";
import { listSpool, spoolPaths, spoolReport } from "../../src/reporting/spool.js";
import { silentLogger } from "../../src/system/logger.js";
import { type HubProcess, keyedWorkdir, simNode, startHubProcess, tempDir } from "./harness.js";
import type { HubStore } from "../../src/hub/store/store.js";

export interface KillRunOptions {
  /** What `tend hub --database` takes. */
  readonly database: string;
  readonly open: () => Promise<HubStore>;
  readonly nodes: number;
  readonly kills: number;
  /** Results per report (small keeps the run fast). */
  readonly promises?: number;
  /** Longest wait between a start and the kill, in ms. */
  readonly maxUptimeMs?: number;
  readonly progress?: (text: string) => void;
}

export interface KillRunResult {
  readonly spooled: number;
  readonly stored: number;
  readonly missing: string[];
  readonly unexpected: string[];
  /** Runs whose stored results are not all there. */
  readonly incomplete: string[];
  readonly refusedByHub: number;
  readonly kills: number;
  readonly seconds: number;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function killRun(options: KillRunOptions): Promise<KillRunResult> {
  const started = Date.now();
  const root = tempDir("hub-kill");
  const hubDir = keyedWorkdir(join(root, "hub"));
  const port = await freePort();
  const args = ["-w", hubDir.dir, "-p", String(port), "--database", options.database, "--retention", "0"];
  const nodes = Array.from({ length: options.nodes }, (_, i) =>
    simNode(hubDir.ppkeys, hubDir.pair, join(root, `node${i}`)),
  );
  const spooled = new Map<string, number>();
  const bounds = { maxReports: 1_000_000, maxAgeMs: 1e12 };
  let hub: HubProcess | undefined = await startHubProcess(args);
  let producing = true;
  let refusedByHub = 0;

  const nodeLoop = async (node: (typeof nodes)[number]) => {
    const paths = spoolPaths(node.dir);
    while (producing) {
      const report = node.report(options.promises ?? 5);
      spoolReport(paths.spool, report, bounds, silentLogger);
      spooled.set(report.runId, report.run.promises.length);
      const sent = await sendSpooled(
        paths,
        { ...node.options(port), maxSends: 1000, timeoutMs: 5000 },
        silentLogger,
      );
      refusedByHub += sent.refused;
      await sleep(sent.stopped ? 20 + Math.random() * 60 : Math.random() * 10);
    }
  };
  const senders = nodes.map(nodeLoop);
  let startingMs = 0;
  try {
    for (let kill = 1; kill <= options.kills; kill++) {
      await sleep(Math.random() * (options.maxUptimeMs ?? 250));
      await hub.stop("SIGKILL");
      hub = undefined;
      const t0 = performance.now();
      hub = await startHubProcess(args);
      startingMs += performance.now() - t0;
      if (kill % 10 === 0)
        options.progress?.(
          `${kill} kills, ${spooled.size} reports spooled, ${((Date.now() - started) / 1000).toFixed(0)} s, ` +
            `the hub took ${(startingMs / kill).toFixed(0)} ms to start on average`,
        );
    }
    producing = false;
    await Promise.all(senders);
    // Every node sends what it has left, until nothing is left (the nodes at once, as a fleet would).
    await Promise.all(
      nodes.map(async (node) => {
        const paths = spoolPaths(node.dir);
        for (let round = 0; listSpool(paths.spool).length > 0; round++) {
          if (round > 50) throw new Error(`${node.dir}: the spool does not empty`);
          const sent = await sendSpooled(paths, { ...node.options(port), maxSends: 100000 }, silentLogger);
          refusedByHub += sent.refused;
        }
      }),
    );
    await hub.stop("SIGTERM");
    hub = undefined;
    options.progress?.(
      `the spools are empty after ${((Date.now() - started) / 1000).toFixed(0)} s; checking`,
    );
    const store = await options.open();
    try {
      const totals = await store.runTotals();
      const ids = totals.map((t) => t.runId);
      const stored = new Set(ids);
      const incomplete: string[] = [];
      for (const { runId, total, results } of totals) {
        const expected = spooled.get(runId);
        if (expected !== undefined && (total !== expected || results !== expected)) incomplete.push(runId);
      }
      return {
        spooled: spooled.size,
        stored: ids.length,
        missing: [...spooled.keys()].filter((id) => !stored.has(id)),
        unexpected: ids.filter((id) => !spooled.has(id)),
        incomplete,
        refusedByHub,
        kills: options.kills,
        seconds: (Date.now() - started) / 1000,
      };
    } finally {
      await store.close();
    }
  } finally {
    producing = false;
    await hub?.stop("SIGKILL");
    rmSync(root, { recursive: true, force: true });
  }
}
