/**
 * The server fuzz campaign (issue 14, must-show 4): malformed and truncated
 * frames, bad dialogs, oversized lengths, hostile paths, abrupt closes,
 * slowloris connections and floods past maxconnections, sent to a server
 * while a well-behaved client fetches a file every few hundred ms.
 *
 *   npx tsc -p . && node dist/scripts/fuzz-serverd.js [--server tend|cf-serverd|both]
 *     [--frames 100000] [--seed N] [--concurrency 16] [--slowloris 4]
 *     [--max-connections 60] [--flood 90] [--flood-every-ms 20000]
 *     [--watch-every-ms 300] [--kinds request,path-escape,...] [--legacy] [--json]
 *
 * --legacy serves the classic protocol too (allowlegacyconnects), so that
 * the classic key dialogue's cases (--kinds classic-handshake) get past CAUTH.
 *
 * Prints the count of malformed or truncated frames sent, how the server
 * reacted, what the well-behaved client saw, floods and slowloris
 * connections, and the server's resident memory (start, peak, end, and
 * its curve over the run; with its helper processes, if any). Exits 1
 * when the server died, the client saw a failure, or memory grew past
 * twice its start (and by more than 50 MB). The server runs as a child
 * process in a scratch host of test/net/hosts.ts (cf-serverd in a private
 * mount namespace), on a loopback address and a free port. Not part of npm test
 * (test/server/fuzz.test.ts runs a short seeded campaign).
 */
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { Impl } from "../test/net/hosts.js";
import { type CampaignResult, runCampaign, SERVER_NAMES } from "../test/server/fuzz/campaign.js";

/** Whether a result shows a server that held: alive, every fetch served, memory flat. */
export function campaignProblems(result: CampaignResult): string[] {
  const problems: string[] = [];
  if (!result.aliveAtEnd) problems.push("the server died");
  if (result.fuzzError) problems.push(`the fuzzer stopped: ${result.fuzzError}`);
  if (result.watch.failed > 0)
    problems.push(`${result.watch.failed} fetches failed: ${result.watch.failures.slice(0, 3).join("; ")}`);
  if (!result.watch.lastOk) problems.push("the well-behaved client's last fetch did not succeed");
  const m = result.memory;
  if (m && m.endKb > 2 * m.startKb && m.endKb - m.startKb > 50_000)
    problems.push(`memory grew from ${m.startKb} kB to ${m.endKb} kB`);
  return problems;
}

/** The resident memory over the run: "frames sent → MB" points, eight to a line. */
function rssCurve(curve: NonNullable<CampaignResult["memory"]>["curve"]): string[] {
  const points = curve.map((p) => `${p.frames} → ${(p.rssKb / 1024).toFixed(0)}`);
  const lines = ["  resident memory over the run (frames sent → MB):"];
  for (let i = 0; i < points.length; i += 8) lines.push(`    ${points.slice(i, i + 8).join(", ")}`);
  return lines;
}

function report(result: CampaignResult): string {
  const f = result.fuzz;
  const m = result.memory;
  const lines = [
    `${SERVER_NAMES[result.server]}: ${result.seconds.toFixed(0)} s`,
    f
      ? `  malformed or truncated frames sent: ${f.frames} (${f.cases} cases, ${f.connections} connections, ${f.refusedConnections} refused)`
      : "  fuzzer: no result",
    f
      ? `  server reactions: ${f.reactions.reply} replies, ${f.reactions.closed} closes, ${f.reactions.silent} silences`
      : "",
    f
      ? `  cases by kind: ${Object.entries(f.byKind)
          .sort()
          .map(([k, n]) => `${k} ${n}`)
          .join(", ")}`
      : "",
    `  well-behaved client: ${result.watch.ok} ok, ${result.watch.refused} refused (longest run ${result.watch.longestRefusalRun}), ${result.watch.failed} failed, slowest ${result.watch.maxLatencyMs} ms`,
    `  floods: ${result.floods} (${result.floodDropped} connections dropped); slowloris: ${result.slowlorisClosed} of ${result.slowlorisOpened} closed by the server`,
    m
      ? `  resident memory: start ${m.startKb} kB, peak ${m.peakKb} kB, end ${m.endKb} kB (${m.samples} samples)`
      : "  resident memory: unknown",
    ...(m && m.curve.length > 0 ? rssCurve(m.curve) : []),
    `  alive at the end: ${result.aliveAtEnd ? "yes" : "NO"}`,
  ];
  const problems = campaignProblems(result);
  lines.push(problems.length === 0 ? "  verdict: held" : `  verdict: ${problems.join("; ")}`);
  if (!result.aliveAtEnd)
    lines.push("  the server's last words:", ...result.log.trim().split("\n").slice(-12));
  return lines.filter((l) => l !== "").join("\n");
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      server: { type: "string", default: "tend" },
      frames: { type: "string", default: "100000" },
      seed: { type: "string", default: "1" },
      concurrency: { type: "string", default: "16" },
      slowloris: { type: "string", default: "4" },
      "max-connections": { type: "string", default: "60" },
      flood: { type: "string", default: "90" },
      "flood-every-ms": { type: "string", default: "20000" },
      "watch-every-ms": { type: "string", default: "300" },
      kinds: { type: "string" },
      legacy: { type: "boolean" },
      json: { type: "boolean" },
    },
  });
  const servers: Impl[] =
    values.server === "both" ? ["tend", "cf"] : [values.server === "cf-serverd" ? "cf" : "tend"];
  let failed = false;
  for (const server of servers) {
    const result = await runCampaign({
      server,
      seed: Number(values.seed),
      frames: Number(values.frames),
      concurrency: Number(values.concurrency),
      ...(values.kinds ? { kinds: values.kinds.split(",") } : {}),
      legacy: values.legacy === true,
      slowloris: Number(values.slowloris),
      maxConnections: Number(values["max-connections"]),
      flood: Number(values.flood),
      floodEveryMs: Number(values["flood-every-ms"]),
      watchEveryMs: Number(values["watch-every-ms"]),
      onProgress: values.json
        ? undefined
        : (line) => process.stderr.write(`${SERVER_NAMES[server]}: ${line}\n`),
    });
    failed ||= campaignProblems(result).length > 0;
    if (values.json)
      process.stdout.write(`${JSON.stringify({ ...result, log: result.log.slice(-4000) }, null, 2)}\n`);
    else process.stdout.write(`${report(result)}\n`);
  }
  // Exit at once: connections the server left half-open must not keep the process alive.
  process.exit(failed ? 1 : 0);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
