/**
 * The cold-copy rows of bench/serverd.ts: one client copies the Masterfiles
 * Policy Framework from a server into an empty directory, one request at a
 * time (OPENDIR, STAT and GET of every file), as an agent's first update
 * does. Between its requests the client writes what it got: the server is
 * idle a moment before each request, as under a real agent.
 *
 * One copy is short (~300 requests, tens of ms) and the machine's other
 * load moves its time by ±40%: so copies are timed in pairs, one on each
 * server back to back (which goes first alternates), and the ratio of each
 * pair is taken; the median of many pair ratios is what a run reports,
 * with its 95% confidence interval to show how far to trust it. Steadier
 * still is the interleaved copy (`interleavedCopy`): both servers asked
 * the same request in turn, their times for each request compared. Copies are
 * never deleted while anything is timed: on ext4 a file created after many
 * were deleted costs the kernel more (bench/measure.ts, FreshTrees), which
 * fell on whichever copy came next.
 */
import { readdirSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { ServerConnection } from "../src/net/client.js";
import type { Host } from "../test/net/hosts.js";
import { median } from "./measure.js";

/** The requests of a copy, by command. */
export type RequestKind = "opendir" | "stat" | "get";

/** Each request's time (ms, from sending it to having its whole reply), by command. */
export type Latencies = Record<RequestKind, number[]>;

export function noLatencies(): Latencies {
  return { opendir: [], stat: [], get: [] };
}

/** `operation`'s result, its time added to `into` (when given). */
async function timed<T>(into: number[] | undefined, operation: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await operation();
  into?.push(performance.now() - started);
  return result;
}

/**
 * Copies `remote` (a directory on the server) into `local` with tend's
 * client, each request's time added to `latencies`; returns the files copied.
 */
export async function coldCopy(
  connection: ServerConnection,
  remote: string,
  local: string,
  latencies?: Latencies,
): Promise<number> {
  mkdirSync(local, { recursive: true });
  let copied = 0;
  for (const name of await timed(latencies?.opendir, () => connection.opendir(remote))) {
    if (name === "." || name === "..") continue;
    const from = join(remote, name);
    const stat = await timed(latencies?.stat, () => connection.stat(from));
    if (stat.type === "dir") copied += await coldCopy(connection, from, join(local, name), latencies);
    else if (stat.type === "file") {
      const data = await timed(latencies?.get, () => connection.get(from, stat.size));
      writeFileSync(join(local, name), data ?? Buffer.alloc(0));
      copied++;
    }
  }
  return copied;
}

/** Files and bytes under `dir` (regular files only). */
export function census(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    files++;
    bytes += statSync(join(entry.parentPath, entry.name)).size;
  }
  return { files, bytes };
}

/** Whether two trees hold as many files and bytes. */
export function sameTree(a: string, b: string): boolean {
  const x = census(a);
  const y = census(b);
  return x.files === y.files && x.bytes === y.bytes;
}

/** cf-agent's policy: a recursive copy_from of `source` on `server` into `dest`. */
export function copyPolicy(server: Host, source: string, dest: string): string {
  return `body common control { bundlesequence => { "copy" }; }
bundle agent copy {
  files:
    "${dest}/."
      create => "true",
      copy_from => remote("${source}", "${server.address}", "${server.port}"),
      depth_search => all;
}
body copy_from remote(from, server, port) {
  source => "$(from)";
  servers => { "$(server)" };
  portnumber => "$(port)";
  trustkey => "true";
  compare => "digest";
}
body depth_search all { depth => "inf"; }
`;
}

/**
 * Both servers' copies at once, request by request: each request is sent
 * to one server, then the same to the other (which goes first
 * alternates), and what each sent is written under its own `locals`
 * entry. The two see the same requests with the same pauses, and the
 * machine's other load falls on both alike within the same fraction of a
 * millisecond: the median ratio of their times for the same request is
 * the steadiest measure a loaded machine gives. Its interval covers the
 * requests' scatter, not the drift of the servers' processes: two tend
 * serverd processes of one build, side by side on this 2-core machine
 * under other load, came out 0.86× to 1.27× apart over runs and halves
 * of runs of 8 copies, in time and in CPU per request alike. Both must serve the same tree at `remote`.
 */
export async function interleavedCopy(
  connections: readonly ServerConnection[],
  remote: string,
  locals: readonly string[],
  latencies: readonly Latencies[],
): Promise<void> {
  // Which server goes first: a fixed pseudo-random sequence. Taking turns
  // put every STAT on the same server first (a copy alternates STAT and
  // GET), straight after the client's writes: two tend servers of one
  // build then read 1.2× to 1.3× apart in three runs of four, against
  // 0.86× to 1.27× spread either way with this order.
  let seed = 1;
  const each = async <T>(kind: RequestKind, operation: (c: ServerConnection) => Promise<T>): Promise<T[]> => {
    const results: T[] = [];
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    const first = (seed >>> 16) % connections.length;
    for (let i = 0; i < connections.length; i++) {
      const side = (first + i) % connections.length;
      results[side] = await timed(latencies[side]?.[kind], () =>
        operation(connections[side] as ServerConnection),
      );
    }
    return results;
  };
  const walk = async (from: string, into: readonly string[]): Promise<void> => {
    for (const dir of into) mkdirSync(dir, { recursive: true });
    const [names = []] = await each("opendir", (c) => c.opendir(from));
    for (const name of names) {
      if (name === "." || name === "..") continue;
      const path = join(from, name);
      const [stat] = await each("stat", (c) => c.stat(path));
      if (stat?.type === "dir")
        await walk(
          path,
          into.map((dir) => join(dir, name)),
        );
      else if (stat?.type === "file") {
        const data = await each("get", (c) => c.get(path, stat.size));
        for (const [i, dir] of into.entries()) writeFileSync(join(dir, name), data[i] ?? Buffer.alloc(0));
      }
    }
  };
  await walk(remote, locals);
}

/**
 * A ratio's median over pairs, and the 95% confidence interval of that
 * median (distribution-free: the order statistics around the middle that
 * the binomial distribution puts it between).
 */
export interface PairedRatio {
  readonly median: number;
  readonly low: number;
  readonly high: number;
  readonly pairs: number;
}

/** The `p`-quantile of `values` (nearest rank on the sorted values). */
export function quantile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(p * (sorted.length - 1))))] as number;
}

/** `a[i] / b[i]` over the pairs both have: median and its 95% interval; null without pairs. */
export function pairedRatio(a: readonly number[], b: readonly number[]): PairedRatio | null {
  const ratios: number[] = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++)
    if ((b[i] as number) > 0) ratios.push((a[i] as number) / (b[i] as number));
  if (ratios.length === 0) return null;
  ratios.sort((x, y) => x - y);
  const n = ratios.length;
  const spread = 0.98 * Math.sqrt(n);
  const at = (rank: number): number => ratios[Math.min(n, Math.max(1, rank)) - 1] as number;
  return {
    median: median(ratios),
    low: at(Math.floor(n / 2 - spread)),
    high: at(Math.ceil(n / 2 + 1 + spread)),
    pairs: n,
  };
}

/** One command's request times: median and 90th percentile, µs. */
export interface LatencySummary {
  readonly p50Us: number;
  readonly p90Us: number;
  readonly count: number;
}

export function summarizeLatencies(latencies: Latencies): Record<RequestKind, LatencySummary | null> {
  const one = (values: readonly number[]): LatencySummary | null =>
    values.length === 0
      ? null
      : { p50Us: quantile(values, 0.5) * 1000, p90Us: quantile(values, 0.9) * 1000, count: values.length };
  return { opendir: one(latencies.opendir), stat: one(latencies.stat), get: one(latencies.get) };
}
