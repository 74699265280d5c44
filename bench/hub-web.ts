/**
 * Benchmarks the hub's fleet page (issue 19: "the page for the whole fleet
 * renders in under 1 s with 10,000 nodes and 30 days of history"):
 *
 *   node dist/bench/hub-web.js [--nodes 10000] [--days 30] [--promises 5] [--only sqlite|postgres] [--json]
 *
 * Fills a hub's store in a temp dir (SQLite, then PostgreSQL in a
 * throwaway cluster, skipped with the reason when absent) with one run a
 * day per node for `days` days (through the store's own ingest; about 50 s
 * on SQLite and 3.5 min on PostgreSQL for the full size), starts the hub
 * on loopback and measures, for the default fleet page (the first 200
 * nodes, failures first, with the 30-day plot and the counts over the
 * whole fleet), for `?limit=1000`, and for `?limit=all` (every node in
 * one table):
 *
 * - server: the time from the request to the last byte over HTTPS (median
 *   of 5), which is the store's queries plus rendering;
 * - chromium: Debian's headless Chromium from the navigation's start to
 *   the end of its load event, by the page's own Navigation Timing (median
 *   of 5): the request, the server, parsing and layout. Beside it, the
 *   same as playwright-core's goto() sees it (adds the driver's round trips).
 *
 * There is no reference tool to run beside it; the goal is printed next to
 * the measure. The Chromium part is skipped, with the reason, when
 * chromium or playwright-core is absent.
 */
import https from "node:https";
import { createToken } from "../src/hub/tokens.js";
import { type DatabaseKind, databaseUnavailable, makeDatabase, startTestHub } from "../test/hub/harness.js";
import { browserUnavailable, launchBrowser } from "../test/hub/web/browser.js";
import { fillFleet } from "../test/hub/web/fill.js";
import { median } from "./measure.js";

const GOAL_MS = 1000;
const ROUNDS = 5;

function option(name: string, dflt: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at < 0 ? dflt : Number(process.argv[at + 1]);
}

function fetchPage(url: string, token: string): Promise<{ ms: number; bytes: number; status: number }> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    https
      .get(url, { headers: { authorization: `Bearer ${token}` }, rejectUnauthorized: false }, (res) => {
        let bytes = 0;
        res.on("data", (c: Buffer) => {
          bytes += c.length;
        });
        res.on("end", () => resolve({ ms: performance.now() - start, bytes, status: res.statusCode ?? 0 }));
      })
      .on("error", reject);
  });
}

async function main(): Promise<void> {
  const at = process.argv.indexOf("--only");
  const only = at < 0 ? undefined : process.argv[at + 1];
  const out: object[] = [];
  for (const kind of ["sqlite", "postgres"] as DatabaseKind[]) {
    if (only !== undefined && only !== kind) continue;
    const reason = databaseUnavailable(kind);
    if (reason) console.log(`hub fleet page on ${kind}: skipped: ${reason}`);
    else out.push(await measure(kind));
  }
  if (process.argv.includes("--json")) process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
}

async function measure(kind: DatabaseKind): Promise<object> {
  const nodes = option("nodes", 10_000);
  const days = option("days", 30);
  const promises = option("promises", 5);
  const json = process.argv.includes("--json");
  const db = makeDatabase(kind);
  const store = await db.open();
  const say = (text: string) => {
    if (!json) process.stderr.write(`${text}\n`);
  };
  try {
    const fillStart = performance.now();
    await fillFleet(store, {
      nodes,
      days,
      promises,
      now: new Date(),
      progress: (n) => say(`  filled ${n} runs`),
    });
    const fillMs = performance.now() - fillStart;
    const counts = await store.counts();
    say(
      `hub-web: ${counts.nodes} nodes, ${counts.runs} runs, ${counts.results} results stored in ${(fillMs / 1000).toFixed(1)} s`,
    );
    const { token } = await createToken(store, "bench");
    const hub = await startTestHub(store);
    const base = `https://127.0.0.1:${hub.hub.port}`;
    const pages: Record<string, string> = {
      default: "/ui/",
      rows1000: "/ui/?limit=1000",
      all: "/ui/?limit=all",
    };
    const result: Record<
      string,
      { serverMs: number; bytes: number; chromiumMs?: number; driverMs?: number }
    > = {};
    for (const [name, path] of Object.entries(pages)) {
      await fetchPage(`${base}${path}`, token); // warm
      const times: number[] = [];
      let bytes = 0;
      for (let i = 0; i < ROUNDS; i++) {
        const r = await fetchPage(`${base}${path}`, token);
        if (r.status !== 200) throw new Error(`${path}: HTTP ${r.status}`);
        times.push(r.ms);
        bytes = r.bytes;
      }
      result[name] = { serverMs: median(times), bytes };
    }
    const reason = browserUnavailable();
    if (reason) say(`hub-web: Chromium part skipped: ${reason}`);
    else {
      const browser = await launchBrowser();
      try {
        await browser.context.addCookies([{ name: "tend_token", value: token, url: base }]);
        const page = await browser.context.newPage();
        for (const [name, path] of Object.entries(pages)) {
          await page.goto(`${base}${path}`, { waitUntil: "load" });
          const times: number[] = [];
          const walls: number[] = [];
          for (let i = 0; i < ROUNDS; i++) {
            const start = performance.now();
            await page.goto(`${base}${path}`, { waitUntil: "load" });
            walls.push(performance.now() - start);
            times.push(
              await page.evaluate<number>("performance.getEntriesByType('navigation')[0].loadEventEnd"),
            );
          }
          const entry = result[name];
          if (entry) {
            entry.chromiumMs = median(times);
            entry.driverMs = median(walls);
          }
        }
      } finally {
        await browser.close();
      }
    }
    await hub.close();
    const summary = { kind, nodes, days, runs: counts.runs, fillMs, goalMs: GOAL_MS, pages: result };
    if (json) return summary;
    console.log(
      `hub fleet page, ${nodes} nodes, ${days} days (${counts.runs} runs), ${kind}; goal < ${GOAL_MS} ms`,
    );
    for (const [name, r] of Object.entries(result)) {
      const total = r.chromiumMs ?? r.serverMs;
      console.log(
        `  ${name.padEnd(8)} ${(r.bytes / 1024).toFixed(0).padStart(6)} KiB  server ${r.serverMs.toFixed(0).padStart(5)} ms` +
          (r.chromiumMs === undefined
            ? "  chromium skipped"
            : `  chromium request→load ${r.chromiumMs.toFixed(0).padStart(5)} ms (with the driver ${(r.driverMs ?? 0).toFixed(0)} ms)`) +
          `  = ${(total / GOAL_MS).toFixed(2)} × goal`,
      );
    }
    return summary;
  } finally {
    await store.close().catch(() => {});
    db.stop();
  }
}

main().catch((error: unknown) => {
  console.error(`hub-web benchmark failed: ${(error as Error).message}`);
  process.exitCode = 1;
});
